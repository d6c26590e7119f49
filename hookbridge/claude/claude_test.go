package claude

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

func fixtureEnv() hookbridge.Env {
	cfg := engine.DefaultConfig()
	env := map[string]string{"CLAUDE_PROJECT_DIR": "/home/dev/project", "CLAUDE_CODE_SESSION_ATTENDED": "0"}
	return hookbridge.Env{
		Now:    time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC),
		Getenv: func(k string) string { return env[k] },
		Stat:   func(string) (fs.FileInfo, error) { return nil, fs.ErrNotExist },
		Config: &cfg,
	}
}

func decodeFixture(t *testing.T, path string) *engine.Event {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := agent.Decode(raw, fixtureEnv())
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return ev
}

// Every captured payload decodes, with its kind and session.
func TestDecodeClaudeEveryFixture(t *testing.T) {
	files, _ := filepath.Glob("testdata/capture-sequence/*.json")
	hooks, _ := filepath.Glob("testdata/hooks/*.json")
	files = append(files, hooks...)
	if len(files) < 100 {
		t.Fatalf("want the captured fixtures, found %d files", len(files))
	}
	for _, f := range files {
		ev := decodeFixture(t, f)
		if ev.Session == "" || ev.Hook == "" || ev.Kind == "" {
			t.Errorf("%s: session %q hook %q kind %q", f, ev.Session, ev.Hook, ev.Kind)
		}
		if ev.Attended == nil || *ev.Attended {
			t.Errorf("%s: attended should be false from CLAUDE_CODE_SESSION_ATTENDED=0", f)
		}
		if (ev.Kind == engine.KindPreTool || ev.Kind == engine.KindPostTool) && (ev.Tool == "" || ev.Class == "") {
			t.Errorf("%s: tool %q class %q", f, ev.Tool, ev.Class)
		}
		if ev.Kind == engine.KindPostTool && ev.Outcome == "" {
			t.Errorf("%s: post-tool event without outcome", f)
		}
	}
}

func TestDecodeClaudeToolEvents(t *testing.T) {
	type want struct {
		kind    engine.Kind
		class   engine.Class
		outcome engine.Outcome
		exit    int // -1: no exit code
		target  string
		ranged  bool
		note    string
		sub     bool
	}
	cases := map[string]want{
		"005-PreToolUse-Read.json":           {engine.KindPreTool, engine.ClassRead, "", -1, "big.txt", true, "", false},
		"006-PreToolUse-Read.json":           {engine.KindPreTool, engine.ClassRead, "", -1, "notes.md", false, "", false},
		"007-PostToolUse-Read.json":          {engine.KindPostTool, engine.ClassRead, engine.OutcomeOK, -1, "big.txt", true, "", false},
		"012-PostToolUseFailure-Bash.json":   {engine.KindPostTool, engine.ClassRun, engine.OutcomeFailed, 1, "", false, "", false},
		"013-PostToolUseFailure-Bash.json":   {engine.KindPostTool, engine.ClassRead, engine.OutcomeFailed, 2, "", false, "", false},
		"015-PostToolUseFailure-Bash.json":   {engine.KindPostTool, engine.ClassRun, engine.OutcomeFailed, 3, "", false, "", false},
		"022-PostToolUse-Grep.json":          {engine.KindPostTool, engine.ClassRead, engine.OutcomeOK, -1, "", false, "", false},
		"026-PostToolUse-Edit.json":          {engine.KindPostTool, engine.ClassEdit, engine.OutcomeOK, -1, "notes.md", false, "", false},
		"030-PostToolUse-Write.json":         {engine.KindPostTool, engine.ClassEdit, engine.OutcomeOK, -1, "new.txt", false, "", false},
		"033-PostToolUseFailure-Read.json":   {engine.KindPostTool, engine.ClassRead, engine.OutcomeFailed, -1, "does-not-exist.txt", false, "", false},
		"036-PostToolUse-Bash.json":          {engine.KindPostTool, engine.ClassRead, engine.OutcomeOK, 0, "", false, "", false},
		"040-PostToolUse-Bash.json":          {engine.KindPostTool, engine.ClassEdit, engine.OutcomeOK, 0, "", false, "", false},
		"043-PostToolUseFailure-Bash.json":   {engine.KindPostTool, engine.ClassPoll, engine.OutcomeFailed, 143, "", false, "timeout", false},
		"059-PostToolUse-Bash-subagent.json": {engine.KindPostTool, engine.ClassRun, engine.OutcomeOK, 0, "", false, "", true},
		"062-PostToolUse-Agent.json":         {engine.KindPostTool, engine.ClassOther, engine.OutcomeOK, -1, "", false, "", false},
		"068-PostToolUse-Read.json":          {engine.KindPostTool, engine.ClassRead, engine.OutcomeOK, -1, "big.txt", false, "", false},
		"003-SessionStart.json":              {engine.KindSessionStart, "", "", -1, "", false, "", false},
		"004-UserPromptSubmit.json":          {engine.KindPrompt, "", "", -1, "", false, "", false},
		"009-PostToolBatch.json":             {engine.KindBatch, "", "", -1, "", false, "", false},
		"057-SubagentStart-subagent.json":    {engine.KindSubagent, "", "", -1, "", false, "", true},
		"071-Stop.json":                      {engine.KindStop, "", "", -1, "", false, "", false},
		"072-SessionEnd.json":                {engine.KindSessionEnd, "", "", -1, "", false, "", false},
		"075-PreCompact.json":                {engine.KindCompact, "", "", -1, "", false, "", false},
		"078-PostCompact.json":               {engine.KindOther, "", "", -1, "", false, "", false},
	}
	for name, w := range cases {
		t.Run(name, func(t *testing.T) {
			ev := decodeFixture(t, filepath.Join("testdata/capture-sequence", name))
			exit := -1
			if ev.Exit != nil {
				exit = *ev.Exit
			}
			if ev.Kind != w.kind || ev.Class != w.class || ev.Outcome != w.outcome || exit != w.exit ||
				ev.Target != w.target || ev.Ranged != w.ranged || ev.Note != w.note || (ev.Subagent != "") != w.sub {
				t.Errorf("got kind=%s class=%s outcome=%s exit=%d target=%q ranged=%v note=%q sub=%v\nwant %+v",
					ev.Kind, ev.Class, ev.Outcome, exit, ev.Target, ev.Ranged, ev.Note, ev.Subagent != "", w)
			}
			if ev.Outcome == engine.OutcomeFailed && ev.FailSig == "" {
				t.Error("a failure needs a signature")
			}
		})
	}
}

// Write's answer says whether it made the file: the captured Write made
// new.txt; the same call answered "update" replaced a file that was there.
func TestDecodeWriteCreated(t *testing.T) {
	raw, err := os.ReadFile("testdata/capture-sequence/030-PostToolUse-Write.json")
	if err != nil {
		t.Fatal(err)
	}
	if ev := decodeFixture(t, "testdata/capture-sequence/030-PostToolUse-Write.json"); !ev.Created {
		t.Error("a Write answered \"create\" made its file")
	}
	if ev := decodeFixture(t, "testdata/capture-sequence/026-PostToolUse-Edit.json"); ev.Created {
		t.Error("an Edit changes a file that was there")
	}
	updated := bytes.Replace(raw, []byte(`"type": "create"`), []byte(`"type": "update"`), 1)
	if bytes.Equal(updated, raw) {
		t.Fatal("the captured Write has no \"type\": \"create\"")
	}
	p := filepath.Join(t.TempDir(), "write-update.json")
	if err := os.WriteFile(p, updated, 0o600); err != nil {
		t.Fatal(err)
	}
	if ev := decodeFixture(t, p); ev.Created {
		t.Error("a Write answered \"update\" replaced a file")
	}
}

// A call refused in validation shows up only in the batch: it is decoded
// as a rejected call; the batch's ordinary calls are not.
func TestDecodeClaudeRejectedCalls(t *testing.T) {
	ev := decodeFixture(t, "testdata/capture-sequence/028-PostToolBatch.json")
	if len(ev.Rejected) != 1 {
		t.Fatalf("rejected: %+v", ev.Rejected)
	}
	r := ev.Rejected[0]
	if r.Tool != "Edit" || r.Class != engine.ClassEdit || r.Target != "notes.md" || r.FP == "" || r.Sig == "" {
		t.Fatalf("rejected call: %+v", r)
	}
	other := decodeFixture(t, "testdata/capture-sequence/033-PostToolUseFailure-Read.json")
	if other.CmdFP == "" || other.CmdFP == r.FP {
		t.Errorf("a Read of another file must have its own fingerprint: %q vs %q", other.CmdFP, r.FP)
	}
	again := decodeFixture(t, "testdata/capture-sequence/032-PreToolUse-Read.json")
	if again.CmdFP != other.CmdFP {
		t.Errorf("the same tool on the same file is the same command: %q vs %q", again.CmdFP, other.CmdFP)
	}
	if notes := decodeFixture(t, "testdata/capture-sequence/006-PreToolUse-Read.json"); notes.CmdFP == again.CmdFP {
		t.Error("Reads of two different files must not share a fingerprint")
	}
	for _, f := range []string{"009-PostToolBatch.json", "016-PostToolBatch.json", "034-PostToolBatch.json", "063-PostToolBatch.json"} {
		if ev := decodeFixture(t, "testdata/capture-sequence/"+f); len(ev.Rejected) != 0 {
			t.Errorf("%s: calls that ran are not rejected: %+v", f, ev.Rejected)
		}
	}
}

// The same failing command with the same error has one signature; the
// description the model gave it does not matter.
func TestDecodeClaudeSignatureStable(t *testing.T) {
	a := decodeFixture(t, "testdata/capture-sequence/013-PostToolUseFailure-Bash.json")
	b := decodeFixture(t, "testdata/capture-sequence/018-PostToolUseFailure-Bash.json")
	if a.CmdFP != b.CmdFP || a.FailSig != b.FailSig {
		t.Errorf("same command and error: fp %s/%s sig %s/%s", a.CmdFP, b.CmdFP, a.FailSig, b.FailSig)
	}
	c := decodeFixture(t, "testdata/capture-sequence/012-PostToolUseFailure-Bash.json")
	if c.FailSig == a.FailSig {
		t.Error("different errors share a signature")
	}
}

func TestDecodeClaudeStatsFiles(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.go")
	if err := os.WriteFile(p, bytes.Repeat([]byte("x"), 5000), 0o600); err != nil {
		t.Fatal(err)
	}
	env := fixtureEnv()
	env.Stat = os.Stat
	env.Getenv = func(string) string { return "" }
	raw := `{"session_id":"s","cwd":"` + dir + `","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"cat a.go"}}`
	ev, err := agent.Decode([]byte(raw), env)
	if err != nil {
		t.Fatal(err)
	}
	if ev.Target != "a.go" || ev.Size == nil || *ev.Size != 5000 || ev.Mtime == nil || ev.Ranged {
		t.Fatalf("cat a.go: target %q size %v mtime %v ranged %v", ev.Target, ev.Size, ev.Mtime, ev.Ranged)
	}
}

func TestDecodeClaudeBadInput(t *testing.T) {
	for name, raw := range map[string]string{
		"empty":     "",
		"spaces":    "  \n",
		"garbage":   "not json",
		"array":     "[1,2]",
		"no event":  `{"session_id":"x"}`,
		"truncated": `{"session_id":"x","hook_event_name":"PreTo`,
	} {
		if _, err := agent.Decode([]byte(raw), fixtureEnv()); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
	// Wrong types inside known fields are tolerated, not fatal.
	ev, err := agent.Decode([]byte(`{"session_id":"x","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":42}}`), fixtureEnv())
	if err != nil || ev.Kind != engine.KindPreTool {
		t.Fatalf("tolerant decode: %v %+v", err, ev)
	}
}

func TestDecodeOversize(t *testing.T) {
	head := []byte(`{"session_id":"s1","hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{"content":"xxxxxxxx`)
	ev := agent.DecodeHead(head, 50<<20, fixtureEnv())
	if ev.Session != "s1" || ev.Kind != engine.KindPostTool || ev.Outcome != engine.OutcomeUnknown || ev.Class != engine.ClassEdit || !strings.Contains(ev.Note, "too large") {
		t.Fatalf("got %+v", ev)
	}
}

// The encoder's answers, pinned as golden files: the shape the protocol
// notes show reaching the model, and nothing for events without a nudge.
func TestEncodeClaudeGolden(t *testing.T) {
	nudge := "cully checkpoint c1 (exploring): 20 read/search calls since the last edit or check."
	cases := map[string][]byte{
		"pre-tool-nudge.json":  agent.Encode("PreToolUse", nudge),
		"post-tool-nudge.json": agent.Encode("PostToolUseFailure", nudge),
		"stop-nudge.json":      agent.Encode("Stop", nudge), // Stop context would force another model call: never
		"pre-tool-none.json":   agent.Encode("PreToolUse", ""),
	}
	for name, got := range cases {
		p := filepath.Join("testdata/golden", name)
		if *update {
			os.MkdirAll("testdata/golden", 0o755)
			os.WriteFile(p, got, 0o644)
		}
		want, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("%s: %v (run go test ./hookbridge -update)", name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s:\ngot  %s\nwant %s", name, got, want)
		}
		if len(got) > 0 {
			var v map[string]any
			if err := json.Unmarshal(got, &v); err != nil {
				t.Errorf("%s: not JSON: %v", name, err)
			}
			for _, forbidden := range []string{"permissionDecision", "decision", "continue"} {
				if strings.Contains(string(got), `"`+forbidden+`"`) {
					t.Errorf("%s: must never carry %s", name, forbidden)
				}
			}
		}
	}
}

// A parallel batch cancelled because one call failed: the siblings never
// ran, so they are no failures (and no refusals at the batch).
func TestSiblingCancelledIsUnknown(t *testing.T) {
	raw := []byte(`{"session_id":"s","hook_event_name":"PostToolUseFailure","cwd":"/p","tool_name":"Bash","tool_input":{"command":"go test ./..."},"error":"<tool_use_error>Sibling tool call errored</tool_use_error>"}`)
	ev, err := agent.Decode(raw, fixtureEnv())
	if err != nil || ev.Outcome != engine.OutcomeUnknown || ev.Note != "cancelled" || ev.FailSig != "" {
		t.Fatalf("%v %+v", err, ev)
	}
	batch := []byte(`{"session_id":"s","hook_event_name":"PostToolBatch","cwd":"/p","tool_calls":[{"tool_name":"Edit","tool_input":{"file_path":"/p/a.go"},"tool_response":"<tool_use_error>Sibling tool call errored</tool_use_error>"}]}`)
	if ev, err := agent.Decode(batch, fixtureEnv()); err != nil || len(ev.Rejected) != 0 {
		t.Fatalf("a cancelled sibling is no refusal: %v %+v", err, ev)
	}
}

// A check whose status a pipe hides takes the outcome its own output
// states, and its counts go into the record.
func TestPipedCheckOutcomeFromOutput(t *testing.T) {
	post := func(cmd, stdout string) *engine.Event {
		p := map[string]any{"session_id": "s", "hook_event_name": "PostToolUse", "cwd": "/p", "tool_name": "Bash",
			"tool_input": map[string]any{"command": cmd}, "tool_response": map[string]any{"stdout": stdout, "stderr": "", "interrupted": false}}
		raw, _ := json.Marshal(p)
		ev, err := agent.Decode(raw, fixtureEnv())
		if err != nil {
			t.Fatal(err)
		}
		return ev
	}
	ok := post("go test ./... 2>&1 | tail -5", "ok  \tex/a\t0.01s\nok  \tex/b\t0.02s")
	if ok.Outcome != engine.OutcomeOK || ok.Note != "from-output" || ok.Tests == nil || ok.Tests.Runner != "go test" {
		t.Fatalf("a passing piped go test: %+v tests %+v", ok, ok.Tests)
	}
	bad := post("go test ./... 2>&1 | tail -5", "--- FAIL: TestX (0.00s)\n    x_test.go:3: boom\nFAIL\nFAIL\tex/a\t0.01s\nFAIL")
	if bad.Outcome != engine.OutcomeFailed || bad.Note != "from-output" || bad.FailSig == "" {
		t.Fatalf("a failing piped go test: %+v", bad)
	}
	unsettled := post("go test ./... 2>&1 | head -3", "=== RUN   TestX\n=== RUN   TestY\n")
	if unsettled.Outcome != engine.OutcomeUnknown || unsettled.Note != "masked" {
		t.Fatalf("output that settles nothing stays unknown: %+v", unsettled)
	}
	long := post("pytest 2>&1 | tail -3", strings.Repeat("tests/test_x.py ........ [ 10%]\n", 4000)+"============ 31 passed in 0.42s ============")
	if long.Outcome != engine.OutcomeOK || long.Tests == nil || long.Tests.Passed != 31 {
		t.Fatalf("a long output is read from its edges: %+v tests %+v", long, long.Tests)
	}
}

// A token inside a file path is redacted in the record, like one in a
// command: targets and the working directory go through RedactPath.
func TestTargetsRedacted(t *testing.T) {
	tok := "ghp_" + strings.Repeat("A1b2C3d4", 5)
	raw := []byte(`{"session_id":"s","hook_event_name":"PreToolUse","cwd":"/tmp/` + tok + `","tool_name":"Read","tool_input":{"file_path":"/tmp/` + tok + `/notes.txt"}}`)
	ev, err := agent.Decode(raw, fixtureEnv())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(ev.Target, tok) || strings.Contains(ev.Cwd, tok) || !strings.HasSuffix(ev.Target, "notes.txt") {
		t.Fatalf("target %q cwd %q", ev.Target, ev.Cwd)
	}
}

// A TodoWrite call carries the agent's plan: its completed items of all,
// for the runaway rule on tokens against progress.
func TestDecodeClaudeTodoProgress(t *testing.T) {
	raw := []byte(`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"TodoWrite","cwd":"/p","tool_input":{"todos":[` +
		`{"content":"a","status":"completed","activeForm":"A"},{"content":"b","status":"in_progress","activeForm":"B"},{"content":"c","status":"pending","activeForm":"C"}]}}`)
	ev, err := agent.Decode(raw, fixtureEnv())
	if err != nil {
		t.Fatal(err)
	}
	if ev.Plan == nil || *ev.Plan != (engine.PlanProgress{Done: 1, Total: 3}) {
		t.Fatalf("plan %+v, want 1 of 3", ev.Plan)
	}
	raw = []byte(`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"TodoWrite","cwd":"/p","tool_input":{"todos":[]}}`)
	if ev, err := agent.Decode(raw, fixtureEnv()); err != nil || ev.Plan != nil {
		t.Fatalf("an empty list: plan %+v, err %v", ev.Plan, err)
	}
}

// StopFailure (captured: the mock API answered 400) is a turn's end on an
// error the client could not recover from.
func TestStopFailureIsAHostError(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "hooks", "StopFailure.json"))
	if err != nil {
		t.Fatal(err)
	}
	ev, err := Agent{}.Decode(raw, hookbridge.Env{})
	if err != nil {
		t.Fatal(err)
	}
	if ev.Kind != engine.KindStop || ev.Source != engine.StopError || ev.Note != "unknown" {
		t.Fatalf("kind %s source %q note %q", ev.Kind, ev.Source, ev.Note)
	}
}

// An edit the user refused with a message is steering, not a failed
// attempt: the informed, different edit that follows two of them is no
// blind third attempt. A refusal without a message is no failure either.
func TestDecodeClaudeUserRejection(t *testing.T) {
	const said = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\nuse the helper instead"
	const stop = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed."
	payload := func(hook, errText string) []byte {
		p := map[string]any{"session_id": "s", "cwd": "/home/dev/project", "hook_event_name": hook, "tool_name": "Edit",
			"tool_input": map[string]any{"file_path": "/home/dev/project/a.go", "old_string": "x", "new_string": "y"}, "tool_use_id": "t"}
		if errText != "" {
			p["error"] = errText
		}
		b, _ := json.Marshal(p)
		return b
	}
	for _, c := range []struct {
		text string
		note string
	}{{said, engine.NoteSteered}, {stop, engine.NoteRejected}} {
		ev, err := agent.Decode(payload("PostToolUseFailure", c.text), fixtureEnv())
		if err != nil {
			t.Fatal(err)
		}
		if ev.Outcome == engine.OutcomeFailed || ev.Note != c.note {
			t.Errorf("refusal decoded as %s (%q), want not failed, %q", ev.Outcome, ev.Note, c.note)
		}
	}
	cfg := engine.DefaultConfig()
	st := engine.NewState("s")
	apply := func(hook, errText string) string {
		ev, err := agent.Decode(payload(hook, errText), fixtureEnv())
		if err != nil {
			t.Fatal(err)
		}
		return engine.Nudge(engine.Apply(st, ev, &cfg))
	}
	apply("UserPromptSubmit", "")
	for i := 0; i < 2; i++ {
		apply("PreToolUse", "")
		apply("PostToolUseFailure", said)
	}
	if n := apply("PreToolUse", ""); strings.Contains(n, "failed on its last") {
		t.Fatalf("the edit after the user's feedback was warned as a blind retry: %q", n)
	}
}

// A prompt leaves the fingerprints of the commands it reports failing, and
// nothing of its text.
func TestDecodeClaudePromptCommands(t *testing.T) {
	raw := []byte(`{"session_id":"s","hook_event_name":"UserPromptSubmit","prompt":"` + "`mytool sync` crashes on the secret-project repo" + `"}`)
	ev, err := agent.Decode(raw, fixtureEnv())
	if err != nil {
		t.Fatal(err)
	}
	if len(ev.PromptCmds) != 1 || ev.PromptCmds[0] != engine.PromptCommands("`mytool sync` fails")[0] {
		t.Fatalf("prompt commands: %v", ev.PromptCmds)
	}
	if b, _ := json.Marshal(ev); strings.Contains(string(b), "secret-project") || strings.Contains(string(b), "mytool") {
		t.Errorf("the prompt's text reached the record: %s", b)
	}
}

// A Bash call the shell could not run names the program it lacks (the
// tool-gap evidence), from Claude Code's error text; any other failure
// names none.
func TestDecodeClaudeMissingProgram(t *testing.T) {
	for _, c := range []struct{ cmd, errText, want string }{
		{"cd src && jq -r .name package.json", "Exit code 127\n/bin/bash: line 1: jq: command not found", "jq"},
		{"rg TODO", "Exit code 127", "rg"},
		{"jq . x.json", "Exit code 1\njq: error: x.json: No such file", ""},
	} {
		p, _ := json.Marshal(map[string]any{"session_id": "s", "cwd": "/home/dev/project", "hook_event_name": "PostToolUseFailure",
			"tool_name": "Bash", "tool_input": map[string]any{"command": c.cmd}, "tool_use_id": "t", "error": c.errText})
		ev, err := agent.Decode(p, fixtureEnv())
		if err != nil {
			t.Fatal(err)
		}
		if ev.Missing != c.want {
			t.Errorf("%q / %q: missing %q, want %q", c.cmd, c.errText, ev.Missing, c.want)
		}
	}
}
