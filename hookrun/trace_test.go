package hookrun

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The host's trace context (TRACEPARENT) and prompt id reach the record, so
// an export can join the host's telemetry; a malformed trace context is
// dropped, never stored.
func TestTraceParentAndPromptID(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "hookbridge", "claude", "testdata", "capture-sequence", "007-PostToolUse-Read.json"))
	if err != nil {
		t.Fatal(err)
	}
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	for _, c := range []struct{ env, want string }{{tp, `"traceparent":"` + tp + `"`}, {"00-zz-garbage", ""}} {
		home := t.TempDir()
		env := map[string]string{"CULLY_HOME": home, "CULLY_CONFIG": filepath.Join(home, "none.toml"), "CULLY_SNAPSHOTS": "off", "TRACEPARENT": c.env}
		Run(IO{Stdin: bytes.NewReader(raw), Stdout: io.Discard, Stderr: io.Discard, Getenv: func(k string) string { return env[k] }}, "claude")
		j, err := os.ReadFile(filepath.Join(home, "journal.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(j), `"prompt_id":"f4c84414-af04-4ca8-9bb8-29f567603fbf"`) {
			t.Errorf("no prompt id in %s", j)
		}
		if got := strings.Contains(string(j), "traceparent"); got != (c.want != "") || c.want != "" && !strings.Contains(string(j), c.want) {
			t.Errorf("TRACEPARENT=%q: record %s", c.env, j)
		}
	}
}

// What the hook knows beyond the payload (the host's trace, CULLY_SNAPSHOTS=off)
// survives an adapter's Complete: Codex's decodes the payload anew once the
// rollout gives the call's exit code, and its first version replaced the
// event whole, so a Codex call asked for a baseline snapshot with snapshots
// off and dropped the trace.
func TestCompletedCallKeepsTheHooksFields(t *testing.T) {
	block := filepath.Join("..", "hookbridge", "codex", "testdata", "block")
	raw, err := os.ReadFile(filepath.Join(block, "1796013122520003136-PostToolUse.json"))
	if err != nil {
		t.Fatal(err)
	}
	rollout, err := os.ReadFile(filepath.Join(block, "rollout.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	path := filepath.Join(home, "rollout.jsonl")
	if err := os.WriteFile(path, rollout, 0o600); err != nil {
		t.Fatal(err)
	}
	raw = transcriptPath.ReplaceAll(raw, []byte(`"transcript_path":"`+path+`"`))
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	env := map[string]string{"CULLY_HOME": home, "CULLY_CONFIG": filepath.Join(home, "none.toml"), "CULLY_SNAPSHOTS": "off", "TRACEPARENT": tp}
	var stderr bytes.Buffer
	Run(IO{Stdin: bytes.NewReader(raw), Stdout: io.Discard, Stderr: &stderr, Getenv: func(k string) string { return env[k] }}, "codex")
	j, err := os.ReadFile(filepath.Join(home, "journal.jsonl"))
	if err != nil {
		t.Fatal(err, stderr.String())
	}
	rec := string(j)
	if !strings.Contains(rec, `"exit":1`) {
		t.Fatalf("the rollout did not complete the call (no exit code): %s", rec)
	}
	for _, want := range []string{`"traceparent":"` + tp + `"`, `"no_snapshots":true`} {
		if !strings.Contains(rec, want) {
			t.Errorf("record lacks %s: %s", want, rec)
		}
	}
	if strings.Contains(rec, `"kind":"snapshot"`) {
		t.Errorf("a snapshot was asked for with CULLY_SNAPSHOTS=off: %s", rec)
	}
	if _, err := os.Stat(filepath.Join(home, "asks")); err == nil {
		t.Error("a snapshot ask was queued with CULLY_SNAPSHOTS=off")
	}
}

// The tmux pane the agent runs in (TMUX_PANE, inherited by its hooks)
// reaches a prompt's record and the session's state, for the panel's g;
// anything but a pane id is dropped, and a tool call does not carry it.
func TestTmuxPaneRecorded(t *testing.T) {
	dir := filepath.Join("..", "hookbridge", "claude", "testdata", "capture-sequence")
	prompt, err := os.ReadFile(filepath.Join(dir, "004-UserPromptSubmit.json"))
	if err != nil {
		t.Fatal(err)
	}
	read, err := os.ReadFile(filepath.Join(dir, "007-PostToolUse-Read.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ env, want string }{{"%3", `"tmux_pane":"%3"`}, {"%3; rm -rf", ""}, {"", ""}} {
		home := t.TempDir()
		env := map[string]string{"CULLY_HOME": home, "CULLY_CONFIG": filepath.Join(home, "none.toml"), "CULLY_SNAPSHOTS": "off", "TMUX_PANE": c.env}
		for _, raw := range [][]byte{prompt, read} {
			Run(IO{Stdin: bytes.NewReader(raw), Stdout: io.Discard, Stderr: io.Discard, Getenv: func(k string) string { return env[k] }}, "claude")
		}
		j, err := os.ReadFile(filepath.Join(home, "journal.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(j)), "\n")
		if len(lines) != 2 {
			t.Fatalf("records: %s", j)
		}
		if got := strings.Contains(lines[0], "tmux_pane"); got != (c.want != "") || c.want != "" && !strings.Contains(lines[0], c.want) {
			t.Errorf("TMUX_PANE=%q: prompt record %s", c.env, lines[0])
		}
		if strings.Contains(lines[1], "tmux_pane") {
			t.Errorf("a tool call carries the pane: %s", lines[1])
		}
	}
}
