package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"cully/engine"
)

// everyControl is every character no surface may show raw: the C0
// controls but newline and tab, DEL, the C1 controls and the
// bidirectional controls.
func everyControl() string {
	var b strings.Builder
	for r := rune(1); r < 0x20; r++ {
		if r != '\n' && r != '\t' {
			b.WriteRune(r)
		}
	}
	b.WriteRune(0x7f)
	for r := rune(0x80); r <= 0x9f; r++ {
		b.WriteRune(r)
	}
	for _, r := range []rune{0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069} {
		b.WriteRune(r)
	}
	return b.String()
}

// rawControls returns the controls text holds raw (newlines and tabs
// aside).
func rawControls(text string) []string {
	var out []string
	for _, r := range text {
		if engine.IsControl(r) || r == utf8.RuneError {
			out = append(out, fmt.Sprintf("%U", r))
		}
	}
	return out
}

// Every surface gets a command, an error text and a file name holding
// every control character, and shows none of them raw: the text surfaces
// (status, replay, advise, ledger, snapshots, the panel) show them as \xNN
// and \uNNNN, the JSON ones (--json, the journal) escape them as \uNNNN,
// the nudge the agent reads (decoded) and the advisor's prompt spell them
// out.
func TestControlsEverySurface(t *testing.T) {
	ctl := everyControl()
	env := testEnv(t)
	dir := env["PWD"]
	prompts := filepath.Join(dir, "prompts")
	os.MkdirAll(prompts, 0o700)
	worker := filepath.Join(dir, "worker.sh")
	os.WriteFile(worker, []byte("#!/bin/sh\ncat > \""+prompts+"/p\"\necho 'try '\"$(printf '\\342\\200\\256')\"'again'\n"), 0o700)
	cfg := filepath.Join(dir, "config.toml")
	os.WriteFile(cfg, []byte(fmt.Sprintf("[advisor]\ncommand = [%q]\n", worker)), 0o600)
	env["CULLY_CONFIG"] = cfg
	hookEnv := map[string]string{"CULLY_ADVISOR_WORKER": "1"}
	for k, v := range env {
		hookEnv[k] = v
	}
	cmd := "echo safe" + ctl + "end; false"
	file := "src/a" + ctl + ".go"
	var answers []string
	send := func(p map[string]any) {
		t.Helper()
		p["session_id"], p["cwd"] = "ctl", dir
		body, _ := json.Marshal(p)
		r := runBin(t, "cully-hook", hookEnv, body)
		if r.code != 0 {
			t.Fatalf("cully-hook: %+v", r)
		}
		answers = append(answers, r.stdout)
	}
	send(map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "go " + ctl})
	send(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Read", "tool_input": map[string]any{"file_path": file}, "tool_use_id": "r"})
	send(map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Read", "tool_input": map[string]any{"file_path": file}, "tool_use_id": "r",
		"tool_response": map[string]any{"type": "text", "file": map[string]any{"filePath": file, "content": "x"}}})
	var transcript strings.Builder
	for i := range 3 {
		use := fmt.Sprintf("t%d", i)
		in := map[string]any{"command": cmd}
		send(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": in, "tool_use_id": use})
		send(map[string]any{"hook_event_name": "PostToolUseFailure", "tool_name": "Bash", "tool_input": in, "tool_use_id": use,
			"error": "Exit code 1\n" + ctl, "is_interrupt": false})
		for _, m := range []map[string]any{
			{"type": "assistant", "sessionId": "replay-ctl", "cwd": dir, "timestamp": fmt.Sprintf("2026-11-30T10:00:%02d.000Z", 2*i),
				"message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": use, "name": "Bash", "input": in}}}},
			{"type": "user", "sessionId": "replay-ctl", "cwd": dir, "timestamp": fmt.Sprintf("2026-11-30T10:00:%02d.000Z", 2*i+1),
				"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": use, "is_error": true, "content": "Exit code 1\n" + ctl}}}},
		} {
			b, _ := json.Marshal(m)
			transcript.Write(b)
			transcript.WriteByte('\n')
		}
	}
	tr := filepath.Join(dir, "transcript.jsonl")
	os.WriteFile(tr, []byte(transcript.String()), 0o600)

	nudged := false
	for _, a := range answers {
		if rc := rawControls(a); len(rc) > 0 {
			t.Errorf("the hook's answer holds raw %v: %q", rc, a)
		}
		var v any
		if a != "" && json.Unmarshal([]byte(a), &v) == nil {
			for _, s := range appendStrings(nil, v) {
				nudged = nudged || strings.Contains(s, "echo safe")
				if rc := rawControls(s); len(rc) > 0 {
					t.Errorf("the nudge the agent reads holds raw %v: %q", rc, s)
				}
			}
		}
	}
	if !nudged {
		t.Errorf("no nudge quoted the command: %q", answers)
	}
	surfaces := map[string][]string{
		"status": {"status"}, "status --json": {"status", "--json"}, "replay": {"replay", tr}, "replay --json": {"replay", "--json", tr},
		"advise": {"advise", "--yes"}, "ledger": {"ledger"}, "ledger --json": {"ledger", "--json"}, "snapshots": {"snapshots"},
	}
	for name, args := range surfaces {
		r := cully(t, env, nil, args...)
		if rc := rawControls(r.stdout + r.stderr); len(rc) > 0 {
			t.Errorf("%s shows raw %v:\n%s", name, rc, r.stdout+r.stderr)
		}
		if strings.HasPrefix(name, "status") && !strings.Contains(r.stdout, `\u202e`) {
			t.Errorf("%s does not spell out the override:\n%s", name, r.stdout)
		}
	}
	j, err := os.ReadFile(filepath.Join(env["CULLY_HOME"], "journal.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if rc := rawControls(string(j)); len(rc) > 0 {
		t.Errorf("the journal holds raw %v", rc)
	}
	b, err := os.ReadFile(filepath.Join(prompts, "p"))
	if err != nil {
		t.Fatal(err)
	}
	if rc := rawControls(string(b)); len(rc) > 0 {
		t.Errorf("the advisor's prompt holds raw %v:\n%s", rc, b)
	}
	p := newTmux(t, 200, 50, env, "panel", "--session", "ctl")
	p.waitFor("echo safe", 20*time.Second)
	if rc := rawControls(p.screen()); len(rc) > 0 {
		t.Errorf("the panel shows raw %v:\n%s", rc, p.screen())
	}
}
