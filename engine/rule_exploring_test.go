package engine

import (
	"strings"
	"testing"
)

func TestExploringBoundary(t *testing.T) {
	s := newSim(t)
	s.prompt()
	for i := 1; i <= 19; i++ {
		if n := s.call(read("f.go")); n != "" {
			t.Fatalf("read %d: unexpected nudge %q", i, n)
		}
	}
	if s.open(ReasonExploring) != 0 {
		t.Fatal("19 reads: no checkpoint yet")
	}
	if n := s.call(read("g.go")); n != "" {
		t.Fatalf("20th read: the checkpoint is raised after it ran, the nudge comes next: %q", n)
	}
	if s.open(ReasonExploring) != 1 {
		t.Fatal("20th read raises the exploring checkpoint")
	}
	n21 := s.call(read("h.go"))
	if !strings.Contains(n21, "exploring") || !strings.Contains(n21, CheckpointQuestion) || !strings.Contains(n21, Action(ReasonExploring)) {
		t.Fatalf("21st call: want exactly the exploring nudge, got %q", n21)
	}
	if n := s.call(read("i.go")); n != "" {
		t.Fatalf("22nd call: no repeat, got %q", n)
	}
	for i := 0; i < 30; i++ {
		s.call(read("j.go"))
	}
	if len(s.st.Checkpoints) != 1 {
		t.Fatal("once per (task, reason, epoch)")
	}
}

func TestExploringResetByEditCheckAndPrompt(t *testing.T) {
	for name, reset := range map[string]func(*sim){
		"edit":         func(s *sim) { s.call(edit("a.go")) },
		"failed check": func(s *sim) { s.call(check(OutcomeFailed)) },
		"new prompt":   func(s *sim) { s.prompt() },
	} {
		t.Run(name, func(t *testing.T) {
			s := newSim(t)
			s.prompt()
			for i := 0; i < 19; i++ {
				s.call(read("f.go"))
			}
			reset(s)
			for i := 0; i < 19; i++ {
				s.call(read("f.go"))
			}
			if s.open(ReasonExploring) != 0 {
				t.Fatal("the count should have been reset")
			}
		})
	}
}

// Subagents explore on purpose to spare the main context: their reads do
// not count toward the main agent's exploring checkpoint.
func TestSubagentReadsDoNotCount(t *testing.T) {
	s := newSim(t)
	s.prompt()
	for i := 0; i < 40; i++ {
		ev := read("f.go")
		ev.Subagent = "a1"
		s.call(ev)
	}
	if s.open(ReasonExploring) != 0 {
		t.Fatal("subagent reads raised a checkpoint")
	}
}

func TestExploringRule(t *testing.T) {
	reads := func(n int) func(s *State) { return func(s *State) { s.ReadsSinceAct = n } }
	rd := Event{Time: ruleNow, Kind: KindPostTool, Tool: "Grep", Class: ClassRead, Outcome: OutcomeOK}
	sub, ed, failedRead := rd, rd, rd
	sub.Subagent = "a1"
	ed.Tool, ed.Class = "Edit", ClassEdit
	failedRead.Outcome = OutcomeFailed
	runCheckpointCases(t, exploring, []checkpointCase{
		{name: "20th read", state: reads(20), ev: rd, evidence: "20 read/search calls since the last edit or check"},
		{name: "past the threshold", state: reads(27), ev: rd, evidence: "27 read/search calls since the last edit or check"},
		{name: "a failed read counts", state: reads(20), ev: failedRead, evidence: "20 read/search calls since the last edit or check"},
		{name: "19th read", state: reads(19), ev: rd},
		{name: "lower threshold", state: reads(5), cfg: func(c *Config) { c.ExploreReads = 5 }, ev: rd, evidence: "5 read/search calls since the last edit or check"},
		{name: "a subagent's read", state: reads(20), ev: sub},
		{name: "not a read", state: reads(20), ev: ed},
	})
}
