package agents

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"cully/engine"
	"cully/hookbridge"
)

// Each host's turn-end event keeps of the closing message its fingerprint,
// its sketch and what it says, and whether a Stop hook forced the turn on;
// each prompt its fingerprint. Neither text reaches the record.
func TestTurnEndsKeepNoText(t *testing.T) {
	const msg = "Awaiting your choice (Option A or B). Nothing actionable on my end, token sk-live-4242."
	const prompt = "deploy with key sk-live-4242"
	fp, sketch, says := engine.ClosingOf(msg)
	for _, c := range []struct {
		agent, event, payload string
		closing, forced       bool // the host gives a closing message; the payload says forced
	}{
		{"claude", "", `{"hook_event_name":"Stop","session_id":"s","stop_hook_active":true,"last_assistant_message":"` + msg + `"}`, true, true},
		{"codex", "", `{"hook_event_name":"Stop","session_id":"s","turn_id":"t","stop_hook_active":true,"last_assistant_message":"` + msg + `"}`, true, true},
		{"gemini", "", `{"hook_event_name":"AfterAgent","session_id":"s","prompt":"go","prompt_response":"` + msg + `","stop_hook_active":true}`, true, true},
		{"copilot", "agentStop", `{"sessionId":"s","stopReason":"end_turn","stop_hook_active":true}`, false, true},
		{"claude", "", `{"hook_event_name":"UserPromptSubmit","session_id":"s","prompt":"` + prompt + `"}`, false, false},
		{"codex", "", `{"hook_event_name":"UserPromptSubmit","session_id":"s","turn_id":"t","prompt":"` + prompt + `"}`, false, false},
		{"gemini", "", `{"hook_event_name":"BeforeAgent","session_id":"s","prompt":"` + prompt + `"}`, false, false},
		{"copilot", "userPromptSubmitted", `{"sessionId":"s","prompt":"` + prompt + `"}`, false, false},
	} {
		a, err := Lookup(c.agent)
		if err != nil {
			t.Fatal(err)
		}
		env := hookbridge.Env{Now: time.Unix(0, 0), Getenv: func(k string) string {
			if k == "CULLY_HOOK_EVENT" {
				return c.event
			}
			return ""
		}}
		ev, err := a.Decode([]byte(c.payload), env)
		if err != nil {
			t.Fatalf("%s: %v", c.agent, err)
		}
		name := c.agent + " " + string(ev.Kind)
		switch ev.Kind {
		case engine.KindStop:
			if c.closing && (ev.EndFP != fp || ev.EndSketch != sketch || ev.EndSays != says) {
				t.Errorf("%s: closing %q %q %q, want %q %q %q", name, ev.EndFP, ev.EndSketch, ev.EndSays, fp, sketch, says)
			}
			if !c.closing && ev.EndFP != "" {
				t.Errorf("%s: a closing fingerprint from a payload with no message", name)
			}
			if ev.Forced != c.forced {
				t.Errorf("%s: forced %v, want %v", name, ev.Forced, c.forced)
			}
		case engine.KindPrompt:
			if ev.PromptFP != engine.PromptFingerprint(prompt) {
				t.Errorf("%s: prompt fingerprint %q", name, ev.PromptFP)
			}
		default:
			t.Errorf("%s: decoded as %s", c.agent, ev.Kind)
		}
		rec, _ := json.Marshal(ev)
		for _, secret := range []string{"sk-live", "4242", "Awaiting", "deploy"} {
			if strings.Contains(string(rec), secret) {
				t.Errorf("%s: the record holds %q: %s", name, secret, rec)
			}
		}
	}
}
