package gemini

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	"cully/engine"
)

// haltReason is a real halt's text, as the engine words it.
var haltReason = engine.HaltText(&engine.RunNote{At: 1796000000, Note: "cully budget: this run has used 3 tool calls of its 3 tool calls (standard task): the budget is exceeded."})

// A halted run's answer to every event captured from Gemini CLI 0.61.0,
// against the fields its hook runner reads: BeforeTool and BeforeAgent
// denied with the reason, AfterTool and AfterAgent stopped (continue
// false) on it; anything else gets the plain answer.
func TestEncodeHaltEveryEvent(t *testing.T) {
	const nudge = "cully: `ls /nope` failed on its last 2 runs."
	files, _ := filepath.Glob(filepath.Join("testdata", "capture", "*.json"))
	seen := map[string]bool{}
	for _, f := range files {
		ev := decodeFile(t, filepath.Base(f))
		seen[ev.Hook] = true
		for _, n := range []string{nudge, ""} {
			withNudge := haltReason
			if n != "" {
				withNudge += "\n" + n
			}
			var want map[string]any
			switch ev.Hook {
			case "BeforeTool":
				want = map[string]any{"decision": "deny", "reason": withNudge}
			case "AfterTool":
				want = map[string]any{"continue": false, "stopReason": withNudge}
			case "BeforeAgent":
				want = map[string]any{"decision": "deny", "reason": haltReason}
			case "AfterAgent":
				want = map[string]any{"continue": false, "stopReason": haltReason}
			default:
				got, plain := (Agent{}).EncodeHalt(ev.Hook, haltReason, n), (Agent{}).Encode(ev.Hook, n)
				if string(got) != string(plain) {
					t.Errorf("%s: %s, want the plain answer %s", ev.Hook, got, plain)
				}
				continue
			}
			var got map[string]any
			out := Agent{}.EncodeHalt(ev.Hook, haltReason, n)
			if err := json.Unmarshal(out, &got); err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("%s (nudge %q):\ngot  %s\nwant %v (%v)", ev.Hook, n, out, want, err)
			}
		}
	}
	for _, h := range []string{"BeforeTool", "AfterTool", "BeforeAgent", "AfterAgent", "SessionStart", "SessionEnd"} {
		if !seen[h] {
			t.Errorf("no captured %s payload", h)
		}
	}
}
