package engine

import (
	"strings"
	"testing"
)

// failing is a check that failed with error signature errSig.
func failing(cmd, errSig string) Event {
	one := 1
	return Event{Tool: "Bash", Class: ClassCheck, Cmd: cmd, CmdFP: "fp-" + cmd, Outcome: OutcomeFailed, Exit: &one, FailSig: "f-" + cmd, ErrSig: errSig}
}

func TestSameFailureRule(t *testing.T) {
	ev := failing("golangci-lint run ./b/...", "cfg")
	key := Fingerprint("golangci-lint run", "cfg")
	fails := func(n int, due bool, forms ...string) func(s *State) {
		return func(s *State) {
			s.ProgFails = []Tally{{Key: key, N: n, Forms: forms, Note: "golangci-lint run", Due: due}}
		}
	}
	other := failing("golangci-lint run ./b/...", "another")
	run := ev
	run.Class = ClassRun
	loop := func(s *State) {
		fails(3, false, "a", "b")(s)
		s.Checkpoints = []Checkpoint{{Reason: ReasonFailureLoop, Task: s.Task, Epoch: s.CheckEpoch, Status: StatusOpen}}
	}
	runCheckpointCases(t, sameFailure, []checkpointCase{
		{name: "third failure, two command lines", state: fails(3, false, "golangci-lint run", "golangci-lint run ./b/..."), ev: ev,
			evidence: "`golangci-lint run` failed 3 times in this task with the same error, under 2 different command lines (`golangci-lint run`, `golangci-lint run ./b/...`)"},
		{name: "second failure", state: fails(2, false, "a", "b"), ev: ev},
		{name: "one command line", state: fails(3, false, "golangci-lint run"), ev: ev},
		{name: "already said", state: fails(4, true, "a", "b"), ev: ev},
		{name: "another error", state: fails(3, false, "a", "b"), ev: other},
		{name: "not a check", state: fails(3, false, "a", "b"), ev: run},
		{name: "the failure loop has it", state: loop, ev: ev},
		{name: "threshold 4", state: fails(3, false, "a", "b"), cfg: func(c *Config) { c.LoopFailures = 4 }, ev: ev},
	})
}

func TestSameFailure(t *testing.T) {
	t.Run("varied flags, successes between", func(t *testing.T) {
		s := newSim(t)
		s.cfg.SameFailureTell = 3
		s.prompt()
		s.call(failing("go vet ./...", "vet-cfg"))
		s.call(passing("go build ./..."))
		s.call(failing("go vet -composites=false ./...", "vet-cfg"))
		s.call(edit("a.go"))
		s.call(passing("go build ./..."))
		s.call(failing("go vet ./pkg/...", "vet-cfg"))
		n := s.call(read("a.go"))
		if !strings.Contains(n, "`go vet` failed 3 times in this task with the same error, under 3 different command lines") {
			t.Fatalf("nudge %q", n)
		}
	})
	t.Run("three different commands in a row are the same-error rule's", func(t *testing.T) {
		s := newSim(t)
		s.cfg.SameFailureTell = 1
		s.prompt()
		s.call(failing("go vet ./a", "e"))
		s.call(failing("go vet ./b", "e"))
		s.call(failing("go vet ./c", "e"))
		if s.open(ReasonSameError) != 1 || s.open(ReasonSameFailure) != 0 {
			t.Fatalf("checkpoints %+v", s.st.Checkpoints)
		}
	})
	t.Run("one command alone is the failure loop's", func(t *testing.T) {
		s := newSim(t)
		s.prompt()
		for i := 0; i < 3; i++ {
			s.call(failing("make lint", "e"))
			s.call(edit("a.go"))
		}
		if s.open(ReasonFailureLoop) != 1 || s.open(ReasonSameFailure) != 0 {
			t.Fatalf("checkpoints %+v", s.st.Checkpoints)
		}
	})
	t.Run("errors that change are progress", func(t *testing.T) {
		s := newSim(t)
		s.prompt()
		for i, sig := range []string{"a", "b", "c", "d"} {
			s.call(failing("go vet ./"+string(rune('p'+i)), sig))
			s.call(passing("go build ./..."))
		}
		if s.open(ReasonSameFailure) != 0 {
			t.Fatal("raised")
		}
	})
}
