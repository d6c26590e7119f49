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
// decision (EncodeHalt denies a halted run's call) and never blocks
// agentStop, which would continue the turn.
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

// denyAnswer refuses a preToolUse call: Copilot CLI's documented decision
// (its hooks reference), the only hook output of its own that can stop
// anything; the reason is what the model reads of the refused call.
type denyAnswer struct {
	PermissionDecision       string `json:"permissionDecision"`
	PermissionDecisionReason string `json:"permissionDecisionReason"`
}

// claudeDeny refuses the call of a Claude Code entry's PreToolUse that
// Copilot CLI runs (Hosts): Claude Code's own shape.
type claudeDeny struct {
	HookSpecificOutput struct {
		HookEventName            string `json:"hookEventName"`
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
	} `json:"hookSpecificOutput"`
}

// EncodeHalt returns the answer to an event of a halted run (the
// hookbridge.Halter contract): a pre-tool call refused, with the reason
// and the nudge after it. Copilot CLI has no way for a hook to stop its
// loop after a call or to block a prompt (postToolUse and
// userPromptSubmitted take context only; agentStop's block would continue
// the turn, the opposite of a halt): those events, and the others, get
// the plain answer, and the next call is refused.
func (a Agent) EncodeHalt(hookEvent, reason, nudge string) []byte {
	if nudge != "" {
		reason += "\n" + nudge
	}
	var b []byte
	switch hookEvent {
	case "preToolUse":
		b, _ = json.Marshal(denyAnswer{PermissionDecision: "deny", PermissionDecisionReason: reason})
	case "PreToolUse":
		var d claudeDeny
		d.HookSpecificOutput.HookEventName, d.HookSpecificOutput.PermissionDecision, d.HookSpecificOutput.PermissionDecisionReason = hookEvent, "deny", reason
		b, _ = json.Marshal(d)
	default:
		return a.Encode(hookEvent, nudge)
	}
	return append(b, '\n')
}

// EncodeRefuse refuses a pre-tool call alone (summary-only): EncodeHalt's
// refusal, which ends nothing here. Other events get the plain answer.
func (a Agent) EncodeRefuse(hookEvent, reason, nudge string) []byte {
	if hookEvent == "preToolUse" || hookEvent == "PreToolUse" {
		return a.EncodeHalt(hookEvent, reason, nudge)
	}
	return a.Encode(hookEvent, nudge)
}
