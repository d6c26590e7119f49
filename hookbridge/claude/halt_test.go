package claude

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	"cully/engine"
)

// haltReason is a real halt's text, as the engine words it.
var haltReason = engine.HaltText(&engine.RunNote{At: 1796000000, Note: "cully budget: this run has used 3 tool calls of its 3 tool calls (standard task): the budget is exceeded."})

// A halted run's answer to every captured event, against Claude Code's hook
// contract: PreToolUse denied with the reason (the nudge after it) and the
// session stopped; the events after a call and at a turn's end stop it
// (the nudge kept as context where the event carries one); a prompt is
// blocked with the reason; anything else gets the plain answer.
func TestEncodeHaltEveryEvent(t *testing.T) {
	const nudge = "cully checkpoint c1 (exploring): 20 read/search calls since the last edit or check."
	files, _ := filepath.Glob("testdata/hooks/*.json")
	if len(files) < 20 {
		t.Fatalf("want the captured hooks, found %d", len(files))
	}
	seen := map[string]bool{}
	for _, f := range files {
		hook := decodeFixture(t, f).Hook
		seen[hook] = true
		got := map[string]any{}
		out := agent.EncodeHalt(hook, haltReason, nudge)
		if out != nil {
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("%s: %v: %s", hook, err, out)
			}
		}
		var want map[string]any
		switch hook {
		case "PreToolUse":
			want = map[string]any{"continue": false, "stopReason": haltReason, "hookSpecificOutput": map[string]any{
				"hookEventName": hook, "permissionDecision": "deny", "permissionDecisionReason": haltReason + "\n" + nudge}}
		case "PostToolUse", "PostToolUseFailure", "PostToolBatch":
			want = map[string]any{"continue": false, "stopReason": haltReason,
				"hookSpecificOutput": map[string]any{"hookEventName": hook, "additionalContext": nudge}}
		case "Stop", "SubagentStop":
			want = map[string]any{"continue": false, "stopReason": haltReason}
		case "UserPromptSubmit":
			want = map[string]any{"decision": "block", "reason": haltReason}
		default:
			plain := agent.Encode(hook, nudge)
			if string(out) != string(plain) {
				t.Errorf("%s: %s, want the plain answer %s", hook, out, plain)
			}
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\ngot  %v\nwant %v", hook, got, want)
		}
	}
	for _, h := range []string{"PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "Stop", "SubagentStop", "UserPromptSubmit"} {
		if !seen[h] {
			t.Errorf("no captured %s payload", h)
		}
	}
	// Without a nudge: the reason alone, and no empty context.
	if got := string(agent.EncodeHalt("PreToolUse", haltReason, "")); got != `{"continue":false,"stopReason":`+quote(haltReason)+`,"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":`+quote(haltReason)+"}}\n" {
		t.Errorf("PreToolUse without a nudge: %s", got)
	}
	if got := string(agent.EncodeHalt("PostToolUse", haltReason, "")); got != `{"continue":false,"stopReason":`+quote(haltReason)+"}\n" {
		t.Errorf("PostToolUse without a nudge: %s", got)
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
