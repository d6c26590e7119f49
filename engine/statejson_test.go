package engine

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

// richState is a state with every field set, built through the reducer.
func richState() *State {
	cfg := DefaultConfig()
	st := NewState("rich-session")
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	f := false
	apply := func(ev Event) {
		now = now.Add(time.Second)
		ev.V, ev.Session, ev.Time, ev.Agent = 1, st.Session, now, "claude"
		Apply(st, &ev, &cfg)
	}
	apply(Event{Kind: KindSessionStart, Attended: &f, Cwd: "/p \"q\" <é>"})
	apply(Event{Kind: KindPrompt})
	one, size := 1, int64(300<<10)
	mt := now.Add(-time.Hour)
	for i := 0; i < 22; i++ {
		apply(Event{Kind: KindPreTool, Tool: "Read", Class: ClassRead, Target: fmt.Sprintf("d/f%d.go", i%7), Size: &size, Mtime: &mt})
		apply(Event{Kind: KindPostTool, Tool: "Read", Class: ClassRead, Target: fmt.Sprintf("d/f%d.go", i%7), Outcome: OutcomeOK, Size: &size, Mtime: &mt})
	}
	for i := 0; i < 3; i++ {
		apply(Event{Kind: KindPreTool, Tool: "Bash", Class: ClassCheck, Cmd: "go test ./...", CmdFP: "fp"})
		apply(Event{Kind: KindPostTool, Tool: "Bash", Class: ClassCheck, Cmd: "go test ./...", CmdFP: "fp", Outcome: OutcomeFailed, Exit: &one, FailSig: "s"})
	}
	apply(Event{Kind: KindAck, Ack: []string{"c1"}})
	cost, tok := 0.125, int64(4242)
	apply(Event{Kind: KindHostUsage, Usage: &HostUsage{CostUSD: &cost, ContextTokens: &tok, Model: "m"}})
	apply(Event{Kind: KindPreTool, Tool: "Grep", Class: ClassRead})
	return st
}

func TestStateAppendJSONMatchesEncodingJSON(t *testing.T) {
	for name, st := range map[string]*State{"rich": richState(), "new": NewState("s"), "empty": {}} {
		want, err := json.Marshal(st)
		if err != nil {
			t.Fatal(err)
		}
		if got := st.AppendJSON(nil); string(got) != string(want) {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
	}
}
