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
