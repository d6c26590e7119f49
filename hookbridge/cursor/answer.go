package cursor

// Encode answers no Cursor hook. Before a tool, Cursor's answer carries a
// message to the model only beside a permission decision ("allow", "deny"
// or "ask"), and cully never makes one: answering "allow" would skip the
// user's own approval. After a tool, afterShellExecution, afterMCPExecution
// and afterFileEdit take no output; stop's followup_message would start a
// turn the user did not ask for. What the rules raise reaches the panel and
// `cully status`, and the skill tells the agent to look there.
func (Agent) Encode(hookEvent, nudge string) []byte { return nil }
