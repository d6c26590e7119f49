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

// Encode returns the answer for a hook event: one JSON object carrying the
// nudge as additional context, or nothing. It never sets a permission
// decision and never blocks agentStop: cully has no mode that stops an
// agent (the `unattended = "stop"` setting only words the nudge).
func (Agent) Encode(hookEvent, nudge string) []byte {
	if nudge == "" || !contextEvent(hookEvent) {
		return nil
	}
	b, _ := json.Marshal(answer{AdditionalContext: nudge})
	return append(b, '\n')
}
