package ledger

import (
	"strings"
	"testing"

	"cully/engine"
)

func nudgeEv(session, agent string, kind engine.Kind, bytes int) *engine.Event {
	return &engine.Event{Session: session, Agent: agent, Kind: kind,
		Signals: []engine.Signal{{Kind: engine.SignalNudge, Text: strings.Repeat("n", bytes)}}}
}

func TestSessionCosts(t *testing.T) {
	c := NewCosts()
	ev := func(session string, kind engine.Kind) *engine.Event {
		return &engine.Event{Session: session, Agent: "claude", Kind: kind}
	}
	// Claude Code reports batches: each batch of results is one request.
	c.Add(ev("a", engine.KindPostTool))
	c.Add(ev("a", engine.KindBatch))
	c.Add(nudgeEv("a", "claude", engine.KindPreTool, 400)) // 100 tokens
	c.Add(ev("a", engine.KindPostTool))
	c.Add(ev("a", engine.KindPostTool))
	c.Add(ev("a", engine.KindBatch)) // +100
	sub := ev("a", engine.KindBatch)
	sub.Subagent = "agent-1"
	c.Add(sub) // a subagent's request: not the agent's context
	c.Add(ev("a", engine.KindPostTool))
	c.Add(ev("a", engine.KindBatch)) // +100
	c.Add(ev("a", engine.KindCompact))
	c.Add(ev("a", engine.KindPostTool))
	c.Add(ev("a", engine.KindBatch)) // folded away: +0
	in := int64(10000)
	c.Add(&engine.Event{Session: "a", Kind: engine.KindHostUsage, Usage: &engine.HostUsage{InputTokens: &in}})

	// A host without batches: each tool result is a request; the first
	// batch seen, if one comes, stands for the results before it.
	c.Add(nudgeEv("b", "codex", engine.KindPostTool, 80)) // 20 tokens
	for i := 0; i < 3; i++ {
		c.Add(&engine.Event{Session: "b", Agent: "codex", Kind: engine.KindPostTool}) // +20 each
	}
	c.Add(nudgeEv("late", "claude", engine.KindPreTool, 40)) // 10
	c.Add(ev("late", engine.KindPostTool))
	c.Add(ev("late", engine.KindPostTool))
	c.Add(ev("late", engine.KindBatch)) // the two results were one request: +10
	c.Add(ev("quiet", engine.KindPostTool))

	got := c.Sessions()
	if len(got) != 3 {
		t.Fatalf("%d sessions, want 3 (the quiet one has no nudge): %+v", len(got), got)
	}
	a, b, late := got[0], got[1], got[2]
	if a.Session != "a" || a.Tokens != 100 || a.Resent != 200 || a.Requests != 2 {
		t.Errorf("a: %+v, want 100 told, 200 re-sent in 2 requests", a)
	}
	if a.Share == nil || *a.Share != 0.03 {
		t.Errorf("a: share %v, want 0.03 of 10,000 input tokens", a.Share)
	}
	if b.Session != "b" || b.Tokens != 20 || b.Resent != 60 || b.Requests != 3 || b.Share != nil || b.HostInputTokens != nil {
		t.Errorf("b: %+v, want 20 told, 60 re-sent in 3 requests, no share", b)
	}
	if late.Session != "late" || late.Resent != 10 || late.Requests != 1 {
		t.Errorf("late: %+v, want 10 re-sent in 1 request", late)
	}
}

// The advisor's ledger entries join their sessions' figures, as shares of
// the host's input tokens where known; a session with entries and no
// nudge is listed too.
func TestSessionCostsWithEntries(t *testing.T) {
	c := NewCosts()
	in := int64(20000)
	c.Add(nudgeEv("a", "claude", engine.KindPreTool, 400))
	c.Add(&engine.Event{Session: "a", Kind: engine.KindHostUsage, Usage: &engine.HostUsage{InputTokens: &in}})
	c.AddEntries([]Entry{{Session: "a", Kind: "skipped", Tokens: 300}, {Session: "a", Kind: "spent", Tokens: 200}, {Session: "b", Kind: "deferred", Tokens: 50}})
	got := c.Sessions()
	if len(got) != 2 {
		t.Fatalf("%d sessions: %+v", len(got), got)
	}
	a := got[0]
	if a.Session != "a" || a.AvoidedTokens != 300 || a.SpentTokens != 200 || a.AvoidedShare == nil || *a.AvoidedShare != 0.015 || *a.SpentShare != 0.01 {
		t.Errorf("a: %+v", a)
	}
	if b := got[1]; b.Session != "b" || b.AvoidedTokens != 50 || b.AvoidedShare != nil || b.Nudges != 0 {
		t.Errorf("b: %+v", b)
	}
}
