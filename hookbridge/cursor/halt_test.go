package cursor

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"cully/engine"
)

// haltReason is a real halt's text, as the engine words it.
var haltReason = engine.HaltText(&engine.RunNote{At: 1796000000, Note: "cully budget: this run has used 3 tool calls of its 3 tool calls (standard task): the budget is exceeded."})

// A halted run's answer to every documented payload, against Cursor's
// documented contract: the hooks before a tool call deny it (beforeReadFile
// with a permission only), the reason to the user and, with the nudge, to
// the agent; beforeSubmitPrompt stops the prompt; nothing else is
// answered. No answer ever allows.
func TestEncodeHaltEveryEvent(t *testing.T) {
	const nudge = "cully: a note"
	files, _ := filepath.Glob("testdata/hooks/*.json")
	seen := map[string]bool{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ev, err := agent.Decode(raw, fixtureEnv())
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		seen[ev.Hook] = true
		out := agent.EncodeHalt(ev.Hook, haltReason, nudge)
		if strings.Contains(string(out), `"allow"`) {
			t.Errorf("%s: a refusal that allows: %s", ev.Hook, out)
		}
		var want map[string]any
		switch ev.Hook {
		case "beforeShellExecution", "beforeMCPExecution":
			want = map[string]any{"permission": "deny", "user_message": haltReason, "agent_message": haltReason + "\n" + nudge}
		case "beforeReadFile":
			want = map[string]any{"permission": "deny"}
		case "beforeSubmitPrompt":
			want = map[string]any{"continue": false, "user_message": haltReason}
		default:
			if out != nil {
				t.Errorf("%s: answered %s", ev.Hook, out)
			}
			continue
		}
		var got map[string]any
		if err := json.Unmarshal(out, &got); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\ngot  %s\nwant %v (%v)", ev.Hook, out, want, err)
		}
	}
	for _, h := range []string{"beforeShellExecution", "beforeMCPExecution", "beforeReadFile", "beforeSubmitPrompt", "stop", "afterShellExecution"} {
		if !seen[h] {
			t.Errorf("no documented %s payload", h)
		}
	}
	// preToolUse, which install leaves out, is refused the same way.
	var got map[string]any
	if err := json.Unmarshal(agent.EncodeHalt("preToolUse", haltReason, ""), &got); err != nil || !reflect.DeepEqual(got, map[string]any{"permission": "deny", "user_message": haltReason, "agent_message": haltReason}) {
		t.Errorf("preToolUse: %v %v", got, err)
	}
}
