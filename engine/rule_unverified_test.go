package engine

import (
	"strings"
	"testing"
)

func TestUnverifiedEditsBoundaryAndReset(t *testing.T) {
	s := newSim(t)
	s.prompt()
	for i := 0; i < 11; i++ {
		s.call(edit("a.go"))
	}
	if s.open(ReasonUnverifiedEdits) != 0 {
		t.Fatal("11 edits: nothing yet")
	}
	s.call(edit("a.go"))
	if s.open(ReasonUnverifiedEdits) != 1 {
		t.Fatal("12th edit raises unverified-edits")
	}
	if n := s.call(edit("a.go")); !strings.Contains(n, "unverified-edits") || !strings.Contains(n, Action[ReasonUnverifiedEdits]) {
		t.Fatalf("next call nudges: %q", n)
	}
	// A successful check advances the epoch and resets the count: 12 more
	// edits raise a new checkpoint in the same task.
	s.call(check(OutcomeOK))
	if s.st.EditsSinceCheck != 0 || s.st.CheckEpoch != 1 {
		t.Fatalf("after a successful check: edits %d epoch %d", s.st.EditsSinceCheck, s.st.CheckEpoch)
	}
	for i := 0; i < 12; i++ {
		s.call(edit("a.go"))
	}
	if len(s.st.Checkpoints) != 2 {
		t.Fatalf("new epoch, new checkpoint: %d", len(s.st.Checkpoints))
	}
}

func TestUnknownOrFailedCheckDoesNotReset(t *testing.T) {
	for _, o := range []Outcome{OutcomeUnknown, OutcomeFailed} {
		s := newSim(t)
		s.prompt()
		for i := 0; i < 11; i++ {
			s.call(edit("a.go"))
		}
		s.call(check(o))
		s.call(edit("a.go"))
		if s.open(ReasonUnverifiedEdits) != 1 || s.st.CheckEpoch != 0 {
			t.Errorf("%s check must not count as a success", o)
		}
	}
}
