package cursor

import "encoding/json"

// Encode answers no Cursor hook. Before a tool, Cursor's answer carries a
// message to the model only beside a permission decision ("allow", "deny"
// or "ask"), and cully makes none but a halted run's refusal (EncodeHalt):
// answering "allow" would skip the user's own approval. After a tool,
// afterShellExecution, afterMCPExecution and afterFileEdit take no output;
// stop's followup_message would start a turn the user did not ask for.
// What the rules raise reaches the panel and `cully status`, and the skill
// tells the agent to look there.
func (Agent) Encode(hookEvent, nudge string) []byte { return nil }

// permissionAnswer is a permission hook's answer, from Cursor's hooks
// documentation: the decision, the message the user sees and the one the
// agent reads.
type permissionAnswer struct {
	Permission   string `json:"permission"`
	UserMessage  string `json:"user_message,omitempty"`
	AgentMessage string `json:"agent_message,omitempty"`
}

// promptAnswer is beforeSubmitPrompt's answer: whether the prompt goes on,
// and the message the user sees.
type promptAnswer struct {
	Continue    bool   `json:"continue"`
	UserMessage string `json:"user_message,omitempty"`
}

// EncodeHalt returns the answer to an event of a halted run (the
// hookbridge.Halter contract), from Cursor's documentation (no client runs
// here): a tool call about to run (preToolUse, beforeShellExecution,
// beforeMCPExecution) is denied, the reason shown to the user and, with
// the nudge after it, to the agent; beforeReadFile, whose answer is a
// permission only, is denied; a prompt (beforeSubmitPrompt) does not go
// on. It only ever denies: never "allow", which would skip the user's own
// approval. Cursor's stop can only start another turn (followup_message)
// and its after-tool hooks take no output: those, and the rest, get the
// plain answer (nothing).
func (a Agent) EncodeHalt(hookEvent, reason, nudge string) []byte {
	var b []byte
	switch hookEvent {
	case "preToolUse", "beforeShellExecution", "beforeMCPExecution":
		agent := reason
		if nudge != "" {
			agent += "\n" + nudge
		}
		b, _ = json.Marshal(permissionAnswer{Permission: "deny", UserMessage: reason, AgentMessage: agent})
	case "beforeReadFile":
		b, _ = json.Marshal(permissionAnswer{Permission: "deny"})
	case "beforeSubmitPrompt":
		b, _ = json.Marshal(promptAnswer{Continue: false, UserMessage: reason})
	default:
		return a.Encode(hookEvent, nudge)
	}
	return append(b, '\n')
}

// EncodeRefuse refuses a pre-tool call alone (summary-only): EncodeHalt's
// refusal, which ends nothing here. Other events get the plain answer.
func (a Agent) EncodeRefuse(hookEvent, reason, nudge string) []byte {
	if hookEvent == "preToolUse" || hookEvent == "beforeShellExecution" || hookEvent == "beforeMCPExecution" {
		return a.EncodeHalt(hookEvent, reason, nudge)
	}
	return a.Encode(hookEvent, nudge)
}
