package engine

import "testing"

func TestPrintOnly(t *testing.T) {
	for cmd, want := range map[string]bool{
		`echo "waiting for reuse/efficiency/altitude agents"`: true,
		`echo done; true`:      true,
		`printf 'x\n'`:         true,
		`echo "---" && ls`:     false,
		`echo hi > notes.txt`:  false,
		`echo "$(git status)"`: false,
		`go test ./...`:        false,
		`echo $HOME`:           true,
		"":                     false,
	} {
		if got := printOnly(cmd); got != want {
			t.Errorf("printOnly(%q) = %v, want %v", cmd, got, want)
		}
	}
}

func TestBusyWait(t *testing.T) {
	echo := func(s string) Event {
		return Event{Tool: "Bash", Class: ClassRun, Cmd: `echo "` + s + `"`, CmdFP: "fp-" + s, CallFP: "c-" + s}
	}
	s := newSim(t)
	s.prompt()
	s.call(echo("waiting for the agents"))
	if s.open(ReasonBusyWait) != 0 {
		t.Fatal("one echo is a note")
	}
	s.call(read("a.go"))
	s.call(echo("still waiting"))
	if s.open(ReasonBusyWait) != 1 {
		t.Fatal("the second print-only call is a pattern")
	}
	q := newSim(t)
	q.prompt()
	q.call(echo("step one"))
	q.prompt()
	q.call(echo("step two"))
	if q.open(ReasonBusyWait) != 0 {
		t.Fatal("a prompt between: two tasks, one echo each")
	}
}
