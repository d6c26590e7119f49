package copilot

import (
	"bytes"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cully/engine"
	"cully/hookbridge"
)

var update = flag.Bool("update", false, "rewrite golden files")

var agent Agent

// fixtureEvent is the event a captured payload was registered for: its
// file name says it (NNN-event[-tool].json), as the entry's EventVar told
// the hook in the real client.
func fixtureEvent(path string) string {
	return strings.SplitN(strings.TrimSuffix(filepath.Base(path), ".json"), "-", 3)[1]
}

func fixtureEnv(event string) hookbridge.Env {
	cfg := engine.DefaultConfig()
	env := map[string]string{"COPILOT_PROJECT_DIR": "/home/dev/project", EventVar: event}
	return hookbridge.Env{
		Now:    time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC),
		Getenv: func(k string) string { return env[k] },
		Stat:   func(string) (fs.FileInfo, error) { return nil, fs.ErrNotExist },
		Config: &cfg,
	}
}

func fixtures(t *testing.T) []string {
	t.Helper()
	files, _ := filepath.Glob("testdata/capture-sequence/*.json")
	if len(files) < 30 {
		t.Fatalf("want the captured fixtures, found %d files", len(files))
	}
	return files
}

func decodeFixture(t *testing.T, path string) *engine.Event {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := agent.Decode(raw, fixtureEnv(fixtureEvent(path)))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return ev
}

// Every captured payload decodes, with its kind, session and project.
func TestDecodeEveryFixture(t *testing.T) {
	for _, f := range fixtures(t) {
		ev := decodeFixture(t, f)
		if ev.Agent != "copilot" || ev.Session == "" || ev.Hook != fixtureEvent(f) || ev.Kind == "" || ev.Kind == engine.KindOther || ev.Cwd != "/home/dev/project" {
			t.Errorf("%s: agent %q session %q hook %q kind %q cwd %q", f, ev.Agent, ev.Session, ev.Hook, ev.Kind, ev.Cwd)
		}
		if (ev.Kind == engine.KindPreTool || ev.Kind == engine.KindPostTool) && (ev.Tool == "" || ev.Class == "" || ev.CallFP == "") {
			t.Errorf("%s: tool %q class %q call %q", f, ev.Tool, ev.Class, ev.CallFP)
		}
		if ev.Kind == engine.KindPostTool && ev.Outcome == "" {
			t.Errorf("%s: post-tool event without outcome", f)
		}
	}
}

// What the real client's payloads say about each call: the exit status
// read from a shell result's last line, failures from postToolUseFailure,
// background and ranged calls, and the reads the host bounds itself.
func TestDecodeToolEvents(t *testing.T) {
	type want struct {
		kind    engine.Kind
		class   engine.Class
		outcome engine.Outcome
		exit    int // -1: no exit code
		target  string
		ranged  bool
		note    string
	}
	cases := map[string]want{
		"003-preToolUse-view.json":         {engine.KindPreTool, engine.ClassRead, "", -1, "a.txt", false, ""},
		"004-postToolUse-view.json":        {engine.KindPostTool, engine.ClassRead, engine.OutcomeOK, -1, "a.txt", false, ""},
		"006-postToolUse-view.json":        {engine.KindPostTool, engine.ClassRead, engine.OutcomeOK, -1, "a.txt", true, ""},
		"008-postToolUse-bash.json":        {engine.KindPostTool, engine.ClassRead, engine.OutcomeFailed, 2, "", false, ""},
		"010-postToolUse-bash.json":        {engine.KindPostTool, engine.ClassRun, engine.OutcomeFailed, 1, "", false, ""},
		"012-postToolUse-edit.json":        {engine.KindPostTool, engine.ClassEdit, engine.OutcomeOK, -1, "a.txt", false, ""},
		"014-postToolUseFailure-edit.json": {engine.KindPostTool, engine.ClassEdit, engine.OutcomeFailed, -1, "a.txt", false, ""},
		"016-postToolUse-create.json":      {engine.KindPostTool, engine.ClassEdit, engine.OutcomeOK, -1, "b.txt", false, ""},
		"018-postToolUseFailure-view.json": {engine.KindPostTool, engine.ClassRead, engine.OutcomeFailed, -1, "missing.txt", false, ""},
		"020-postToolUse-grep.json":        {engine.KindPostTool, engine.ClassRead, engine.OutcomeOK, -1, "", false, ""},
		"024-postToolUse-bash.json":        {engine.KindPostTool, engine.ClassPoll, engine.OutcomeUnknown, -1, "", false, "background"},
		"026-postToolUse-bash.json":        {engine.KindPostTool, engine.ClassRead, engine.OutcomeOK, 0, "", false, ""},
		"027-agentStop.json":               {engine.KindStop, "", "", -1, "", false, ""},
		"029-userPromptSubmitted.json":     {engine.KindNotify, "", "", -1, "", false, ""},
		"002-userPromptSubmitted.json":     {engine.KindPrompt, "", "", -1, "", false, ""},
		"007-preToolUse-bash.json":         {engine.KindPreTool, engine.ClassRead, "", -1, "", false, ""},
		"013-preToolUse-edit.json":         {engine.KindPreTool, engine.ClassEdit, "", -1, "a.txt", false, ""},
		"030-notification.json":            {engine.KindNotify, "", "", -1, "", false, ""},
		"001-sessionStart.json":            {engine.KindSessionStart, "", "", -1, "", false, ""},
		"028-sessionEnd.json":              {engine.KindSessionEnd, "", "", -1, "", false, ""},
		"022-postToolUse-glob.json":        {engine.KindPostTool, engine.ClassRead, engine.OutcomeOK, -1, "", false, ""},
		"015-preToolUse-create.json":       {engine.KindPreTool, engine.ClassEdit, "", -1, "b.txt", false, ""},
		"017-preToolUse-view.json":         {engine.KindPreTool, engine.ClassRead, "", -1, "missing.txt", false, ""},
		"025-preToolUse-bash.json":         {engine.KindPreTool, engine.ClassRead, "", -1, "", false, ""},
		"009-preToolUse-bash.json":         {engine.KindPreTool, engine.ClassRun, "", -1, "", false, ""},
		"011-preToolUse-edit.json":         {engine.KindPreTool, engine.ClassEdit, "", -1, "a.txt", false, ""},
		"005-preToolUse-view.json":         {engine.KindPreTool, engine.ClassRead, "", -1, "a.txt", true, ""},
		"019-preToolUse-grep.json":         {engine.KindPreTool, engine.ClassRead, "", -1, "", false, ""},
		"021-preToolUse-glob.json":         {engine.KindPreTool, engine.ClassRead, "", -1, "", false, ""},
		"023-preToolUse-bash.json":         {engine.KindPreTool, engine.ClassPoll, "", -1, "", false, ""},
		"031-agentStop.json":               {engine.KindStop, "", "", -1, "", false, ""},
		"032-sessionEnd.json":              {engine.KindSessionEnd, "", "", -1, "", false, ""},
	}
	for name, w := range cases {
		ev := decodeFixture(t, filepath.Join("testdata", "capture-sequence", name))
		exit := -1
		if ev.Exit != nil {
			exit = *ev.Exit
		}
		got := want{ev.Kind, ev.Class, ev.Outcome, exit, ev.Target, ev.Ranged, ev.Note}
		if got != w {
			t.Errorf("%s:\n got %+v\nwant %+v", name, got, w)
		}
		if ev.Outcome == engine.OutcomeFailed && ev.FailSig == "" {
			t.Errorf("%s: a failure without a signature", name)
		}
	}
	if len(cases) != len(fixtures(t)) {
		t.Errorf("%d cases for %d fixtures: every captured call is pinned", len(cases), len(fixtures(t)))
	}
	// The view tool truncates a file over 20 KB by itself; forced, it does not.
	if ev := decodeFixture(t, "testdata/capture-sequence/003-preToolUse-view.json"); !ev.Bounded {
		t.Error("view is bounded by the host")
	}
	raw := []byte(`{"sessionId":"s","cwd":"/p","toolName":"view","toolArgs":{"path":"/p/big.log","forceReadLargeFiles":true}}`)
	if ev, _ := agent.Decode(raw, fixtureEnv("preToolUse")); ev.Bounded {
		t.Error("a forced whole read is not bounded")
	}
}

// The decoded journal records of the captured run, pinned: a change to
// what the adapter records shows up here.
func TestDecodeGolden(t *testing.T) {
	var out bytes.Buffer
	for _, f := range fixtures(t) {
		b, err := json.Marshal(decodeFixture(t, f))
		if err != nil {
			t.Fatal(err)
		}
		out.WriteString(filepath.Base(f) + " " + string(b) + "\n")
	}
	golden := filepath.Join("testdata", "decode.golden")
	if *update {
		if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Errorf("decoded events differ from %s (run with -update only for a deliberate change):\n%s", golden, out.String())
	}
}

// The event's name comes from the entry's environment; a payload that
// names itself (notification, the VS Code-compatible format) needs none;
// one with neither is an error, never a guess.
func TestEventName(t *testing.T) {
	raw, _ := os.ReadFile("testdata/capture-sequence/030-notification.json")
	if ev, err := agent.Decode(raw, fixtureEnv("")); err != nil || ev.Hook != "Notification" || ev.Kind != engine.KindNotify {
		t.Errorf("a payload naming itself: %+v, %v", ev, err)
	}
	raw, _ = os.ReadFile("testdata/capture-sequence/007-preToolUse-bash.json")
	if _, err := agent.Decode(raw, fixtureEnv("")); err == nil || !strings.Contains(err.Error(), EventVar) {
		t.Errorf("no event name must be an error naming %s: %v", EventVar, err)
	}
	vscode := []byte(`{"hook_event_name":"PostToolUse","session_id":"s1","cwd":"/p","tool_name":"Bash","tool_input":{"command":"go test ./..."},"tool_result":{"result_type":"success","text_result_for_llm":"ok  \tm\t0.1s\n<shellId: 0 completed with exit code 0>"}}`)
	ev, err := agent.Decode(vscode, fixtureEnv(""))
	if err != nil || ev.Session != "s1" || ev.Kind != engine.KindPostTool || ev.Class != engine.ClassCheck || ev.Outcome != engine.OutcomeOK || ev.Exit == nil || *ev.Exit != 0 {
		t.Errorf("VS Code-compatible payload: %+v, %v", ev, err)
	}
	if _, err := agent.Decode([]byte("  "), fixtureEnv("preToolUse")); err != hookbridge.ErrEmpty {
		t.Errorf("empty payload: %v", err)
	}
}

func TestExitCode(t *testing.T) {
	for line, want := range map[string]int{
		"<shellId: 0 completed with exit code 0>":    0,
		"<shellId: 12 completed with exit code 127>": 127,
		"<exited with exit code 3>":                  3,
	} {
		if got, ok := exitCode(line); !ok || got != want {
			t.Errorf("exitCode(%q) = %d, %v; want %d", line, got, ok, want)
		}
	}
	for _, line := range []string{"", "exit code 0", "<command started in background with shellId: 2>", "<shellId: 0 completed with exit code x>", "FAIL exit code 1"} {
		if _, ok := exitCode(line); ok {
			t.Errorf("exitCode(%q) should find no status", line)
		}
	}
}

// A shell call whose result gives no status (still running when its wait
// ran out) is unknown, never a success; a check whose status is hidden
// takes what its own output states.
func TestShellOutcomes(t *testing.T) {
	post := func(command, text string) *engine.Event {
		b, _ := json.Marshal(map[string]any{"sessionId": "s", "cwd": "/p", "toolName": "bash",
			"toolArgs":   map[string]any{"command": command},
			"toolResult": map[string]any{"resultType": "success", "textResultForLlm": text}})
		ev, err := agent.Decode(b, fixtureEnv("postToolUse"))
		if err != nil {
			t.Fatal(err)
		}
		return ev
	}
	if ev := post("make", "building…\n"); ev.Outcome != engine.OutcomeUnknown || ev.Note != "no-exit-code" {
		t.Errorf("no status line: %s %s", ev.Outcome, ev.Note)
	}
	if ev := post("go test ./... | tee log", "--- FAIL: TestX\nFAIL\tm\t0.1s\n<shellId: 0 completed with exit code 0>"); ev.Outcome != engine.OutcomeFailed || ev.Note != "from-output" {
		t.Errorf("masked check whose output failed: %s %s", ev.Outcome, ev.Note)
	}
	if ev := post("go test ./...", "ok  \tm\t0.1s\n<shellId: 0 completed with exit code 0>"); ev.Outcome != engine.OutcomeOK || ev.Class != engine.ClassCheck {
		t.Errorf("passing check: %s %s", ev.Outcome, ev.Class)
	}
	a, b := post("go test ./...", "FAIL\tm\n<shellId: 0 completed with exit code 1>"), post("go test ./...", "FAIL\tm\n<shellId: 7 completed with exit code 1>")
	if a.FailSig != b.FailSig || a.OutFP != b.OutFP {
		t.Error("the same failure in another shell is the same failure: the status line is not part of the output")
	}
}

func TestEncode(t *testing.T) {
	for _, ev := range []string{"preToolUse", "postToolUse", "postToolUseFailure", "userPromptSubmitted", "sessionStart"} {
		out := agent.Encode(ev, "cully: a note")
		var m map[string]any
		if err := json.Unmarshal(out, &m); err != nil || len(m) != 1 || m["additionalContext"] != "cully: a note" || !bytes.HasSuffix(out, []byte("\n")) {
			t.Errorf("%s: %q", ev, out)
		}
	}
	for _, ev := range []string{"agentStop", "subagentStop", "sessionEnd", "preCompact", "notification", "errorOccurred"} {
		if out := agent.Encode(ev, "cully: a note"); out != nil {
			t.Errorf("%s has no channel cully uses (never a block): %q", ev, out)
		}
	}
	if out := agent.Encode("preToolUse", ""); out != nil {
		t.Errorf("no nudge, no answer: %q", out)
	}
}

// A payload too large to decode is still recorded from its head.
func TestDecodeHead(t *testing.T) {
	raw, _ := os.ReadFile("testdata/capture-sequence/010-postToolUse-bash.json")
	head := raw[:bytes.Index(raw, []byte(`"toolArgs"`))+20]
	ev := agent.DecodeHead(head, 99<<20, fixtureEnv("postToolUse"))
	if ev.Session != "d512254a-c9b2-4710-bc0d-299f4139ee01" || ev.Kind != engine.KindPostTool || ev.Tool != "bash" || ev.Class != engine.ClassRun || ev.Outcome != engine.OutcomeUnknown || !strings.Contains(ev.Note, "too large") {
		t.Errorf("salvaged %+v", ev)
	}
}

// The Claude Code hooks a repository holds, as Copilot CLI runs them (its
// VS Code-compatible payloads, captured): they name their event, use
// Claude Code's tool names and snake_case fields, and decode as Copilot
// CLI's calls; PreToolUse is answered in Claude Code's shape, which Copilot
// CLI was seen to show the model, and nothing else is.
func TestDecodeClaudeFormat(t *testing.T) {
	files, _ := filepath.Glob("testdata/claude-format/*.json")
	if len(files) != 5 {
		t.Fatalf("want the 5 captured payloads, found %d", len(files))
	}
	for _, f := range files {
		raw, _ := os.ReadFile(f)
		ev, err := agent.Decode(raw, fixtureEnv(""))
		if err != nil || ev.Session != "d0812672-d9de-4fa6-9a94-dd324734b94f" || ev.Hook != strings.TrimSuffix(filepath.Base(f), ".json") || ev.Kind == engine.KindOther {
			t.Errorf("%s: %+v, %v", f, ev, err)
		}
		out := agent.Encode(ev.Hook, "cully: a note")
		switch {
		case ev.Hook == "PreToolUse" && string(out) != `{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"cully: a note"}}`+"\n":
			t.Errorf("%s: the answer Copilot CLI was seen to show the model: %q", f, out)
		case ev.Hook != "PreToolUse" && out != nil:
			t.Errorf("%s: answered %q", f, out)
		}
	}
	raw, _ := os.ReadFile("testdata/claude-format/PostToolUse.json")
	ev, _ := agent.Decode(raw, fixtureEnv(""))
	if ev.Tool != "Bash" || ev.Class != engine.ClassRead || ev.Outcome != engine.OutcomeOK || ev.Exit == nil || *ev.Exit != 0 || ev.Cmd != "ls /nonexistent-dir; echo hi" {
		t.Errorf("PostToolUse: %+v", ev)
	}
	host := func(env map[string]string) bool {
		return agent.Hosts("claude", func(k string) string { return env[k] })
	}
	if !host(map[string]string{"COPILOT_CLI": "1"}) || host(map[string]string{"COPILOT_CLI": "1", "CLAUDECODE": "1"}) || host(nil) || agent.Hosts("cursor", func(string) string { return "1" }) {
		t.Error("Copilot CLI hosts a Claude Code entry only when COPILOT_CLI=1 and the call is not Claude Code's own")
	}
}
