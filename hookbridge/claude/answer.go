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

// haltAnswer refuses a tool call and stops the agent: Claude Code's own
// stop mechanism for a PreToolUse hook (permissionDecision "deny" with the
// reason the model reads, and "continue": false with the reason the user
// sees), proven in the real client by the end-to-end test.
type haltAnswer struct {
	Continue           bool   `json:"continue"`
	StopReason         string `json:"stopReason"`
	HookSpecificOutput struct {
		HookEventName            string `json:"hookEventName"`
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
	} `json:"hookSpecificOutput"`
}

// EncodeHalt returns the answer that refuses a PreToolUse call of a halted
// run (enforce mode), with the nudge due, if any, after the reason. Other
// events get the plain answer: only a call about to run can be refused.
func (a Agent) EncodeHalt(hookEvent, reason, nudge string) []byte {
	if hookEvent != "PreToolUse" {
		return a.Encode(hookEvent, nudge)
	}
	var h haltAnswer
	h.StopReason = reason
	h.HookSpecificOutput.HookEventName = hookEvent
	h.HookSpecificOutput.PermissionDecision = "deny"
	h.HookSpecificOutput.PermissionDecisionReason = reason
	if nudge != "" {
		h.HookSpecificOutput.PermissionDecisionReason += "\n" + nudge
	}
	b, _ := json.Marshal(h)
	return append(b, '\n')
}
