package copilot

import "encoding/json"

// answer is the hook answer shape that reaches the model: a top-level
// additionalContext. Measured in the real client (1.0.102): on preToolUse
// the model reads it as a user message after the call's result, on
// postToolUse appended to the result, on postToolUseFailure as a user
// message after the error, on userPromptSubmitted appended to the prompt,
// on sessionStart as a user message before it.
type answer struct {
	AdditionalContext string `json:"additionalContext"`
}

// contextEvent reports whether additionalContext on a Copilot CLI event
// reaches the model.
func contextEvent(hookEvent string) bool {
	switch hookEvent {
	case "preToolUse", "postToolUse", "postToolUseFailure", "userPromptSubmitted", "sessionStart":
		return true
	}
	return false
}

// claudeAnswer is the answer to a Claude Code entry's PreToolUse that
// Copilot CLI runs (Hosts): Claude Code's own shape, which Copilot CLI was
// seen to show the model there as it shows its own preToolUse context.
type claudeAnswer struct {
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// Encode returns the answer for a hook event: one JSON object carrying the
// nudge as additional context, or nothing. It never sets a permission
// decision and never blocks agentStop: cully has no mode that stops an
// agent (the `unattended = "stop"` setting only words the nudge).
func (Agent) Encode(hookEvent, nudge string) []byte {
	var b []byte
	switch {
	case nudge == "":
		return nil
	case contextEvent(hookEvent):
		b, _ = json.Marshal(answer{AdditionalContext: nudge})
	case hookEvent == "PreToolUse":
		var a claudeAnswer
		a.HookSpecificOutput.HookEventName, a.HookSpecificOutput.AdditionalContext = hookEvent, nudge
		b, _ = json.Marshal(a)
	default:
		return nil
	}
	return append(b, '\n')
}
