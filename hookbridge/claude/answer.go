package claude

import "encoding/json"

// answer is the hook answer shape that reaches the model:
// hookSpecificOutput.additionalContext. The end-to-end tests against the
// real client show the model reads it on the events contextEvent lists.
type answer struct {
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// contextEvent reports whether additionalContext on a Claude Code event
// reaches the model.
func contextEvent(hookEvent string) bool {
	switch hookEvent {
	case "PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "UserPromptSubmit", "SessionStart":
		return true
	}
	return false
}

// Encode returns the answer for a hook event: one JSON object carrying the
// nudge as additional context, or nothing. It never sets a permission
// decision, never blocks and never stops the agent.
func (Agent) Encode(hookEvent string, nudge string) []byte {
	if nudge == "" || !contextEvent(hookEvent) {
		return nil
	}
	var a answer
	a.HookSpecificOutput.HookEventName = hookEvent
	a.HookSpecificOutput.AdditionalContext = nudge
	b, _ := json.Marshal(a)
	return append(b, '\n')
}
