package gemini

import "encoding/json"

// answer is the hook answer shape whose text reaches the model:
// hookSpecificOutput.additionalContext, which Gemini CLI wraps in
// <hook_context> and appends to the tool's result (AfterTool) or the
// user's prompt (BeforeAgent), or prepends to the first prompt
// (SessionStart).
type answer struct {
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// contextEvent reports whether additionalContext on a Gemini CLI event
// reaches the model. BeforeTool is not one: its answer can only block the
// call or rewrite its input.
func contextEvent(hookEvent string) bool {
	switch hookEvent {
	case "AfterTool", "BeforeAgent", "SessionStart":
		return true
	}
	return false
}

// Encode returns the answer for a hook event: one JSON object carrying the
// nudge as additional context, or nothing. It never sets a decision, so
// it never blocks a call, a turn or the session.
func (Agent) Encode(hookEvent, nudge string) []byte {
	if nudge == "" || !contextEvent(hookEvent) {
		return nil
	}
	var a answer
	a.HookSpecificOutput.HookEventName = hookEvent
	a.HookSpecificOutput.AdditionalContext = nudge
	b, _ := json.Marshal(a)
	return append(b, '\n')
}
