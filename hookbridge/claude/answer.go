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

// haltAnswer is the answer to an event of a halted run: Claude Code's own
// stop mechanism. On PreToolUse, permissionDecision "deny" with the reason
// the model reads, and "continue": false with the reason the user sees
// (proven in the real client by the end-to-end test: the call does not
// run, the session ends); on the events after a call and at a turn's end,
// "continue": false, which "stops Claude entirely and takes precedence"
// over any other hook's answer (a Stop hook's block included); on
// UserPromptSubmit, decision "block", which drops the prompt unprocessed
// and shows the user the reason.
type haltAnswer struct {
	Continue           *bool           `json:"continue,omitempty"`
	StopReason         string          `json:"stopReason,omitempty"`
	Decision           string          `json:"decision,omitempty"`
	Reason             string          `json:"reason,omitempty"`
	HookSpecificOutput *haltHookOutput `json:"hookSpecificOutput,omitempty"`
}

type haltHookOutput struct {
	HookEventName            string `json:"hookEventName"`
	PermissionDecision       string `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
	AdditionalContext        string `json:"additionalContext,omitempty"`
}

// EncodeHalt returns the answer to an event of a halted run (the
// hookbridge.Halter contract): PreToolUse refused and the session stopped,
// the nudge due, if any, after the reason; the agent stopped after a call
// (its nudge kept as context, for a session resumed later) and at a
// turn's end; a prompt blocked. Other events get the plain answer.
func (a Agent) EncodeHalt(hookEvent, reason, nudge string) []byte {
	stop := false
	h := haltAnswer{StopReason: reason}
	switch hookEvent {
	case "PreToolUse":
		h.Continue = &stop
		h.HookSpecificOutput = &haltHookOutput{HookEventName: hookEvent, PermissionDecision: "deny",
			PermissionDecisionReason: joinLines(reason, nudge)}
	case "PostToolUse", "PostToolUseFailure", "PostToolBatch":
		h.Continue = &stop
		if nudge != "" {
			h.HookSpecificOutput = &haltHookOutput{HookEventName: hookEvent, AdditionalContext: nudge}
		}
	case "Stop", "SubagentStop":
		h.Continue = &stop
	case "UserPromptSubmit":
		h = haltAnswer{Decision: "block", Reason: reason}
	default:
		return a.Encode(hookEvent, nudge)
	}
	b, _ := json.Marshal(h)
	return append(b, '\n')
}

// EncodeRefuse refuses a PreToolUse call alone (summary-only): denied
// with the reason, the nudge after it, and the session goes on. Other
// events get the plain answer.
func (a Agent) EncodeRefuse(hookEvent, reason, nudge string) []byte {
	if hookEvent != "PreToolUse" {
		return a.Encode(hookEvent, nudge)
	}
	h := haltAnswer{HookSpecificOutput: &haltHookOutput{HookEventName: hookEvent, PermissionDecision: "deny",
		PermissionDecisionReason: joinLines(reason, nudge)}}
	b, _ := json.Marshal(h)
	return append(b, '\n')
}

// joinLines is the reason with the nudge, when there is one, on the lines
// after it.
func joinLines(reason, nudge string) string {
	if nudge == "" {
		return reason
	}
	return reason + "\n" + nudge
}
