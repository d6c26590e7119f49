package store

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"cully/engine"
)

// The hand decoder reads back exactly what was written.
func TestDecodeStateRoundTrip(t *testing.T) {
	for name, st := range map[string]*engine.State{"rich": richState(), "new": engine.NewState("s")} {
		b, _ := json.Marshal(st)
		got, err := decodeState(b)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, st) {
			gb, _ := json.Marshal(got)
			t.Errorf("%s: round trip differs:\n got %s\nwant %s", name, gb, b)
		}
	}
	if _, err := decodeState([]byte(`{"v":2,"started":"yesterday"}`)); err == nil {
		t.Error("a bad time must be an error (the state is then rebuilt)")
	}
	if _, err := decodeState([]byte(`{"v":2,`)); err == nil {
		t.Error("a torn state must be an error")
	}
}

// richState builds a state with every field set through the reducer.
func richState() *engine.State {
	cfg := engine.DefaultConfig()
	st := engine.NewState("rich-session")
	now := testTime
	f := false
	apply := func(ev engine.Event) {
		now = now.Add(1e9)
		ev.V, ev.Session, ev.Time, ev.Agent = 1, st.Session, now, "claude"
		engine.Apply(st, &ev, &cfg)
	}
	apply(engine.Event{Kind: engine.KindSessionStart, Attended: &f, Cwd: "/p \"q\" <é>"})
	apply(engine.Event{Kind: engine.KindPrompt})
	one, size := 1, int64(300<<10)
	mt := now.Add(-3600e9)
	for i := 0; i < 22; i++ {
		target := []string{"a.go", "b.go", "c d.go"}[i%3]
		apply(engine.Event{Kind: engine.KindPreTool, Tool: "Read", Class: engine.ClassRead, Target: target, Size: &size, Mtime: &mt})
		apply(engine.Event{Kind: engine.KindPostTool, Tool: "Read", Class: engine.ClassRead, Target: target, Outcome: engine.OutcomeOK, Size: &size, Mtime: &mt})
	}
	for i := 0; i < 3; i++ {
		apply(engine.Event{Kind: engine.KindPreTool, Tool: "Bash", Class: engine.ClassCheck, Cmd: "go test ./...", CmdFP: "fp"})
		apply(engine.Event{Kind: engine.KindPostTool, Tool: "Bash", Class: engine.ClassCheck, Cmd: "go test ./...", CmdFP: "fp", Outcome: engine.OutcomeFailed, Exit: &one, FailSig: "s"})
	}
	apply(engine.Event{Kind: engine.KindAck, Ack: []string{"c1"}})
	cost, tok := 0.125, int64(4242)
	apply(engine.Event{Kind: engine.KindHostUsage, Usage: &engine.HostUsage{CostUSD: &cost, ContextTokens: &tok, Model: "m"}})
	return st
}

var testTime = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
