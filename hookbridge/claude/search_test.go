package claude

import (
	"fmt"
	"testing"

	"cully/engine"
)

// What a search found reaches the event as a count, never as text: Grep's
// and Glob's own figures, a plain shell search's exit status.
func TestSearchMatches(t *testing.T) {
	payload := func(hook, tool, input, extra string) string {
		return fmt.Sprintf(`{"session_id":"s","cwd":"/p","hook_event_name":%q,"tool_name":%q,"tool_input":%s,"tool_use_id":"t1"%s}`, hook, tool, input, extra)
	}
	grepIn := `{"pattern":"foo\\(bar","path":"/p","output_mode":"content"}`
	cases := []struct {
		name, raw string
		term      string
		want      int // -1: no count
	}{
		{"Grep content, nothing", payload("PostToolUse", "Grep", grepIn, `,"tool_response":{"mode":"content","numFiles":0,"filenames":[],"content":"","numLines":0}`), "foo(bar", 0},
		{"Grep content, two lines", payload("PostToolUse", "Grep", grepIn, `,"tool_response":{"mode":"content","numFiles":0,"filenames":[],"content":"a\nb","numLines":2}`), "foo(bar", 2},
		{"Grep files", payload("PostToolUse", "Grep", `{"pattern":"foo"}`, `,"tool_response":{"mode":"files_with_matches","filenames":["a.go"],"numFiles":1}`), "foo", 1},
		{"Glob, nothing", payload("PostToolUse", "Glob", `{"pattern":"**/*.proto"}`, `,"tool_response":{"filenames":[],"durationMs":3,"numFiles":0,"truncated":false}`), "**/*.proto", 0},
		{"Grep before it ran", payload("PreToolUse", "Grep", grepIn, ""), "foo(bar", -1},
		{"shell grep, exit 1", payload("PostToolUseFailure", "Bash", `{"command":"grep -rn \"foo(bar\" src"}`, `,"error":"Exit code 1"`), "foo(bar", 0},
		{"shell rg, found", payload("PostToolUse", "Bash", `{"command":"cd src && rg -n 'foo\\(bar'"}`, `,"tool_response":{"stdout":"a.go:3:foo(bar)","stderr":"","interrupted":false}`), "foo(bar", 1},
		{"shell grep piped: the status is head's", payload("PostToolUseFailure", "Bash", `{"command":"grep -rn foo src | head"}`, `,"error":"Exit code 1"`), "foo", -1},
		{"shell grep, error", payload("PostToolUseFailure", "Bash", `{"command":"grep -rn foo nosuch"}`, `,"error":"Exit code 2\ngrep: nosuch: No such file or directory"`), "foo", -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ev, err := Agent{}.Decode([]byte(c.raw), fixtureEnv())
			if err != nil {
				t.Fatal(err)
			}
			if ev.SearchFP != engine.SearchFP(c.term) {
				t.Errorf("search fingerprint %q, want the term's", ev.SearchFP)
			}
			switch {
			case c.want < 0 && ev.Matches != nil:
				t.Errorf("matches %d, want none", *ev.Matches)
			case c.want >= 0 && (ev.Matches == nil || *ev.Matches != c.want):
				t.Errorf("matches %v, want %d", ev.Matches, c.want)
			}
		})
	}
}
