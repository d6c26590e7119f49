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
		if n := s.call(read("a.go")); !strings.Contains(n, "failure-loop") || !strings.Contains(n, Action[ReasonFailureLoop]) {
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
