package engine

import (
	"strings"
	"testing"
)

// A checkpoint shown but not told (exploring, with the default
// explore_tell of 0) is told at the agent's next call once the user asks
// (a tell event: the panel's t), exactly once; a tell of a checkpoint
// already told or closed changes nothing.
func TestTellShownCheckpoint(t *testing.T) {
	s := newSim(t)
	s.cfg.ExploreTell = 0 // shown, not told
	s.prompt()
	for i := 0; i < s.cfg.ExploreReads+2; i++ {
		if n := s.call(read("f.go")); n != "" {
			t.Fatalf("read %d: told %q before anyone asked", i, n)
		}
	}
	open := s.st.OpenCheckpoints()
	if len(open) != 1 || open[0].Reason != ReasonExploring {
		t.Fatalf("open: %+v", open)
	}
	id := open[0].ID
	if sigs := s.apply(Event{Agent: "cully", Kind: KindTell, Tell: []string{id}}); len(sigs) != 0 {
		t.Errorf("a tell raises nothing itself: %+v", sigs)
	}
	if s.st.Agent == "cully" {
		t.Errorf("a tell is cully's, not the agent's")
	}
	n := s.call(read("g.go"))
	if !strings.Contains(n, "checkpoint "+id+" (exploring)") {
		t.Fatalf("the next call's nudge does not carry %s: %q", id, n)
	}
	if n := s.call(read("h.go")); n != "" {
		t.Errorf("told again: %q", n)
	}
	s.apply(Event{Agent: "cully", Kind: KindTell, Tell: []string{id}})
	if n := s.call(read("i.go")); n != "" {
		t.Errorf("a told checkpoint told again on a second tell: %q", n)
	}
}
