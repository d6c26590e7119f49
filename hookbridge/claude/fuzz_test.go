package claude

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cully/engine"
)

// The decoder on the hook path never panics, whatever the host (or a tool's
// output inside the payload) sends, and an event it returns is one the rest
// of the hook can use: a kind, and no raw control bytes beyond what the
// journal's encoder escapes.
func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob("testdata/capture-sequence/*.json")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil && len(b) < 8<<10 {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"go test ./... | tail"},"error":"Exit code 1\n--- FAIL"}`))
	f.Add([]byte(`{"hook_event_name":"PostToolBatch","tool_calls":[{"tool_name":"Edit","tool_response":"<tool_use_error>x</tool_use_error>"}]}`))
	f.Add([]byte(`{"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"../../etc/passwd","offset":-1}}`))
	f.Add([]byte(strings.Repeat("[", 600)))
	f.Fuzz(func(t *testing.T, raw []byte) {
		ev, err := agent.Decode(raw, fixtureEnv())
		if err != nil {
			return
		}
		if ev == nil || ev.Kind == "" || ev.Hook == "" {
			t.Fatalf("decoded without a kind or hook: %+v", ev)
		}
		if ev.Kind == engine.KindPostTool && ev.Outcome == "" {
			t.Fatalf("a post-tool event without an outcome: %+v", ev)
		}
		_ = agent.Encode(ev.Hook, "n")
	})
}

// The oversize salvage reads any head without panicking.
func FuzzDecodeHead(f *testing.F) {
	f.Add([]byte(`{"session_id":"s1","hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{"content":"xx`))
	f.Add([]byte(`{"session_id":`))
	f.Fuzz(func(t *testing.T, head []byte) {
		if ev := agent.DecodeHead(head, 50<<20, fixtureEnv()); ev == nil || ev.Hook == "" {
			t.Fatalf("no event from a head: %+v", ev)
		}
	})
}
