package engine

import (
	"testing"
	"time"
)

// Every listed rule has a distinct reason and the text its nudge needs.
func TestRuleLists(t *testing.T) {
	seen := map[Reason]bool{}
	for _, g := range guards {
		if g.reason == "" || seen[g.reason] || g.advice == "" || g.check == nil {
			t.Errorf("guard %q: empty, duplicate, or missing advice or check", g.reason)
		}
		seen[g.reason] = true
		if got := guardAdvice(Warning{Reason: g.reason, Evidence: "E"}); got != "E. "+g.advice {
			t.Errorf("guard %q advice: %q", g.reason, got)
		}
	}
	for _, c := range checkpoints {
		if c.reason == "" || seen[c.reason] || c.action == "" || c.due == nil {
			t.Errorf("checkpoint %q: empty, duplicate, or missing action or due", c.reason)
		}
		seen[c.reason] = true
		if Action(c.reason) != c.action {
			t.Errorf("Action(%q) = %q, want the rule's %q", c.reason, Action(c.reason), c.action)
		}
	}
	if Action("no-such-rule") != "" {
		t.Error("an unknown reason has no action")
	}
	if got := guardAdvice(Warning{Reason: "no-such-rule", Evidence: "E"}); got != "E" {
		t.Errorf("an unknown reason gets no advice: %q", got)
	}
}

// ruleNow is the clock of the rule table tests.
var ruleNow = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// wholeReadOf is a whole-file Read of path with a known size and mtime.
func wholeReadOf(path string, size int64, mtime time.Time) Event {
	return Event{Time: ruleNow, Kind: KindPreTool, Tool: "Read", Class: ClassRead, Target: path, Size: &size, Mtime: &mtime}
}

// guardCase is one row of a guard's table: the call about to run, and the
// evidence expected ("" when the guard must stay quiet).
type guardCase struct {
	name     string
	state    func(s *State)
	cfg      func(c *Config)
	ev       Event
	evidence string
}

func runGuardCases(t *testing.T, g guardRule, cases []guardCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := NewState("s")
			s.ensure()
			if c.state != nil {
				c.state(s)
			}
			cfg := DefaultConfig()
			if c.cfg != nil {
				c.cfg(&cfg)
			}
			ev := c.ev
			key, evidence, ok := g.check(s, &ev, &cfg)
			switch {
			case c.evidence == "" && ok:
				t.Errorf("warned, want quiet: %q", evidence)
			case c.evidence != "" && !ok:
				t.Errorf("quiet, want %q", c.evidence)
			case ok && evidence != c.evidence:
				t.Errorf("evidence\n got %q\nwant %q", evidence, c.evidence)
			case ok && key == "":
				t.Error("empty dedup key")
			}
		})
	}
}

// checkpointCase is one row of a checkpoint rule's table: the state after
// the call was booked, the call, and the evidence expected ("" when the
// checkpoint must not be due).
type checkpointCase struct {
	name     string
	state    func(s *State)
	cfg      func(c *Config)
	ev       Event
	cmd      *CmdSeen
	evidence string
}

func runCheckpointCases(t *testing.T, r checkpointRule, cases []checkpointCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := NewState("s")
			s.ensure()
			if c.state != nil {
				c.state(s)
			}
			cfg := DefaultConfig()
			if c.cfg != nil {
				c.cfg(&cfg)
			}
			ev := c.ev
			evidence, ok := r.due(s, &ev, c.cmd, &cfg)
			switch {
			case c.evidence == "" && ok:
				t.Errorf("due, want not: %q", evidence)
			case c.evidence != "" && !ok:
				t.Errorf("not due, want %q", c.evidence)
			case ok && evidence != c.evidence:
				t.Errorf("evidence\n got %q\nwant %q", evidence, c.evidence)
			}
		})
	}
}

// keyOf is a guard's dedup key for a call it warns about.
func keyOf(t *testing.T, g guardRule, s *State, ev Event) string {
	t.Helper()
	cfg := DefaultConfig()
	key, _, ok := g.check(s, &ev, &cfg)
	if !ok {
		t.Fatalf("%s: no warning for %+v", g.reason, ev)
	}
	return key
}
