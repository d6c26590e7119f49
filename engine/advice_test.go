package engine

import (
	"strings"
	"testing"
	"time"
)

// Advice arrives as an event; the next foreground pre-tool nudge carries it
// once, a subagent's never, and a new task drops advice not yet told.
func TestAdviceIsToldOnce(t *testing.T) {
	cfg := DefaultConfig()
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	st := NewState("s")
	apply := func(ev Event) []Signal {
		now = now.Add(time.Second)
		ev.V, ev.Session, ev.Time = 1, "s", now
		return Apply(st, &ev, &cfg)
	}
	apply(Event{Kind: KindPrompt})
	apply(Event{Kind: KindAdvice, Source: "auto", Note: "skipped: spacing"})
	if st.Advice != nil || st.AdviceAt != now.Unix() {
		t.Fatalf("a skip carries no advice but stamps the time: %+v %d", st.Advice, st.AdviceAt)
	}
	apply(Event{Kind: KindAdvice, Source: "auto", Advice: "run the failing test alone"})
	if n := Nudge(apply(Event{Kind: KindPreTool, Tool: "Read", Subagent: "a1"})); n != "" {
		t.Fatalf("a subagent got the advice: %q", n)
	}
	if n := Nudge(apply(Event{Kind: KindPreTool, Tool: "Read", Quiet: true})); n != "" {
		t.Fatalf("CULLY_GUARD=off still nudged: %q", n)
	}
	n := Nudge(apply(Event{Kind: KindPreTool, Tool: "Read"}))
	if !strings.Contains(n, "cully advisor") || !strings.Contains(n, "run the failing test alone") {
		t.Fatalf("nudge %q", n)
	}
	if n := Nudge(apply(Event{Kind: KindPreTool, Tool: "Read"})); n != "" {
		t.Fatalf("told twice: %q", n)
	}
	apply(Event{Kind: KindAdvice, Advice: "stale soon"})
	apply(Event{Kind: KindPrompt})
	if n := Nudge(apply(Event{Kind: KindPreTool, Tool: "Read"})); n != "" || st.Advice != nil {
		t.Fatalf("advice of the last task survived a new one: %q %+v", n, st.Advice)
	}
}
