package engine

import (
	"strings"
	"testing"
)

func TestFailureLoop(t *testing.T) {
	t.Run("same error three times, edits between", func(t *testing.T) {
		s := newSim(t)
		s.prompt()
		s.call(check(OutcomeFailed))
		s.call(edit("a.go"))
		s.call(check(OutcomeFailed))
		if s.open(ReasonFailureLoop) != 0 {
			t.Fatal("two failures are not a loop")
		}
		s.call(edit("a.go"))
		s.call(check(OutcomeFailed))
		if s.open(ReasonFailureLoop) != 1 {
			t.Fatal("the same failure three times is a loop, edits or not")
		}
		if n := s.call(read("a.go")); !strings.Contains(n, "failure-loop") || !strings.Contains(n, Action(ReasonFailureLoop)) {
			t.Fatalf("nudge: %q", n)
		}
	})
	t.Run("error changes after an edit: progress", func(t *testing.T) {
		s := newSim(t)
		s.prompt()
		for i, sig := range []string{"a", "b", "c", "d"} {
			ev := check(OutcomeFailed)
			ev.FailSig = sig
			s.call(ev)
			s.call(edit("a.go"))
			_ = i
		}
		if s.open(ReasonFailureLoop) != 0 {
			t.Fatal("an edit-run-fix cycle with changing errors must stay quiet")
		}
	})
	t.Run("a success between breaks the loop", func(t *testing.T) {
		s := newSim(t)
		s.prompt()
		s.call(check(OutcomeFailed))
		s.call(check(OutcomeFailed))
		s.call(check(OutcomeOK))
		s.call(check(OutcomeFailed))
		if s.open(ReasonFailureLoop) != 0 {
			t.Fatal("a success resets the streak")
		}
	})
}

// An Edit the host refuses the same way three times (its old_string never
// matches) is a failure loop, although no tool hook ever saw it.
func TestRejectedCallsLoop(t *testing.T) {
	s := newSim(t)
	s.prompt()
	rej := Event{Kind: KindBatch, Rejected: []Rejected{{Tool: "Edit", Class: ClassEdit, Target: "a.go", FP: "fp-edit-a", Sig: "not-found"}}}
	s.apply(rej)
	s.apply(rej)
	if s.open(ReasonFailureLoop) != 0 {
		t.Fatal("two refusals are not a loop")
	}
	s.apply(rej)
	cps := s.st.OpenCheckpoints()
	if len(cps) != 1 || cps[0].Reason != ReasonFailureLoop || !strings.Contains(cps[0].Evidence, "`Edit a.go` failed 3 times") {
		t.Fatalf("checkpoints: %+v", cps)
	}
	if s.st.Counts.ToolCalls != 3 || s.st.Counts.Failures != 3 || s.st.EditsSinceCheck != 0 {
		t.Fatalf("counts: %+v, edits since check %d", s.st.Counts, s.st.EditsSinceCheck)
	}
}

func TestFailureLoopRule(t *testing.T) {
	one := 1
	failed := Event{Time: ruleNow, Kind: KindPostTool, Tool: "Bash", Class: ClassCheck, Cmd: "go test ./...", CmdFP: "fp", Outcome: OutcomeFailed, Exit: &one, FailSig: "s"}
	noExit, unknown, ok := failed, failed, failed
	noExit.Exit = nil
	unknown.Outcome, unknown.Exit = OutcomeUnknown, nil
	ok.Outcome = OutcomeOK
	streak := func(n int) *CmdSeen {
		return &CmdSeen{Preview: "go test ./...", Runs: n, Fails: n, SigStreak: n, LastSig: "s"}
	}
	runCheckpointCases(t, failureLoop, []checkpointCase{
		{name: "third same failure", ev: failed, cmd: streak(3), evidence: "`go test ./...` failed 3 times in a row with the same error (exit 1)"},
		{name: "fourth same failure", ev: failed, cmd: streak(4), evidence: "`go test ./...` failed 4 times in a row with the same error (exit 1)"},
		{name: "exit status unknown", ev: noExit, cmd: streak(3), evidence: "`go test ./...` failed 3 times in a row with the same error"},
		{name: "second same failure", ev: failed, cmd: streak(2)},
		{name: "three failures, the error changed", ev: failed, cmd: &CmdSeen{Preview: "go test ./...", Fails: 3, SigStreak: 1, LastSig: "t"}},
		{name: "outcome unknown", ev: unknown, cmd: streak(3)},
		{name: "success", ev: ok, cmd: streak(3)},
		{name: "untracked call", ev: failed},
		{name: "threshold 4", cfg: func(c *Config) { c.LoopFailures = 4 }, ev: failed, cmd: streak(3)},
	})
	if !failureLoop.refused {
		t.Error("refused calls must reach the failure loop")
	}
}

// A refused call is booked as a failed command and nothing else: it never
// counts as a read or an edit, so it raises no exploring or
// unverified-edits checkpoint even where their counts are over threshold.
// (A refused call has failed, so unverified-edits would not be due anyway;
// the refused Read is the case that can fail.)
func TestRefusedCallsReachTheFailureLoopOnly(t *testing.T) {
	s := newSim(t)
	s.prompt()
	for i := 0; i < 3; i++ {
		s.call(edit("b.go"))
	}
	for i := 0; i < 3; i++ {
		s.call(read("a.go"))
	}
	s.cfg.ExploreReads, s.cfg.UnverifiedEdits = 1, 1 // over threshold, not yet raised
	s.apply(Event{Kind: KindBatch, Rejected: []Rejected{
		{Tool: "Read", Class: ClassRead, Target: "c.go", FP: "fp-read-c", Sig: "x"},
		{Tool: "Edit", Class: ClassEdit, Target: "d.go", FP: "fp-edit-d", Sig: "y"},
	}})
	if len(s.st.Checkpoints) != 0 {
		t.Fatalf("refused calls raised %+v", s.st.Checkpoints)
	}
}
