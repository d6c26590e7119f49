package hookrun

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cully/store"
)

// A call whose record cannot reach the journal (here the journal is a
// directory: every append fails) is said on stderr, one line, whether or
// not errors.log takes it too; stdout holds the answer alone (none for a
// call the hook could not record), and the loss is counted for status.
func TestLostRecordIsSaidOnStderr(t *testing.T) {
	for _, logOK := range []bool{true, false} {
		home := t.TempDir()
		env := map[string]string{"CULLY_HOME": home, "CULLY_CONFIG": filepath.Join(home, "none.toml"), "CULLY_SNAPSHOTS": "off"}
		payload := []byte(`{"session_id":"s","cwd":"/home/dev/project","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/home/dev/project/a.go"},"tool_use_id":"t1"}`)
		call := func() (string, string) {
			var stdout, stderr bytes.Buffer
			Run(IO{Stdin: bytes.NewReader(payload), Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string { return env[k] }}, "claude")
			return stdout.String(), stderr.String()
		}
		if out, errs := call(); out != "" || errs != "" { // a healthy call makes the counter
			t.Fatalf("healthy call: %q %q", out, errs)
		}
		h := store.Home{Dir: home}
		os.Remove(h.Journal())
		os.Mkdir(h.Journal(), 0o700)
		if !logOK {
			os.Mkdir(h.ErrorsLog(), 0o700)
		}
		out, errs := call()
		lines := strings.Split(strings.TrimRight(errs, "\n"), "\n")
		if out != "" || len(lines) != 1 || !strings.HasPrefix(lines[0], "cully hook: recording failed, this call is not in cully's journal: is a directory (open journal.jsonl); fix: ") {
			t.Fatalf("errors.log writable %v: stdout %q stderr %q", logOK, out, errs)
		}
		if b, _ := os.ReadFile(h.ErrorsLog()); logOK != bytes.Contains(b, []byte(`"tool_use_id":"t1"`)) {
			t.Errorf("errors.log writable %v: %s", logOK, b)
		}
		if r, err := h.ReadRecording(); err != nil || r.NotRecorded != 1 || !r.Failing() {
			t.Errorf("counted: %+v %v", r, err)
		}
	}
}
