package hookrun

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A call that may change files waits for its marks (before and after);
// a read takes none; a destructive command is named; a mark that fails
// is logged and the agent's answer is unchanged.
func TestMarksAroundCallsThatMayChangeFiles(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"CULLY_HOME": filepath.Join(dir, "state"), "CULLY_NOW": "2026-12-01T12:00:00Z", "CLAUDE_PROJECT_DIR": dir}
	var calls [][]string
	var fail error
	call := func(event, tool, input string) string {
		var stdout, stderr bytes.Buffer
		raw := `{"session_id":"s1","hook_event_name":"` + event + `","cwd":"` + dir + `","tool_name":"` + tool + `","tool_use_id":"t1","tool_input":` + input + `,"tool_response":{}}`
		Run(IO{Stdin: strings.NewReader(raw), Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string { return env[k] },
			Wait: func(d string, args []string, wait time.Duration) error {
				if d != dir || wait != markWait {
					t.Errorf("mark in %q with wait %v", d, wait)
				}
				calls = append(calls, args)
				return fail
			}}, "claude")
		return stdout.String()
	}
	call("PreToolUse", "Bash", `{"command":"git reset --hard"}`)
	call("PostToolUse", "Bash", `{"command":"git reset --hard"}`)
	call("PreToolUse", "Read", `{"file_path":"`+dir+`/a.go"}`)
	call("PreToolUse", "Bash", `{"command":"cat a.go"}`)
	if len(calls) != 2 {
		t.Fatalf("marks: %q, want one before and one after the shell call", calls)
	}
	pre, post := strings.Join(calls[0], " "), strings.Join(calls[1], " ")
	for _, w := range []string{"snapshot --mark=pre --session=s1", "--call=t1", "--destructive=git reset --hard", "--dir=" + dir} {
		if !strings.Contains(pre, w) {
			t.Errorf("pre mark %q lacks %q", pre, w)
		}
	}
	if !strings.Contains(post, "--mark=post") || strings.Contains(post, "--destructive") {
		t.Errorf("post mark %q", post)
	}
	fail = errors.New("timed out after 3.5s")
	want := call("PreToolUse", "Edit", `{"file_path":"`+dir+`/a.go","old_string":"a","new_string":"b"}`)
	if len(calls) != 3 {
		t.Fatalf("no mark before the edit: %q", calls)
	}
	if strings.Contains(want, "timed out") {
		t.Fatalf("a failed mark reached the agent: %s", want)
	}
}
