package opencode

import "encoding/json"

// answer is what the plugin reads back: context, which it appends to the
// tool's output, the text opencode hands the model as the call's result;
// or, before a call, block: the plugin then throws an Error with it as the
// message, opencode's own way to refuse a call (the call does not run, and
// the model reads the message as its error).
type answer struct {
	Context string `json:"context,omitempty"`
	Block   string `json:"block,omitempty"`
}

// Encode returns the answer for an event: one JSON object with the nudge
// as context, for tool.execute.after only (nothing else the plugin sees
// reaches the model). It never asks the plugin to block or stop anything.
func (Agent) Encode(hookEvent, nudge string) []byte {
	if nudge == "" || hookEvent != evAfter {
		return nil
	}
	b, _ := json.Marshal(answer{Context: nudge})
	return append(b, '\n')
}

// EncodeHalt returns the answer to an event of a halted run (the
// hookbridge.Halter contract): tool.execute.before is refused, with the
// reason and the nudge after it as the message the plugin throws. No
// other hook of the plugin can stop opencode's loop or block a prompt:
// those get the plain answer, and the next call is refused.
func (a Agent) EncodeHalt(hookEvent, reason, nudge string) []byte {
	if hookEvent != evBefore {
		return a.Encode(hookEvent, nudge)
	}
	if nudge != "" {
		reason += "\n" + nudge
	}
	b, _ := json.Marshal(answer{Block: reason})
	return append(b, '\n')
}

// EncodeRefuse refuses a pre-tool call alone (summary-only): EncodeHalt's
// refusal, which ends nothing here. Other events get the plain answer.
func (a Agent) EncodeRefuse(hookEvent, reason, nudge string) []byte {
	if hookEvent == evBefore {
		return a.EncodeHalt(hookEvent, reason, nudge)
	}
	return a.Encode(hookEvent, nudge)
}
