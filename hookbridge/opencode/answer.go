package opencode

import "encoding/json"

// answer is what the plugin reads back: context, which it appends to the
// tool's output, the text opencode hands the model as the call's result.
type answer struct {
	Context string `json:"context"`
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
