package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// stalledRollout writes a headless Codex run (codex exec) that edits a
// file, then only reads for 14 calls: the no-progress runaway's shape.
func stalledRollout(t *testing.T, dir string) {
	t.Helper()
	args := func(cmd string) string {
		b, _ := json.Marshal(map[string]any{"cmd": cmd, "yield_time_ms": 1000})
		return string(b)
	}
	at := func(s int) string { return fmt.Sprintf("2026-01-02T10:%02d:%02d.000Z", s/60, s%60) }
	lines := []string{
		rolloutLine(t, at(0), "session_meta", map[string]any{"id": "sess-stall", "cwd": "/tmp/proj", "originator": "codex_exec", "source": "exec"}),
		rolloutLine(t, at(0), "turn_context", map[string]any{"cwd": "/tmp/proj", "model": "m"}),
		rolloutLine(t, at(1), "event_msg", map[string]any{"type": "task_started", "turn_id": "t1"}),
		rolloutLine(t, at(1), "event_msg", map[string]any{"type": "user_message", "message": "Tidy the parser"}),
		rolloutLine(t, at(2), "response_item", map[string]any{"type": "custom_tool_call", "name": "apply_patch", "call_id": "c0",
			"input": "*** Begin Patch\n*** Update File: parser.go\n@@\n-old\n+new\n*** End Patch\n"}),
		rolloutLine(t, at(3), "response_item", map[string]any{"type": "custom_tool_call_output", "call_id": "c0",
			"output": `{"output":"Success. Updated the following files:\nM parser.go\n","metadata":{"exit_code":0}}`}),
	}
	for i := 1; i <= 14; i++ {
		id := fmt.Sprint("c", i)
		lines = append(lines,
			rolloutLine(t, at(2*i+2), "response_item", map[string]any{"type": "function_call", "name": "exec_command", "arguments": args(fmt.Sprintf("sed -n '%d,%dp' parser.go", i, i+10)), "call_id": id}),
			rolloutLine(t, at(2*i+3), "response_item", map[string]any{"type": "function_call_output", "call_id": id, "output": "Process exited with code 0\nOutput:\nfunc parse() {}\n"}))
	}
	if err := os.WriteFile(filepath.Join(dir, "rollout-sess-stall.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestRunawaysCountsAndBlindContexts(t *testing.T) {
	corpus := t.TempDir()
	stalledRollout(t, corpus)
	sessions, err := corpusSessions(corpus)
	if err != nil {
		t.Fatal(err)
	}
	if len(sessions) != 1 || sessions[0].attended {
		t.Fatalf("want one unattended session (codex exec), got %+v", sessions)
	}
	ts := measureRunaways(sessions)
	for vi, tl := range ts {
		if tl.calls != 15 || tl.sessions != 1 {
			t.Errorf("variant %d: %d calls in %d sessions, want 15 in 1", vi+1, tl.calls, tl.sessions)
		}
		var stalled []*alertRec
		for _, a := range tl.alerts {
			if a.rule == "runaway (c): no progress in 10 calls" {
				stalled = append(stalled, a)
			}
		}
		// the no-progress runaway is shown, never told or halting, in a
		// run nobody watches too
		if len(stalled) != 1 || stalled[0].call != 12 || stalled[0].told || stalled[0].halted {
			t.Errorf("variant %d: no-progress runaways %+v, want one shown at call 12, not told, no halt", vi+1, stalled)
		}
	}

	out := filepath.Join(t.TempDir(), "alerts")
	if err := writeAlertContexts(out, ts); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(out)
	var ctx []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".txt") {
			ctx = append(ctx, e.Name())
		}
	}
	if len(ctx) != 1 {
		t.Fatalf("want one context (the same alert in both default variants), got %v", ctx)
	}
	b, _ := os.ReadFile(filepath.Join(out, ctx[0]))
	for _, leak := range []string{"runaway", "cully", "progress", "sess-stall"} {
		if strings.Contains(strings.ToLower(string(b)), leak) {
			t.Errorf("context names %q:\n%s", leak, b)
		}
	}
	if !strings.Contains(string(b), "Tidy the parser") || !strings.Contains(string(b), ">>> HERE") {
		t.Errorf("context lacks the prompt or the mark:\n%s", b)
	}
	idx, err := os.ReadFile(out + "-index.tsv")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(idx), strings.TrimSuffix(ctx[0], ".txt")+"\tsess-stall\t") || !strings.Contains(string(idx), "no progress") {
		t.Errorf("index does not key the context to its session and rule:\n%s", idx)
	}
	if _, err := os.Stat(filepath.Join(out, "instructions.md")); err != nil {
		t.Error(err)
	}
}

func TestRecordedAttended(t *testing.T) {
	dir := t.TempDir()
	for name, c := range map[string]struct {
		line string
		want bool
	}{
		"claude-cli":  {`{"type":"user","entrypoint":"cli","uuid":"u1"}`, true},
		"claude-sdk":  {`{"type":"user","entrypoint":"sdk-cli","uuid":"u1"}`, false},
		"codex-tui":   {`{"type":"session_meta","payload":{"originator":"codex-tui","source":"cli"}}`, true},
		"codex-exec":  {`{"type":"session_meta","payload":{"originator":"codex_exec","source":{"subagent":"review"}}}`, false},
		"desktop-exe": {`{"type":"session_meta","payload":{"originator":"Codex Desktop","source":"exec"}}`, false},
		"unknown":     {`{"type":"user","uuid":"u1"}`, true},
	} {
		p := filepath.Join(dir, name+".jsonl")
		if err := os.WriteFile(p, []byte(c.line+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := recordedAttended(p); got != c.want {
			t.Errorf("%s: attended %v, want %v", name, got, c.want)
		}
	}
}

func TestAlertRule(t *testing.T) {
	for key, want := range map[string]string{
		"budget-warning:tool_calls:30":     "budget warning: tool calls",
		"budget-exceeded:wall_clock:21600": "budget reached: wall clock",
		"summary-only:50000":               "summary-only (tokens past 80%)",
		"runaway:repeat:abc":               "runaway (a): 3 identical calls, same result",
		"runaway:tokens-progress:50000":    "runaway (b): tokens past 80%, under 20% done",
		"runaway:no-modification:12":       "runaway (c): no progress in 10 calls",
	} {
		kind := key[:strings.IndexByte(key, ':')]
		if kind == "budget-exceeded" || kind == "budget-warning" || kind == "summary-only" || kind == "runaway" {
			if got := alertRule(kind, key); got != want {
				t.Errorf("%s: %q, want %q", key, got, want)
			}
		}
	}
}
