package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rolloutLine writes one rollout record.
func rolloutLine(t *testing.T, ts, typ string, payload map[string]any) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"timestamp": ts, "type": typ, "payload": payload})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeRollout(t *testing.T) string {
	t.Helper()
	args := func(cmd string) string {
		b, _ := json.Marshal(map[string]any{"cmd": cmd, "yield_time_ms": 1000})
		return string(b)
	}
	text := func(s string) []map[string]any { return []map[string]any{{"type": "input_text", "text": s}} }
	lines := []string{
		rolloutLine(t, "2026-01-02T10:00:00.000Z", "session_meta", map[string]any{"id": "sess-1", "cwd": "/tmp/proj"}),
		rolloutLine(t, "2026-01-02T10:00:00.000Z", "turn_context", map[string]any{"cwd": "/tmp/proj", "model": "m"}),
		rolloutLine(t, "2026-01-02T10:00:01.000Z", "event_msg", map[string]any{"type": "task_started", "turn_id": "t1"}),
		rolloutLine(t, "2026-01-02T10:00:01.000Z", "response_item", map[string]any{"type": "message", "role": "user", "content": text("<environment_context>cwd</environment_context>")}),
		rolloutLine(t, "2026-01-02T10:00:01.000Z", "response_item", map[string]any{"type": "message", "role": "user", "content": text("Fix the flaky parser test")}),
		rolloutLine(t, "2026-01-02T10:00:01.000Z", "event_msg", map[string]any{"type": "user_message", "message": "Fix the flaky parser test"}),
		rolloutLine(t, "2026-01-02T10:00:02.000Z", "response_item", map[string]any{"type": "function_call", "name": "exec_command", "arguments": args("go test ./parser"), "call_id": "c1"}),
		rolloutLine(t, "2026-01-02T10:00:03.000Z", "response_item", map[string]any{"type": "function_call_output", "call_id": "c1",
			"output": "Chunk ID: ab12\nWall time: 0.1 seconds\nProcess exited with code 1\nOriginal token count: 4\nOutput:\nFAIL TestParse\n"}),
		rolloutLine(t, "2026-01-02T10:00:04.000Z", "response_item", map[string]any{"type": "custom_tool_call", "name": "exec", "call_id": "c2",
			"input": `const r = await tools.exec_command({"cmd":"sed -n '1,40p' parser_test.go","yield_time_ms":1000}); text(r.output);`}),
		rolloutLine(t, "2026-01-02T10:00:05.000Z", "response_item", map[string]any{"type": "custom_tool_call_output", "call_id": "c2",
			"output": []map[string]any{{"type": "input_text", "text": "Script completed\nWall time 0.1 seconds\nOutput:\n"}, {"type": "input_text", "text": "func TestParse(t *testing.T) {"}}}),
		rolloutLine(t, "2026-01-02T10:00:06.000Z", "response_item", map[string]any{"type": "custom_tool_call", "name": "apply_patch", "call_id": "c3",
			"input": "*** Begin Patch\n*** Update File: parser_test.go\n@@\n-old\n+new\n+more\n*** End Patch\n"}),
		rolloutLine(t, "2026-01-02T10:00:07.000Z", "response_item", map[string]any{"type": "custom_tool_call_output", "call_id": "c3",
			"output": `{"output":"Success. Updated the following files:\nM parser_test.go\n","metadata":{"exit_code":0}}`}),
		rolloutLine(t, "2026-01-02T10:00:08.000Z", "response_item", map[string]any{"type": "message", "role": "assistant", "content": []map[string]any{{"type": "output_text", "text": "The test now waits for the parser."}}}),
		// two calls at one time: the nudge is before the second
		rolloutLine(t, "2026-01-02T10:00:09.000Z", "response_item", map[string]any{"type": "function_call", "name": "exec_command", "arguments": args("git diff --stat"), "call_id": "c4"}),
		rolloutLine(t, "2026-01-02T10:00:09.000Z", "response_item", map[string]any{"type": "function_call", "name": "exec_command", "arguments": args("go vet ./parser"), "call_id": "c5"}),
		rolloutLine(t, "2026-01-02T10:00:10.000Z", "response_item", map[string]any{"type": "function_call_output", "call_id": "c4", "output": "Process exited with code 0\nOutput:\n 1 file changed\n"}),
		rolloutLine(t, "2026-01-02T10:00:10.000Z", "response_item", map[string]any{"type": "function_call_output", "call_id": "c5", "output": "Process exited with code 0\nOutput:\n"}),
		rolloutLine(t, "2026-01-02T10:00:11.000Z", "response_item", map[string]any{"type": "message", "role": "assistant", "content": []map[string]any{{"type": "output_text", "text": "Fixed: the parser test passes."}}}),
	}
	path := filepath.Join(t.TempDir(), "rollout-sess-1.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCodexContext(t *testing.T) {
	path := writeRollout(t)
	if !isRollout([]string{path}) {
		t.Fatal("the rollout is not taken for one")
	}
	claude := filepath.Join(t.TempDir(), "claude.jsonl")
	os.WriteFile(claude, []byte(`{"type":"user","uuid":"u1","timestamp":"2026-01-02T10:00:00Z","message":{"content":"hi"}}`+"\n"), 0o600)
	if isRollout([]string{claude}) {
		t.Fatal("a Claude Code transcript is taken for a rollout")
	}

	s := readSession([]string{path})
	b, _ := os.ReadFile(path)
	calls, _ := replayCalls([][]byte{b})
	var target *replayedCall
	for _, c := range calls {
		if c.id == "c5" {
			target = c
		}
	}
	if target == nil {
		t.Fatalf("replay has no call c5: %+v", calls)
	}
	n := nudge{ID: "n001", Session: "sess-1", Time: target.at, Call: 5, Tool: target.tool, Preview: target.preview, Text: "cully checkpoint 1 (exploring): …"}
	at := s.locate(n)
	if at < 0 || s.items[at].id != "c5" {
		t.Fatalf("nudge located at %d, want the call c5", at)
	}
	out := renderAt(n, s.items, at)
	for _, want := range []string{
		"TASK PROMPT (10:00:01):\nFix the flaky parser test\n",
		"CALL Bash: go test ./parser",
		"→ ERROR (exit 1): FAIL TestParse",
		"CALL Bash: $ sed -n '1,40p' parser_test.go",
		"→ status unknown: func TestParse(t *testing.T) {",
		"CALL apply_patch: patch: update parser_test.go (+2 -1)",
		"→ ok: Success. Updated the following files: M parser_test.go",
		"AGENT SAYS: The test now waits for the parser.",
		"CALL Bash: git diff --stat\n\n>>> CULLY NUDGE",
		"AFTER:\n10:00:09 CALL Bash: go vet ./parser",
		"→ ok: (no output)",
		"AGENT SAYS: Fixed: the parser test passes.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("context lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "environment_context") || strings.Contains(out, "not found") {
		t.Errorf("context:\n%s", out)
	}
}

func TestScriptSummary(t *testing.T) {
	for code, want := range map[string]string{
		`const r = await tools.exec_command({"cmd":"ls -la","workdir":"/x"}); text(r.output);`:                    "$ ls -la",
		`const p = "*** Begin Patch\n*** Add File: a.go\n+package a\n*** End Patch"; await tools.apply_patch(p);`: "patch: add a.go (+1 -0)",
		`await tools.write_stdin({session_id: 42, chars: ""});`:                                                   "write_stdin session 42",
		"await tools.exec_command({cmd: `make\ncheck`})":                                                          "$ make\ncheck",
		`text("hello")`: `script: text("hello")`,
	} {
		if got := scriptSummary(code); got != want {
			t.Errorf("scriptSummary(%q) = %q, want %q", code, got, want)
		}
	}
}
