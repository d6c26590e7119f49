package engine

import (
	"strings"
	"testing"
)

// passing is a check that passed, its plain form computed as the adapters do.
func passing(cmd string) Event {
	zero := 0
	return Event{Tool: "Bash", Class: ClassCheck, Cmd: cmd, CmdFP: "fp-" + cmd, PlainFP: Fingerprint("plain", PlainCommand(cmd)), Outcome: OutcomeOK, Exit: &zero}
}

func TestRerunRule(t *testing.T) {
	ev := passing("go test ./... | grep FAIL")
	run := func(n int, due bool, forms ...string) func(s *State) {
		return func(s *State) { s.Rerun = &Tally{Key: ev.PlainFP, N: n, Forms: forms, Note: "ok", Due: due} }
	}
	failed := ev
	failed.Outcome = OutcomeFailed
	other := passing("go vet ./...")
	runCheckpointCases(t, rerun, []checkpointCase{
		{name: "third pass, three filters", state: run(3, false, "go test ./... | tail -5", "go test -v ./... | tail -40", "go test ./... | grep FAIL"), ev: ev,
			evidence: "`go test ./... | tail -5` passed 3 times in a row with only the output filter changed (`go test -v ./... | tail -40`, `go test ./... | grep FAIL`), and nothing was edited between"},
		{name: "second pass", state: run(2, false, "go test ./... | tail -5", "go test ./... | grep FAIL"), ev: ev},
		{name: "one spelling each time", state: run(3, false, "go test ./... | grep FAIL"), ev: ev},
		{name: "already said", state: run(4, true, "a", "b"), ev: ev},
		{name: "failing each time", state: func(s *State) {
			s.Rerun = &Tally{Key: ev.PlainFP, N: 3, Forms: []string{"go build ./... 2>&1 | head -80", "go build ./... 2>&1"}, Note: "failed"}
		}, ev: failed, evidence: "`go build ./... 2>&1 | head -80` failed 3 times in a row with only the output filter changed (`go build ./... 2>&1`), and nothing was edited between"},
		{name: "outcomes unknown", state: func(s *State) { s.Rerun = &Tally{Key: ev.PlainFP, N: 3, Forms: []string{"a", "b"}} }, ev: ev,
			evidence: "`a` ran 3 times in a row with only the output filter changed (`b`), and nothing was edited between"},
		{name: "another check", state: run(3, false, "a", "b"), ev: other},
		{name: "no run", ev: ev},
	})
}

func TestRerun(t *testing.T) {
	t.Run("same check, other filters, nothing edited", func(t *testing.T) {
		s := newSim(t)
		s.cfg.RerunTell = 3
		s.prompt()
		s.call(passing("go test ./... 2>&1 | tail -20"))
		s.call(read("a.go"))
		s.call(passing("go test -v ./... 2>&1 | grep -E 'ok|FAIL'"))
		s.call(passing("go test -count=1 ./... | tail -5"))
		if n := s.call(read("b.go")); !strings.Contains(n, "passed 3 times in a row with only the output filter changed") {
			t.Fatalf("nudge %q", n)
		}
		s.call(passing("go test ./... | head"))
		if n := s.call(read("c.go")); strings.Contains(n, "rerun-passing") {
			t.Fatalf("said twice: %q", n)
		}
	})
	quiet := map[string][]Event{
		"an edit between": {passing("go test ./... | tail"), passing("go test ./... | head"), edit("a.go"), passing("go test ./... | tail -3")},
		"a pass after a failure": {passing("go test ./... | tail"), func() Event {
			e := passing("go test ./... | head")
			e.Outcome = OutcomeFailed
			return e
		}(), passing("go test ./... | tail"), passing("go test -v ./...")},
		"different packages":      {passing("go test ./a/ | tail"), passing("go test ./b/ | tail"), passing("go test ./c/ | tail")},
		"the same command thrice": {passing("go test ./..."), passing("go test ./..."), passing("go test ./...")},
		"another check between":   {passing("go test ./... | tail"), passing("go vet ./..."), passing("go test ./... | head"), passing("go test -v ./...")},
	}
	for name, seq := range quiet {
		t.Run(name, func(t *testing.T) {
			s := newSim(t)
			s.cfg.RerunTell = 1
			s.prompt()
			for _, ev := range seq {
				s.call(ev)
			}
			if s.open(ReasonRerun) != 0 {
				t.Fatal("raised")
			}
		})
	}
}

// Two long spellings that differ only in their pipeline's tail are two
// spellings: a preview clipped at its start made them one.
func TestRerunLongSpellings(t *testing.T) {
	s := newSim(t)
	s.cfg.RerunTell = 3
	s.prompt()
	base := "go test ./internal/some/long/package/path/... -run 'TestSomethingRatherLong|TestOther' 2>&1"
	s.call(passing(base + " | tail -20"))
	s.call(passing(base + " | grep -E 'ok|FAIL'"))
	s.call(passing(base + " | head -5"))
	if n := s.call(read("b.go")); !strings.Contains(n, "passed 3 times in a row with only the output filter changed") {
		t.Fatalf("nudge %q", n)
	}
}
