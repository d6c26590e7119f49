package codex

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"
	"time"

	"cully/engine"
	"cully/hookbridge"
)

// haltReason is a real halt's text, as the engine words it.
var haltReason = engine.HaltText(&engine.RunNote{At: 1796000000, Note: "cully budget: this run has used 3 tool calls of its 3 tool calls (standard task): the budget is exceeded."})

// A halted run's answer to each event Codex 0.171.0 has: exactly what the
// event's output schema accepts, and what the contract asks of it. The
// event names come from the captured payloads where a run fired them.
func TestEncodeHaltValidates(t *testing.T) {
	const nudge = "cully: `go test ./...` failed on its last 2 runs\n\"quoted\" \\ tab\t \x01 é"
	env := hookbridge.Env{Now: time.Date(2026, 11, 30, 4, 32, 0, 0, time.UTC)}
	hooks := map[string]bool{}
	for _, run := range runs {
		for _, f := range payloads(t, run) {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			ev, err := Agent{}.Decode(raw, env)
			if err != nil {
				t.Fatal(err)
			}
			hooks[ev.Hook] = true
		}
	}
	for _, h := range []string{"PreToolUse", "PostToolUse", "Stop", "UserPromptSubmit"} {
		if !hooks[h] {
			t.Errorf("no captured %s payload", h)
		}
	}
	for hook := range schemaFile {
		hooks[hook] = true // the events no run fired: their schemas still bind
	}
	for hook := range hooks {
		for _, n := range []string{nudge, ""} {
			out := Agent{}.EncodeHalt(hook, haltReason, n)
			var want map[string]any
			switch hook {
			case "PreToolUse":
				r := haltReason
				if n != "" {
					r += "\n" + n
				}
				want = map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": hook, "permissionDecision": "deny", "permissionDecisionReason": r}}
			case "PostToolUse":
				want = map[string]any{"continue": false, "stopReason": haltReason}
				if n != "" {
					want["hookSpecificOutput"] = map[string]any{"hookEventName": hook, "additionalContext": n}
				}
			case "Stop", "SubagentStop":
				want = map[string]any{"continue": false, "stopReason": haltReason}
			case "UserPromptSubmit":
				want = map[string]any{"decision": "block", "reason": haltReason}
			default:
				if plain := (Agent{}).Encode(hook, n); string(out) != string(plain) {
					t.Errorf("%s: %s, want the plain answer %s", hook, out, plain)
				}
				continue
			}
			if err := loadSchema(t, schemaFile[hook]+".command.output.json").validate(out); err != nil {
				t.Errorf("%s: answer %s: %v", hook, out, err)
			}
			var got map[string]any
			if err := json.Unmarshal(out, &got); err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("%s (nudge %q):\ngot  %s\nwant %v (%v)", hook, n, out, want, err)
			}
		}
	}
}
