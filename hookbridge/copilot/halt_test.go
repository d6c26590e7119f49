package copilot

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"cully/engine"
)

// haltReason is a real halt's text, as the engine words it.
var haltReason = engine.HaltText(&engine.RunNote{At: 1796000000, Note: "cully budget: this run has used 3 tool calls of its 3 tool calls (standard task): the budget is exceeded."})

// A halted run's answer to every event captured from Copilot CLI, its own
// entries' and a Claude Code entry's it runs: the pre-tool call denied
// with the reason (the nudge after it), in the shape of the entry's
// format; every other event gets the plain answer (none can stop the
// loop, and agentStop's block would continue it).
func TestEncodeHaltEveryEvent(t *testing.T) {
	const nudge = "cully: a note"
	seq, _ := filepath.Glob("testdata/capture-sequence/*.json")
	claude, _ := filepath.Glob("testdata/claude-format/*.json")
	seen := map[string]bool{}
	for _, f := range append(seq, claude...) {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		event := ""
		if filepath.Base(filepath.Dir(f)) == "capture-sequence" {
			event = fixtureEvent(f)
		}
		ev, err := agent.Decode(raw, fixtureEnv(event))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		seen[ev.Hook] = true
		for _, n := range []string{nudge, ""} {
			r := haltReason
			if n != "" {
				r += "\n" + n
			}
			out := agent.EncodeHalt(ev.Hook, haltReason, n)
			var want map[string]any
			switch ev.Hook {
			case "preToolUse":
				want = map[string]any{"permissionDecision": "deny", "permissionDecisionReason": r}
			case "PreToolUse":
				want = map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": r}}
			default:
				if plain := agent.Encode(ev.Hook, n); string(out) != string(plain) {
					t.Errorf("%s: %s, want the plain answer %s", ev.Hook, out, plain)
				}
				continue
			}
			var got map[string]any
			if err := json.Unmarshal(out, &got); err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("%s (nudge %q):\ngot  %s\nwant %v (%v)", ev.Hook, n, out, want, err)
			}
		}
	}
	for _, h := range []string{"preToolUse", "postToolUse", "agentStop", "userPromptSubmitted", "PreToolUse", "Stop"} {
		if !seen[h] {
			t.Errorf("no captured %s payload", h)
		}
	}
}
