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

// haltAnswer is the answer to an event of a halted run: a decision with
// its reason, or "continue": false with the reason to stop on. Gemini CLI
// reads stopReason before reason for both.
type haltAnswer struct {
	Continue   *bool  `json:"continue,omitempty"`
	StopReason string `json:"stopReason,omitempty"`
	Decision   string `json:"decision,omitempty"`
	Reason     string `json:"reason,omitempty"`
}

// EncodeHalt returns the answer to an event of a halted run (the
// hookbridge.Halter contract), as Gemini CLI 0.61.0's code reads it:
//
//   - BeforeTool: decision "deny" with the reason (the nudge after it):
//     the call does not run, and the model reads "Tool execution blocked:
//     <reason>" as its result.
//   - AfterTool: "continue": false: the agent's loop stops after the call
//     in flight, whose result the model is then shown as "Agent execution
//     stopped by hook: <reason>" (the nudge after it: that answer carries
//     no context).
//   - BeforeAgent: decision "deny": the prompt is blocked, not kept.
//   - AfterAgent: "continue": false: the turn ends (a deny would prompt the
//     model again).
//
// Other events get the plain answer.
func (a Agent) EncodeHalt(hookEvent, reason, nudge string) []byte {
	stop := false
	var h haltAnswer
	switch hookEvent {
	case "BeforeTool":
		h = haltAnswer{Decision: "deny", Reason: joinLines(reason, nudge)}
	case "AfterTool":
		h = haltAnswer{Continue: &stop, StopReason: joinLines(reason, nudge)}
	case "BeforeAgent":
		h = haltAnswer{Decision: "deny", Reason: reason}
	case "AfterAgent":
		h = haltAnswer{Continue: &stop, StopReason: reason}
	default:
		return a.Encode(hookEvent, nudge)
	}
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

// EncodeRefuse refuses a pre-tool call alone (summary-only): EncodeHalt's
// refusal, which ends nothing here. Other events get the plain answer.
func (a Agent) EncodeRefuse(hookEvent, reason, nudge string) []byte {
	if hookEvent == "BeforeTool" {
		return a.EncodeHalt(hookEvent, reason, nudge)
	}
	return a.Encode(hookEvent, nudge)
}
