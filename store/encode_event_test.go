package store

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"
	"unicode/utf8"

	"cully/engine"
)

// The hand-written encoder writes byte for byte what encoding/json writes,
// but for DEL, the C1 and the bidirectional controls, which it escapes as
// \uNNNN where encoding/json leaves them raw.
func TestAppendEventMatchesEncodingJSON(t *testing.T) {
	one, size, cost, tok := 1, int64(12345), 0.4375, int64(98765)
	mt := time.Date(2026, 1, 2, 3, 4, 5, 600700800, time.UTC)
	f := false
	evs := []engine.Event{
		{},
		{V: 1, Time: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC), Agent: "claude", Session: "s", Kind: engine.KindPrompt, PromptCmds: []string{"a1b2", "c\"3"}},
		{V: 1, Time: time.Date(2026, 11, 30, 12, 0, 0, 5, time.FixedZone("x", 3600)), Agent: "claude", Session: "s\"1", Task: 3,
			Hook: "PostToolUseFailure", Kind: engine.KindPostTool, Subagent: "a1", Source: "startup", Cwd: "/p/é", Tool: "Bash",
			ToolUseID: "toolu_1", Class: engine.ClassCheck, Target: "a<b>&c.go", Size: &size, Mtime: &mt, Ranged: true,
			CmdFP: "abc", ErrSig: "es", Missing: "j\"q", FamilyFP: "ff", CallFP: "cf", OutFP: "of", SearchFP: "sf", Matches: &one, FilterFP: "ff2", PlainFP: "pf", Cmd: "go test ./... 2>&1 | tail\t\x01\u2028\xff", Outcome: engine.OutcomeFailed, Exit: &one, FailSig: "sig",
			Note: "masked", Advice: "use \"x\" <y>", Changes: true, Destructive: "git reset --hard", Tests: &engine.TestCounts{Runner: "go test", Passed: 3, Failed: 1, Counted: true}, Attended: &f, Quiet: true, Defer: true, NoSnapshots: true, Ack: []string{"c1", "*"},
			Usage:   &engine.HostUsage{CostUSD: &cost, ContextTokens: &tok, Model: "m"},
			Signals: []engine.Signal{{Kind: engine.SignalNudge, Text: "line1\nline2 \"q\""}, {Kind: engine.SignalCheckpoint, Reason: engine.ReasonExploring, ID: "c1", Evidence: "20"}}},
		{V: 1, Kind: engine.KindHostUsage, Usage: &engine.HostUsage{}},
		{V: 1, Kind: engine.KindBatch, Rejected: []engine.Rejected{{Tool: "Edit", Class: engine.ClassEdit, Target: "a.go", FP: "f", Sig: "s"}, {Tool: "X", FP: "g", Sig: "t"}}},
		{V: 1, Kind: engine.KindHostUsage, Usage: &engine.HostUsage{InputTokens: &tok}},
		{V: 1, Kind: engine.KindPostTool, Tests: &engine.TestCounts{Runner: "py\"test"}},
		{V: 1, Kind: engine.KindPostTool, Target: "a.go", Files: []string{"b \"c\".go", "d.go"}, TranscriptPath: "/not/journaled",
			Transcript: &engine.TranscriptPos{File: "f", Off: 42, Exits: []engine.CallExit{{ID: "call_1", Exit: &one, Status: "failed"}, {ID: "call_2"}}}},
		{V: 1, Kind: engine.KindPostTool, Transcript: &engine.TranscriptPos{}},
		{V: 1, Kind: engine.KindSnapshot, Run: "r-1", Step: &one, Paths: []string{"a.go", "d/<b>.go"}, PathCount: 30, Source: "calls", Outcome: engine.OutcomeOK},
		{V: 1, Kind: engine.KindPostTool, Signals: []engine.Signal{{Kind: engine.SignalSnapshot, Reason: "calls", ID: "r-1", N: 10}}},
		{V: 1, Kind: engine.KindStop, EndFP: "0f1e", EndSketch: "a1b2c3", EndSays: engine.SaysWaiting, Forced: true},
		{V: 1, Kind: engine.KindPrompt, PromptFP: "9a8b"},
		{V: 1, Agent: "cully", Kind: engine.KindTell, Tell: []string{"c2", "c\"3"}},
		{V: 1, Kind: engine.KindPrompt, TraceParent: "00-x", Pane: "%12"},
		{V: 1, Kind: engine.KindPostTool, Cmd: "echo \x7f\u009b\u009d\u0085 \u202e\u2066\u200e\u061c end", Target: "a\u202egpj.exe"},
	}
	for i, ev := range evs {
		raw, err := json.Marshal(&ev)
		if err != nil {
			t.Fatal(err)
		}
		var want []byte
		for _, r := range string(raw) {
			if engine.IsControl(r) {
				want = fmt.Appendf(want, `\u%04x`, r)
			} else {
				want = utf8.AppendRune(want, r)
			}
		}
		if got := AppendEvent(nil, &ev); string(got) != string(want) {
			t.Errorf("event %d:\n got %s\nwant %s", i, got, want)
		}
	}
}
