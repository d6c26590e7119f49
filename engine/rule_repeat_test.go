package engine

import (
	"fmt"
	"strings"
	"testing"
)

// callOf is a finished call with its input and result fingerprints.
func callOf(ev Event, call, out string) Event {
	ev.CallFP, ev.OutFP = call, out
	return ev
}

func TestRepeatedCall(t *testing.T) {
	grep := func(out string) Event {
		return callOf(Event{Tool: "Grep", Class: ClassRead, Cmd: "Grep TODO"}, "grep-todo", out)
	}
	cases := []struct {
		name string
		seq  []Event
		want int // the call (1-based) whose nudge warns; 0: none
	}{
		{"the fourth identical call", []Event{grep("o"), grep("o"), grep("o"), grep("o")}, 4},
		{"three are not yet a loop", []Event{grep("o"), grep("o"), grep("o")}, 0},
		{"a different result breaks the run", []Event{grep("o"), grep("o2"), grep("o"), grep("o")}, 0},
		{"another call between", []Event{grep("o"), grep("o"), callOf(edit("a.go"), "e", "ok"), grep("o"), grep("o")}, 0},
		{"bulk reads of different files", func() []Event {
			var evs []Event
			for i := 0; i < 8; i++ {
				evs = append(evs, callOf(read(fmt.Sprint("f", i, ".go")), fmt.Sprint("r", i), "ok"))
			}
			return evs
		}(), 0},
		{"polls repeat on purpose", func() []Event {
			p := callOf(Event{Tool: "BashOutput", Class: ClassPoll}, "poll", "running")
			return []Event{p, p, p, p, p}
		}(), 0},
		{"failures are the failure rules' business", func() []Event {
			f := callOf(fail("make", "s"), "make", "failed")
			return []Event{f, f, f, f}
		}(), 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := firstNudgeWith(t, c.seq, "ran 3 times in a row with the same result"); got != c.want {
				t.Errorf("warned at call %d, want %d", got, c.want)
			}
		})
	}
}

// firstNudgeWith plays calls after a prompt and returns the 1-based call
// whose nudge first holds marker (0: none did).
func firstNudgeWith(t *testing.T, seq []Event, marker string) int {
	s := newSim(t)
	s.prompt()
	for i, ev := range seq {
		if n := s.call(ev); strings.Contains(n, marker) {
			return i + 1
		}
	}
	return 0
}

func TestCycle(t *testing.T) {
	a := callOf(read("a.go"), "read-a", "A")
	b := callOf(Event{Tool: "Bash", Class: ClassRun, Cmd: "git diff"}, "diff", "B")
	e1 := callOf(edit("r.go"), "edit-1", "ok")
	e2 := callOf(edit("r.go"), "edit-2", "ok")
	tA := callOf(fail("go test ./money/", "sa"), "test", "fail-a")
	tB := callOf(fail("go test ./money/", "sb"), "test", "fail-b")
	next := callOf(read("z.go"), "read-z", "Z")
	cases := []struct {
		name string
		seq  []Event
		want int // the call whose nudge carries it (raised after the call before)
	}{
		{"A-B three times", []Event{a, b, a, b, a, b, next}, 7},
		{"two turns each are healthy", []Event{a, b, a, b, next}, 0},
		{"a changed result is progress", []Event{a, b, a, callOf(b, "diff", "B2"), a, b, next}, 0},
		{"an edit and its revert, failing two ways in turn", []Event{e1, tA, e2, tB, e1, tA, e2, tB, next}, 9},
		{"a failing ping-pong is the failure rules'", []Event{e1, tA, e1, tA, e1, tA, next}, 0},
		{"A-A-A is a repeat, not a cycle", []Event{a, a, a, a, a, a, next}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := firstNudgeWith(t, c.seq, "(cycle)"); got != c.want {
				t.Errorf("nudged at call %d, want %d", got, c.want)
			}
		})
	}
}

func TestSameErrorAcrossCommands(t *testing.T) {
	bad := func(cmd string) Event {
		ev := fail(cmd, "sig-"+cmd)
		ev.ErrSig = "parse-error"
		return ev
	}
	t.Run("three commands, one error", func(t *testing.T) {
		s := newSim(t)
		s.prompt()
		s.call(bad("ls -la | head"))
		s.call(read("a.go")) // reads do not end the run
		s.call(bad("cat x && echo"))
		s.call(bad("find . -name y"))
		if n := s.call(read("b.go")); !strings.Contains(n, "3 calls in a row (`ls -la | head`, `cat x && echo`, `find . -name y`) failed with the same error") {
			t.Fatalf("got %q", n)
		}
		ok := Event{Tool: "Bash", Class: ClassRun, Cmd: "pwd", CmdFP: "pwd", Outcome: OutcomeOK}
		s.call(ok)
		if c := s.st.Checkpoints[0]; c.Reason != ReasonSameError || c.Status != StatusResolved {
			t.Fatalf("a command that works resolves it: %+v", c)
		}
	})
	t.Run("one command alone is a failure loop, not this", func(t *testing.T) {
		s := newSim(t)
		s.prompt()
		for i := 0; i < 3; i++ {
			s.call(bad("make"))
		}
		if s.open(ReasonSameError) != 0 || s.open(ReasonFailureLoop) != 1 {
			t.Fatalf("checkpoints %+v", s.st.Checkpoints)
		}
	})
	t.Run("a success between", func(t *testing.T) {
		s := newSim(t)
		s.prompt()
		s.call(bad("a"))
		s.call(bad("b"))
		s.call(Event{Tool: "Bash", Class: ClassRun, Cmd: "pwd", CmdFP: "pwd", Outcome: OutcomeOK})
		s.call(bad("c"))
		if s.open(ReasonSameError) != 0 {
			t.Fatal("a success ends the run")
		}
	})
	// Three calls of one parallel batch (every pre-tool event before the
	// first post-tool one) failing alike are one attempt: none could
	// answer another. A fourth and a fifth, each started after the
	// failures before it, make three attempts.
	t.Run("one parallel batch", func(t *testing.T) {
		s := newSim(t)
		s.prompt()
		batch := []Event{bad("git show a"), bad("git show b"), bad("git show c")}
		for _, ev := range batch {
			pre := ev
			pre.Kind, pre.Outcome, pre.Exit, pre.FailSig = KindPreTool, "", nil, ""
			s.apply(pre)
		}
		for _, ev := range batch {
			ev.Kind = KindPostTool
			s.apply(ev)
		}
		if s.open(ReasonSameError) != 0 {
			t.Fatalf("one batch raised it: %+v", s.st.Checkpoints)
		}
		s.call(bad("git log"))
		if s.open(ReasonSameError) != 0 {
			t.Fatal("two attempts raised it")
		}
		s.call(bad("git fetch"))
		if s.open(ReasonSameError) != 1 {
			t.Fatalf("three attempts did not raise it: %+v", s.st.ErrRun)
		}
	})
}

// The same test re-run with narrowing flags, failing the same way, is a
// failure loop of the family.
func TestFailureFamilyLoop(t *testing.T) {
	run := func(cmd string) Event {
		ev := fail(cmd, "sig-testparse")
		ev.Class, ev.FamilyFP = ClassCheck, "fam-parser"
		return ev
	}
	s := newSim(t)
	s.prompt()
	s.call(run("go test ./parser/"))
	s.call(edit("parser.go"))
	s.call(run("go test -run TestParse ./parser/"))
	s.call(edit("parser.go"))
	s.call(run("go test -run TestParse -v ./parser/"))
	if s.open(ReasonFailureLoop) != 1 {
		t.Fatalf("a family failing the same way 3 times: %+v", s.st.Checkpoints)
	}
	if c := s.st.Checkpoints[0]; !strings.Contains(c.Evidence, "its runs with other narrowing flags failed 3 times") {
		t.Fatalf("evidence %q", c.Evidence)
	}
}

// Waiting between identical status queries is following a job, not a loop.
func TestPollBreaksRepetition(t *testing.T) {
	s := newSim(t)
	s.prompt()
	status := callOf(Event{Tool: "Bash", Class: ClassRun, Cmd: "gh run view 1"}, "gh-run", "in_progress")
	wait := callOf(Event{Tool: "Bash", Class: ClassPoll, Cmd: "sleep 30"}, "sleep", "")
	for i := 0; i < 6; i++ {
		if n := s.call(status); n != "" {
			t.Fatalf("round %d: %s", i, n)
		}
		s.call(wait)
	}
}

// Codex's write_stdin (no characters: a poll of a command still running)
// repeats on purpose: it is a poll, never a repeated call.
func TestWriteStdinIsAPoll(t *testing.T) {
	if c := ClassifyTool("write_stdin"); c != ClassPoll {
		t.Fatalf("write_stdin is %q, want a poll", c)
	}
}
