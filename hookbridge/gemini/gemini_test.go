package gemini

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"cully/engine"
	"cully/hookbridge"
)

var update = flag.Bool("update", false, "rewrite golden files")

func testEnv() hookbridge.Env {
	vars := map[string]string{"GEMINI_PROJECT_DIR": "/home/dev/project"}
	return hookbridge.Env{Now: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC), Getenv: func(k string) string { return vars[k] }}
}

func decodeFile(t *testing.T, name string) *engine.Event {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "capture", name))
	if err != nil {
		t.Fatal(err)
	}
	ev, err := Agent{}.Decode(raw, testEnv())
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return ev
}

// Every payload captured from Gemini CLI 0.61.0 decodes to what the rules
// need: the kind, the tool's class and target, and the outcome the client
// reported (a shell command's exit code is in its result text).
func TestCapturedPayloads(t *testing.T) {
	type want struct {
		kind    engine.Kind
		class   engine.Class
		target  string
		outcome engine.Outcome
		exit    string // "" none, else the code
		source  string
	}
	cases := map[string]want{
		"001-SessionStart.json":                 {kind: engine.KindSessionStart, source: "startup"},
		"002-BeforeAgent.json":                  {kind: engine.KindPrompt},
		"003-BeforeTool-run_shell_command.json": {kind: engine.KindPreTool, class: engine.ClassRead},
		"004-AfterTool-run_shell_command.json":  {kind: engine.KindPostTool, class: engine.ClassRead, outcome: engine.OutcomeFailed, exit: "2"},
		"005-BeforeTool-read_file.json":         {kind: engine.KindPreTool, class: engine.ClassRead, target: "notes.txt"},
		"006-AfterTool-read_file.json":          {kind: engine.KindPostTool, class: engine.ClassRead, target: "notes.txt", outcome: engine.OutcomeOK},
		"008-AfterTool-read_file.json":          {kind: engine.KindPostTool, class: engine.ClassRead, target: "missing.txt", outcome: engine.OutcomeFailed},
		"010-AfterTool-write_file.json":         {kind: engine.KindPostTool, class: engine.ClassEdit, target: "new.txt", outcome: engine.OutcomeOK},
		"012-AfterTool-replace.json":            {kind: engine.KindPostTool, class: engine.ClassEdit, target: "new.txt", outcome: engine.OutcomeOK},
		"014-AfterTool-run_shell_command.json":  {kind: engine.KindPostTool, class: engine.ClassRun, outcome: engine.OutcomeOK, exit: "0"},
		"016-AfterTool-glob.json":               {kind: engine.KindPostTool, class: engine.ClassRead, outcome: engine.OutcomeOK},
		"018-AfterTool-grep_search.json":        {kind: engine.KindPostTool, class: engine.ClassRead, outcome: engine.OutcomeOK},
		"020-AfterTool-list_directory.json":     {kind: engine.KindPostTool, class: engine.ClassRead, target: ".", outcome: engine.OutcomeOK},
		"021-AfterAgent.json":                   {kind: engine.KindStop},
		"022-SessionEnd.json":                   {kind: engine.KindSessionEnd, source: "exit"},
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "capture", "*.json"))
	if len(files) < len(cases) {
		t.Fatalf("%d captured payloads, want at least %d", len(files), len(cases))
	}
	for _, f := range files {
		name := filepath.Base(f)
		ev := decodeFile(t, name)
		if ev.Session != "5b365627-55b1-4836-902f-68599ba533ca" || ev.Agent != "gemini" {
			t.Errorf("%s: session %q agent %q", name, ev.Session, ev.Agent)
		}
		tool := ev.Kind == engine.KindPreTool || ev.Kind == engine.KindPostTool
		if ev.Defer != tool {
			t.Errorf("%s: defer %v, want it on tool events only", name, ev.Defer)
		}
		w, ok := cases[name]
		if !ok {
			continue
		}
		exit := ""
		if ev.Exit != nil {
			exit = strconv.Itoa(*ev.Exit)
		}
		if ev.Kind != w.kind || ev.Class != w.class || ev.Target != w.target || ev.Outcome != w.outcome || exit != w.exit || ev.Source != w.source {
			t.Errorf("%s: got kind %s class %s target %q outcome %s exit %q source %q, want %+v", name, ev.Kind, ev.Class, ev.Target, ev.Outcome, exit, ev.Source, w)
		}
	}
	// The same failing command twice is one command with one failure; the
	// result's process group differs on every run and is not part of it.
	a, b := decodeFile(t, "004-AfterTool-run_shell_command.json"), decodeFile(t, "004-AfterTool-run_shell_command.json")
	if a.CmdFP == "" || a.CmdFP != b.CmdFP || a.FailSig == "" || a.FailSig != b.FailSig {
		t.Errorf("fingerprints: %+v", a)
	}
	if decodeFile(t, "008-AfterTool-read_file.json").FailSig == "" {
		t.Error("a failed read has no failure signature")
	}
}

// A shell result's outcome, from the text run_shell_command returns: the
// shapes the 0.61 shell tool writes.
func TestShellOutcome(t *testing.T) {
	for name, c := range map[string]struct {
		text    string
		outcome engine.Outcome
		exit    int // -1: none
		note    string
	}{
		"ok":          {"<untrusted_context>\nOutput: ok\nProcess Group PGID: 1\n</untrusted_context>", engine.OutcomeOK, 0, ""},
		"empty ok":    {"Output: (empty)\nProcess Group PGID: 1", engine.OutcomeOK, 0, ""},
		"exit 3":      {"Output: boom\nExit Code: 3\nProcess Group PGID: 1", engine.OutcomeFailed, 3, ""},
		"prints exit": {"Output: Exit Code: 7\nall fine\nProcess Group PGID: 1", engine.OutcomeOK, 0, ""},
		"signal":      {"Output: \nSignal: SIGKILL\nProcess Group PGID: 1", engine.OutcomeFailed, -1, ""},
		"error":       {"Output: (empty)\nError: spawn /bin/bash ENOENT", engine.OutcomeFailed, -1, ""},
		"background":  {"Command moved to background (PID: 12). Output hidden. Press Ctrl+B to view.", engine.OutcomeUnknown, -1, "background"},
		"timeout":     {"Command was automatically cancelled because it exceeded the timeout of 5.0 minutes without output. There was no output before it was cancelled.", engine.OutcomeFailed, -1, "timeout"},
		"cancelled":   {"Command was cancelled by user before it could complete. There was no output before it was cancelled.", engine.OutcomeUnknown, -1, "interrupted"},
		"unknown":     {"something else", engine.OutcomeUnknown, -1, ""},
	} {
		raw, _ := json.Marshal(map[string]any{"hook_event_name": "AfterTool", "session_id": "s", "cwd": "/p", "tool_name": "run_shell_command",
			"tool_input": map[string]any{"command": "make x"}, "tool_response": map[string]any{"llmContent": c.text}})
		ev, err := Agent{}.Decode(raw, testEnv())
		if err != nil {
			t.Fatal(err)
		}
		exit := -1
		if ev.Exit != nil {
			exit = *ev.Exit
		}
		if ev.Outcome != c.outcome || exit != c.exit || ev.Note != c.note {
			t.Errorf("%s: outcome %s exit %d note %q, want %s %d %q", name, ev.Outcome, exit, ev.Note, c.outcome, c.exit, c.note)
		}
	}
}

// Answers: the nudge goes out as additionalContext on the events whose
// context reaches the model, in the shape the client reads
// (hookSpecificOutput.additionalContext), never with a decision; BeforeTool
// and the rest answer nothing. The golden files are the exact bytes.
func TestEncodeGolden(t *testing.T) {
	const nudge = "cully: `ls x` failed on its last 2 runs and nothing changed since."
	for _, hook := range []string{"AfterTool", "BeforeAgent", "SessionStart", "BeforeTool", "AfterAgent", "SessionEnd"} {
		got := Agent{}.Encode(hook, nudge)
		if (Agent{}).Encode(hook, "") != nil {
			t.Errorf("%s: an empty nudge gets an answer", hook)
		}
		golden := filepath.Join("testdata", "golden", hook+".json")
		if *update {
			os.MkdirAll(filepath.Dir(golden), 0o755)
			os.WriteFile(golden, got, 0o644)
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: got %s, want %s", hook, got, want)
		}
		if len(got) == 0 {
			continue
		}
		var a struct {
			Decision           *string `json:"decision"`
			Continue           *bool   `json:"continue"`
			HookSpecificOutput struct {
				AdditionalContext string `json:"additionalContext"`
			} `json:"hookSpecificOutput"`
		}
		if err := json.Unmarshal(got, &a); err != nil || a.HookSpecificOutput.AdditionalContext != nudge || a.Decision != nil || a.Continue != nil {
			t.Errorf("%s: answer %s is not context only (%v)", hook, got, err)
		}
	}
}

// The session log's token figures: the last record of each reply counts
// once (the client writes a reply again when it updates it), thoughts are
// output, and the context is the last reply's prompt.
func TestSessionUsage(t *testing.T) {
	path, _ := filepath.Abs(filepath.Join("testdata", "chats", "session-x.jsonl"))
	src, err := os.ReadFile(filepath.Join("testdata", "session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	env := testEnv()
	env.Stat = os.Stat
	env.Open = func(p string) (io.ReadCloser, error) {
		if p != path {
			t.Errorf("opened %s", p)
		}
		return io.NopCloser(bytes.NewReader(src)), nil
	}
	env.Stat = func(string) (fs.FileInfo, error) { return nil, os.ErrNotExist }
	if u := sessionUsage(path, env); u != nil {
		t.Errorf("a log that cannot be stat'ed gave figures: %+v", u)
	}
	env.Stat = nil
	u := sessionUsage(path, env)
	// The capture's 10 replies had 1002…1011 prompt and 10 output tokens.
	if u == nil || *u.InputTokens != 10065 || *u.OutputTokens != 100 || *u.ContextTokens != 1011 || u.Model != "gemini-3.1-pro-preview" {
		t.Fatalf("usage %+v", u)
	}
	for _, bad := range []string{"relative/chats/s.jsonl", "/a/b/s.jsonl", "/a/chats/s.json", "/a/chats/../x/s.jsonl"} {
		if sessionUsage(bad, env) != nil {
			t.Errorf("%s read as a session log", bad)
		}
	}
	if u := sessionUsage(path, hookbridge.Env{}); u != nil {
		t.Error("no Open, yet figures")
	}
	if _, ok := readUsage(strings.NewReader("{\"type\":\"user\"}\nnot json\n")); ok {
		t.Error("a log without replies gave figures")
	}
}

// write_todos is the agent's plan: its items done of those not cancelled.
func TestWriteTodosIsThePlan(t *testing.T) {
	raw := `{"session_id":"s","hook_event_name":"AfterTool","cwd":"/p","tool_name":"write_todos","tool_input":{"todos":[{"description":"a","status":"completed"},{"description":"b","status":"in_progress"},{"description":"c","status":"cancelled"},{"description":"d","status":"pending"}]},"tool_response":{"llmContent":"ok"}}`
	ev, err := Agent{}.Decode([]byte(raw), hookbridge.Env{})
	if err != nil {
		t.Fatal(err)
	}
	if ev.Plan == nil || ev.Plan.Done != 1 || ev.Plan.Total != 3 {
		t.Fatalf("plan %+v, want 1 of 3", ev.Plan)
	}
}
