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
	if n := s.call(edit("a.go")); !strings.Contains(n, "unverified-edits") || !strings.Contains(n, Action(ReasonUnverifiedEdits)) {
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

func TestUnverifiedEditsRule(t *testing.T) {
	edits := func(n int) func(s *State) { return func(s *State) { s.EditsSinceCheck = n } }
	ed := Event{Time: ruleNow, Kind: KindPostTool, Tool: "Edit", Class: ClassEdit, Target: "a.go", Outcome: OutcomeOK}
	failed, unknown, rd := ed, ed, ed
	failed.Outcome = OutcomeFailed
	unknown.Outcome = OutcomeUnknown
	rd.Tool, rd.Class = "Read", ClassRead
	runCheckpointCases(t, unverifiedEdits, []checkpointCase{
		{name: "12th edit", state: edits(12), ev: ed, evidence: "12 edits since the last successful check"},
		{name: "past the threshold", state: edits(15), ev: ed, evidence: "15 edits since the last successful check"},
		{name: "an edit of unknown outcome counts", state: edits(12), ev: unknown, evidence: "12 edits since the last successful check"},
		{name: "11th edit", state: edits(11), ev: ed},
		{name: "lower threshold", state: edits(3), cfg: func(c *Config) { c.UnverifiedEdits = 3 }, ev: ed, evidence: "3 edits since the last successful check"},
		{name: "a failed edit", state: edits(12), ev: failed},
		{name: "not an edit", state: edits(12), ev: rd},
	})
}

// Edits of plans, notes and docs are not unverified code.
func TestProseEditsDoNotCount(t *testing.T) {
	s := newSim(t)
	s.prompt()
	for i := 0; i < 20; i++ {
		s.call(edit([]string{"PLAN.md", "notes/NOTES.txt", ".claude/plans/p.md", "docs/a.rst"}[i%4]))
	}
	if s.open(ReasonUnverifiedEdits) != 0 || s.st.EditsSinceCheck != 0 {
		t.Fatalf("prose edits counted: %d since check", s.st.EditsSinceCheck)
	}
	for _, c := range []struct {
		path string
		want bool
	}{{"README.md", true}, {"a/b.MD", true}, {"x.go", false}, {"Makefile", false}, {"v1.2/run", false}, {"", false}} {
		if got := proseFile(c.path); got != c.want {
			t.Errorf("proseFile(%q) = %v", c.path, got)
		}
	}
}

// unverified_tell_since = "pass" is the seed's told checkpoint exactly: 12
// edits without a successful check, a failing build between them
// included. The default ("check") keeps it silent then: the agent is
// verifying.
func TestUnverifiedTellSincePass(t *testing.T) {
	for _, c := range []struct {
		since string
		told  bool
	}{{TellSinceCheck, false}, {TellSincePass, true}} {
		t.Run(c.since, func(t *testing.T) {
			s := newSim(t)
			s.cfg.UnverifiedTell, s.cfg.UnverifiedTellSince = 12, c.since
			s.prompt()
			for i := 0; i < 6; i++ {
				s.call(edit("a.go"))
			}
			s.call(check(OutcomeFailed))
			for i := 0; i < 6; i++ {
				s.call(edit("a.go"))
			}
			n := s.call(Event{Tool: "Read", Class: ClassRead, Target: "b.go"})
			if got := strings.Contains(n, "unverified-edits"); got != c.told {
				t.Fatalf("told %v, want %v: %q", got, c.told, n)
			}
			if c.told && !strings.Contains(n, "12 edits since the last successful check, 6 since the last check of any kind") {
				t.Errorf("evidence: %q", n)
			}
		})
	}
	if got := (Config{UnverifiedTellSince: "nonsense"}).Sanitize().UnverifiedTellSince; got != TellSinceCheck {
		t.Errorf("nonsense sanitized to %q", got)
	}
}
