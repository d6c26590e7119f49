package store

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"cully/engine"
)

// richState is a state with every field set, built through the reducer.
func richState() *engine.State {
	cfg := engine.DefaultConfig()
	st := engine.NewState("rich-session")
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	f := false
	apply := func(ev engine.Event) {
		now = now.Add(time.Second)
		ev.V, ev.Session, ev.Time, ev.Agent = 1, st.Session, now, "claude"
		engine.Apply(st, &ev, &cfg)
	}
	apply(engine.Event{Kind: engine.KindSessionStart, Attended: &f, Cwd: "/p \"q\" <é>"})
	apply(engine.Event{Kind: engine.KindPrompt, PromptFP: "p"})
	// The idle-loop rule's count: three turn ends alike with no call
	// between, one forced on by a Stop hook (the calls below end it).
	fp, sketch, says := engine.ClosingOf("Waiting for your approval.")
	for _, forced := range []bool{false, true, false} {
		apply(engine.Event{Kind: engine.KindStop, Forced: forced, EndFP: fp, EndSketch: sketch, EndSays: says})
	}
	one, size := 1, int64(300<<10)
	mt := now.Add(-time.Hour)
	for i := 0; i < 22; i++ {
		apply(engine.Event{Kind: engine.KindPreTool, Tool: "Read", Class: engine.ClassRead, Target: fmt.Sprintf("d/f%d.go", i%7), Size: &size, Mtime: &mt})
		apply(engine.Event{Kind: engine.KindPostTool, Tool: "Read", Class: engine.ClassRead, Target: fmt.Sprintf("d/f%d.go", i%7), Outcome: engine.OutcomeOK, Size: &size, Mtime: &mt})
	}
	for i := 0; i < 3; i++ {
		apply(engine.Event{Kind: engine.KindPreTool, Tool: "Bash", Class: engine.ClassCheck, Cmd: "go test ./...", CmdFP: "fp"})
		apply(engine.Event{Kind: engine.KindPostTool, Tool: "Bash", Class: engine.ClassCheck, Cmd: "go test ./...", CmdFP: "fp", Outcome: engine.OutcomeFailed, Exit: &one, FailSig: "s"})
	}
	apply(engine.Event{Kind: engine.KindAck, Ack: []string{"c1"}})
	cost, tok := 0.125, int64(4242)
	apply(engine.Event{Kind: engine.KindHostUsage, Usage: &engine.HostUsage{CostUSD: &cost, ContextTokens: &tok, Model: "m"}})
	zero, three := 0, 3
	apply(engine.Event{Kind: engine.KindPostTool, Tool: "Bash", Class: engine.ClassRun, Outcome: engine.OutcomeOK, Exit: &zero,
		Transcript: &engine.TranscriptPos{File: "9f3a\"x", Off: 1 << 33, Exits: []engine.CallExit{{ID: "call_1", Exit: &three, Status: "failed"}, {ID: "c\"2"}}}})
	apply(engine.Event{Kind: engine.KindPostTool, Tool: "apply_patch", Class: engine.ClassEdit, Target: "d/f2.go", Files: []string{"d/f3.go"}, Outcome: engine.OutcomeOK})
	apply(engine.Event{Kind: engine.KindPreTool, Tool: "Grep", Class: engine.ClassRead})
	apply(engine.Event{Kind: engine.KindPostTool, Tool: "Edit", Class: engine.ClassEdit, Target: "d/f1.go", CmdFP: "edit-fp", Outcome: engine.OutcomeFailed, FailSig: "e"})
	apply(engine.Event{Kind: engine.KindPostTool, Tool: "Read", Class: engine.ClassRead, Target: "x.go", Subagent: "a1", Outcome: engine.OutcomeOK})
	for _, c := range []string{"rg x", "fd y \"q\""} {
		apply(engine.Event{Kind: engine.KindPostTool, Tool: "Bash", Class: engine.ClassRun, Cmd: c, CmdFP: c, CallFP: "call " + c, OutFP: "out",
			Outcome: engine.OutcomeFailed, Exit: &one, FailSig: "f", ErrSig: "command not found"})
	}
	// Run control: every field of the run set at once.
	run := st.Run.ID
	step := func(n int) *int { return &n }
	apply(engine.Event{Kind: engine.KindSnapshot, Run: run, Source: "baseline", Outcome: engine.OutcomeOK, Step: step(3), PathCount: 4})
	apply(engine.Event{Kind: engine.KindSnapshot, Run: run, Source: "destructive", Outcome: engine.OutcomeOK, Step: step(5), PathCount: 4})
	apply(engine.Event{Kind: engine.KindPostTool, Tool: "Write", Class: engine.ClassEdit, Target: "w.go", Outcome: engine.OutcomeOK})
	apply(engine.Event{Kind: engine.KindPostTool, Tool: "Bash", Class: engine.ClassCheck, Cmd: "go vet ./...", CmdFP: "vet", Outcome: engine.OutcomeOK, Exit: &zero}) // verifies the edit: progress
	// The detectors' tallies: a term that found nothing four times and
	// then was found, a program failing one way under two command lines,
	// a check passing twice in two spellings.
	for i := 0; i < 4; i++ {
		apply(engine.Event{Kind: engine.KindPostTool, Tool: "Grep", Class: engine.ClassRead, SearchFP: "term", Matches: &zero, Outcome: engine.OutcomeOK})
	}
	apply(engine.Event{Kind: engine.KindPostTool, Tool: "Bash", Class: engine.ClassRead, Cmd: "grep -rn term .", SearchFP: "term", Matches: &three, Outcome: engine.OutcomeOK, Exit: &zero})
	for _, c := range []string{"go vet ./a", "go vet -x \"./b\""} {
		apply(engine.Event{Kind: engine.KindPostTool, Tool: "Bash", Class: engine.ClassCheck, Cmd: c, CmdFP: c, Outcome: engine.OutcomeFailed, Exit: &one, FailSig: c, ErrSig: "vet-error"})
	}
	for _, c := range []string{"go test ./... | tail -3", "go test -v ./... 2>&1 | grep FAIL"} {
		apply(engine.Event{Kind: engine.KindPostTool, Tool: "Bash", Class: engine.ClassCheck, Cmd: c, CmdFP: c, PlainFP: "plain", Outcome: engine.OutcomeOK, Exit: &zero})
	}
	// Budgets: a base, tokens past the limit with little of the plan done,
	// the alerts they raise, a resume that doubles the limit.
	in0, in1, out := int64(100), int64(200_100), int64(7)
	apply(engine.Event{Kind: engine.KindHostUsage, Usage: &engine.HostUsage{InputTokens: &in0, OutputTokens: &out, CostUSD: &cost}})
	apply(engine.Event{Kind: engine.KindHostUsage, Usage: &engine.HostUsage{InputTokens: &in1, OutputTokens: &out, CostUSD: &cost}})
	apply(engine.Event{Kind: engine.KindPostTool, Tool: "TodoWrite", Class: engine.ClassOther, Outcome: engine.OutcomeOK, Plan: &engine.PlanProgress{Done: 1, Total: 9}})
	apply(engine.Event{Kind: engine.KindPreTool, Tool: "Read", Class: engine.ClassRead, Target: "y.go"})
	apply(engine.Event{Kind: engine.KindPause, Run: run, Note: "paused \"by\" cully stop"})
	apply(engine.Event{Kind: engine.KindResume, Run: run, Note: "legitimate <bulk> work"})
	apply(engine.Event{Kind: engine.KindPause, Run: run, Source: engine.PauseHalt, Note: "cully stop"}) // halted by the user
	apply(engine.Event{Kind: engine.KindSnapshot, Run: run, Source: "calls", Outcome: engine.OutcomeFailed, Step: step(4), Note: "disk full"})
	apply(engine.Event{Kind: engine.KindPreTool, Tool: "Read", Class: engine.ClassRead, Target: "z.go"}) // tells the failure
	apply(engine.Event{Kind: engine.KindSnapshot, Run: run, Source: "calls", Outcome: engine.OutcomeFailed, Step: step(4), Note: "disk still full"})
	apply(engine.Event{Kind: engine.KindRollback, Run: run, Outcome: engine.OutcomeOK, Step: step(0), Paths: []string{"a.go"}, PathCount: 1})
	apply(engine.Event{Kind: engine.KindRollback, Run: run, Outcome: engine.OutcomeFailed, Step: step(1), Note: "d/f1.go is a directory"})
	apply(engine.Event{Kind: engine.KindAdvice, Advice: "try \"the\" other <path>"})
	// A failure loop due to be told when a prompt interrupts the agent:
	// carried into the new task; the task's prompt reported commands; a
	// test run fails after an edit.
	tests := &engine.TestCounts{Runner: "go test", Failed: 1}
	apply(engine.Event{Kind: engine.KindStop}) // the host says when a turn ends
	for i := 0; i < 3; i++ {
		apply(engine.Event{Kind: engine.KindPostTool, Tool: "Bash", Class: engine.ClassCheck, Cmd: "go test ./p/", CmdFP: "fp-p", Outcome: engine.OutcomeFailed, Exit: &one, FailSig: "p", Tests: tests})
	}
	apply(engine.Event{Kind: engine.KindPrompt, PromptCmds: []string{"fp-cmd", "fp-\"2"}})
	apply(engine.Event{Kind: engine.KindPostTool, Tool: "Edit", Class: engine.ClassEdit, Target: "p/p_test.go", Outcome: engine.OutcomeOK}) // a test the task writes
	apply(engine.Event{Kind: engine.KindPostTool, Tool: "Edit", Class: engine.ClassEdit, Target: "p/p.go", Outcome: engine.OutcomeOK})
	apply(engine.Event{Kind: engine.KindPostTool, Tool: "Bash", Class: engine.ClassCheck, Cmd: "go test ./p/", CmdFP: "fp-p", Outcome: engine.OutcomeFailed, Exit: &one, FailSig: "p", Tests: tests})
	// A tool gap: the shell found no jq, then a lookup of it found nothing.
	apply(engine.Event{Kind: engine.KindPostTool, Tool: "Bash", Class: engine.ClassRun, Cmd: "jq . \"a b\".json", CmdFP: "jq", Outcome: engine.OutcomeFailed, Exit: &[]int{127}[0], Missing: "jq"})
	apply(engine.Event{Kind: engine.KindPostTool, Tool: "Bash", Class: engine.ClassRead, Cmd: "which jq", CmdFP: "which", Outcome: engine.OutcomeFailed, Exit: &one})
	if len(st.Gaps) == 0 || st.Gaps[0].Due == 0 {
		panic("richState: no tool gap due")
	}
	if len(st.Checkpoints) == 0 {
		panic("richState: no checkpoint")
	}
	st.Checkpoints[0].Asked = true // the user asked to tell it (the panel's t)
	st.Pane = "%7"                 // the agent runs in tmux
	return st
}

// idleState has every member of the idle-loop rule's count set.
func idleState() *engine.State {
	st := engine.NewState("idle")
	st.Idle = &engine.IdleRun{Same: 3, Stuck: 2, Forced: 1, FP: "0f1e", Sketch: "a1b2\"c", Says: engine.SaysDone, Prompt: "9a8b",
		Acted: true, Raised: true, Tell: true, Told: true}
	return st
}

// callState has a call in flight with every member set, in a turn.
func callState() *engine.State {
	st := engine.NewState("open")
	st.Open = &engine.OpenCall{At: 1700000000, Tool: "Bash", ID: "toolu_\"1", Class: engine.ClassRun, Asked: engine.NotifyPermission}
	st.Turn = true
	return st
}

func TestAppendStateMatchesEncodingJSON(t *testing.T) {
	for name, st := range map[string]*engine.State{"rich": richState(), "new": engine.NewState("s"), "empty": {}, "idle": idleState(),
		"idle zero": {Idle: &engine.IdleRun{}}, "open": callState(), "open zero": {Open: &engine.OpenCall{}}} {
		want, err := json.Marshal(st)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendState(nil, st); string(got) != string(want) {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
	}
}

// The state file's own member, the journal position, round-trips through
// the hand decoder, and encoding/json still reads the body's JSON as the
// state but for the maps kept apart (statemaps.go).
func TestStateFilePositionRoundTrip(t *testing.T) {
	st := richState()
	for _, pos := range []*journalPos{nil, {At: 0, N: 1, Sum: 0}, {At: 123456789, N: 402, Sum: 0xfedcba9876543210}} {
		b := appendStateFile(nil, st, pos)
		got, gpos, err := decodeStateFile(b)
		if err != nil {
			t.Fatal(err)
		}
		if (gpos == nil) != (pos == nil) || gpos != nil && *gpos != *pos {
			t.Errorf("position %+v read back as %+v", pos, gpos)
		}
		js, _, _, err := splitStateBody(b)
		if err != nil {
			t.Fatal(err)
		}
		var viaJSON engine.State
		if err := json.Unmarshal(js, &viaJSON); err != nil {
			t.Fatal(err)
		}
		viaJSON.Files, viaJSON.Commands = st.Files, st.Commands
		gj, _ := json.Marshal(got)
		jj, _ := json.Marshal(&viaJSON)
		wj, _ := json.Marshal(st)
		if string(gj) != string(wj) || string(jj) != string(wj) {
			t.Errorf("the state reads back differently with a position member:\n got %s\njson %s\nwant %s", gj, jj, wj)
		}
	}
	if _, _, err := decodeStateFile([]byte(fmt.Sprintf(`{"v":%d,"session":"s","journal":{"at":1,"n":2,"sum":"xyz"}}`, engine.StateVersion))); err == nil {
		t.Error("a bad position is an error (the state is then rebuilt)")
	}
}

// richState sets the fields the fix-in-test (its failed check, the task's
// own tests), reported-command and carried
// checkpoint rules keep, so the codec tests cover them.
func TestRichStateHasRuleFields(t *testing.T) {
	st := richState()
	carried := false
	for _, c := range st.Checkpoints {
		carried = carried || c.Carried
	}
	if st.FailedCheck == "" || st.TaskEdits == 0 || st.TaskChecks == 0 || len(st.PromptCmds) != 2 || len(st.TaskTests) != 1 || !st.Working || !st.StopsSeen || !carried {
		t.Errorf("rule fields unset: failed %q, edits %d, checks %d, prompt cmds %v, task tests %v, working %v, carried %v",
			st.FailedCheck, st.TaskEdits, st.TaskChecks, st.PromptCmds, st.TaskTests, st.Working, carried)
	}
}
