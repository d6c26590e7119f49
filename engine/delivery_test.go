package engine

import (
	"fmt"
	"strings"
	"testing"
)

// A checkpoint is revalidated when it would be delivered: the call about to
// run may be the one that ends it, and then the agent is not interrupted.
func TestDeliveryRevalidated(t *testing.T) {
	t.Run("a check answers unchecked edits", func(t *testing.T) {
		s := newSim(t)
		s.prompt()
		for i := 0; i < 12; i++ {
			s.call(edit(fmt.Sprintf("f%d.go", i)))
		}
		if n := s.call(check(OutcomeOK)); n != "" {
			t.Fatalf("the check that settles it was interrupted: %s", n)
		}
		c := s.st.Checkpoints[0]
		if c.Reason != ReasonUnverifiedEdits || c.Status != StatusResolved || c.Nudged {
			t.Fatalf("want resolved and never told: %+v", c)
		}
	})
	t.Run("a failed check keeps it open", func(t *testing.T) {
		s := newSim(t)
		s.prompt()
		for i := 0; i < 12; i++ {
			s.call(edit(fmt.Sprintf("f%d.go", i)))
		}
		s.call(check(OutcomeFailed))
		s.call(edit("g.go"))
		if s.open(ReasonUnverifiedEdits) != 1 {
			t.Fatal("still unchecked after a failed check")
		}
	})
	t.Run("an edit ends exploring", func(t *testing.T) {
		s := newSim(t)
		s.prompt()
		for i := 0; i < 20; i++ {
			s.call(read(fmt.Sprintf("f%d.go", i)))
		}
		if n := s.call(edit("f1.go")); n != "" {
			t.Fatalf("the edit that ends the exploration was interrupted: %s", n)
		}
		if c := s.st.Checkpoints[0]; c.Status != StatusResolved {
			t.Fatalf("want resolved: %+v", c)
		}
	})
	t.Run("another read gets it", func(t *testing.T) {
		s := newSim(t)
		s.prompt()
		for i := 0; i < 20; i++ {
			s.call(read(fmt.Sprintf("f%d.go", i)))
		}
		if n := s.call(read("g.go")); !strings.Contains(n, "exploring") {
			t.Fatalf("exploring goes on: %q", n)
		}
	})
}

// A failure loop whose command then passes is resolved.
func TestFailureLoopResolvedBySuccess(t *testing.T) {
	s := newSim(t)
	s.prompt()
	for i := 0; i < 3; i++ {
		s.call(fail("make", "sig"))
	}
	ok := fail("make", "")
	ok.Outcome, ok.Exit, ok.FailSig = OutcomeOK, nil, ""
	s.call(ok)
	c := s.st.Checkpoints[0]
	if c.Reason != ReasonFailureLoop || c.Status != StatusResolved || c.Key != "fp-make" {
		t.Fatalf("want the loop resolved: %+v", c)
	}
}

// A nudge is short, whatever piles up: every checkpoint and several guards
// at once stay far under the host's 10,000-character cap.
func TestNudgeIsShort(t *testing.T) {
	cfg := DefaultConfig()
	long := strings.Repeat("x", 160) // the longest command preview the journal keeps
	var cps []*Checkpoint
	for i, r := range []Reason{ReasonFailureLoop, ReasonExploring, ReasonUnverifiedEdits} {
		cps = append(cps, &Checkpoint{ID: fmt.Sprint("c", i), Reason: r, Evidence: "`" + long + "` failed 3 times in a row with the same error (exit 1)"})
	}
	ws := []Warning{{Reason: ReasonThirdAttempt, Evidence: long}, {Reason: ReasonReread, Evidence: long}, {Reason: ReasonLargeRead, Evidence: long}}
	for _, attended := range []bool{true, false} {
		if n := composeNudge(cps, ws, nil, attended, &cfg); len(n) > 2500 || strings.Contains(n, "\n\n") {
			t.Errorf("attended %v: %d characters:\n%s", attended, len(n), n)
		}
	}
}

// Strength before nudging: a checkpoint whose evidence is not yet strong
// enough is shown (open in status and the panel) but not told; once the
// evidence grows strong enough it is told, with the figures as they are.
func TestStrengthBeforeNudging(t *testing.T) {
	t.Run("unchecked edits told only without any check", func(t *testing.T) {
		s := newSim(t)
		s.cfg.UnverifiedEdits, s.cfg.UnverifiedTell = 12, 20
		s.prompt()
		for i := 0; i < 12; i++ {
			s.call(edit(fmt.Sprintf("f%d.go", i)))
		}
		s.call(check(OutcomeFailed)) // the agent is verifying: its build fails
		for i := 0; i < 20; i++ {
			if n := s.call(edit(fmt.Sprintf("g%d.go", i))); n != "" {
				t.Fatalf("edit %d after a failing check was told: %s", i, n)
			}
		}
		if s.open(ReasonUnverifiedEdits) != 1 {
			t.Fatal("the checkpoint shows while it is held back")
		}
		n := s.call(edit("h.go"))
		if !strings.Contains(n, "20 edits since the last check of any kind, 32 since the last successful one") {
			t.Fatalf("told with the figures as they are: %q", n)
		}
	})
	if d := DefaultConfig(); d.UnverifiedTell != 0 || d.ExploreTell != 0 {
		t.Errorf("by default both are shown, not told: %+v", d)
	}
	t.Run("zero never tells", func(t *testing.T) {
		s := newSim(t)
		s.cfg.ExploreTell = 0
		s.prompt()
		for i := 0; i < 100; i++ {
			if n := s.call(read(fmt.Sprintf("f%d.go", i))); strings.Contains(n, "exploring") {
				t.Fatalf("read %d: %s", i, n)
			}
		}
		if s.open(ReasonExploring) != 1 {
			t.Fatal("the exploring checkpoint shows in status")
		}
	})
}
