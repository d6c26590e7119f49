package codex

import "strconv"

// contextEvent reports whether Codex's schema for an event's answer has
// hookSpecificOutput.additionalContext, which Codex hands the model as a
// developer message of its own (seen in the real client: the captures in
// testdata/inject, and the end-to-end test).
func contextEvent(hookEvent string) bool {
	switch hookEvent {
	case "SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "SubagentStart":
		return true
	}
	return false
}

// Encode returns the answer for a hook event: one JSON object carrying the
// nudge as additional context, or nothing. Codex's output schemas reject
// unknown fields, so the object holds exactly hookSpecificOutput with
// hookEventName and additionalContext. Stop, SubagentStop and the
// compaction events have no context channel (only a block, which cully
// never sends, or a message for the user): they get nothing. It is written
// by hand, like the journal's records, so the hook links no reflection.
func (Agent) Encode(hookEvent, nudge string) []byte {
	if nudge == "" || !contextEvent(hookEvent) {
		return nil
	}
	b := make([]byte, 0, len(nudge)+96)
	b = append(b, `{"hookSpecificOutput":{"hookEventName":`...)
	b = strconv.AppendQuote(b, hookEvent)
	b = append(b, `,"additionalContext":`...)
	b = appendJSONString(b, nudge)
	return append(b, "}}\n"...)
}

// appendJSONString writes s as a JSON string (valid UTF-8 is kept as is;
// control characters, quotes and backslashes are escaped, and so are the
// bytes of invalid UTF-8, as U+FFFD).
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r == '\n':
			b = append(b, '\\', 'n')
		case r == '\t':
			b = append(b, '\\', 't')
		case r == '\r':
			b = append(b, '\\', 'r')
		case r < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[r>>4], hex[r&0xf])
		default:
			b = append(b, string(r)...)
		}
	}
	return append(b, '"')
}

// EncodeHalt returns the answer to an event of a halted run (the
// hookbridge.Halter contract), each exactly what the event's 0.171.0
// output schema accepts:
//
//   - PreToolUse: permissionDecision "deny" with the reason (the nudge
//     after it); Codex shows the model "Command blocked by PreToolUse hook:
//     <reason>" as the call's output. PreToolUse rejects "continue": false.
//   - PostToolUse: "continue": false, which ends the turn after the call
//     in flight, with the reason as stopReason and the nudge as context.
//   - Stop, SubagentStop: "continue": false, never a block (a block would
//     continue the turn).
//   - UserPromptSubmit: decision "block" with the reason: the prompt is
//     not run.
//
// Other events get the plain answer.
func (a Agent) EncodeHalt(hookEvent, reason, nudge string) []byte {
	b := make([]byte, 0, len(reason)+len(nudge)+160)
	switch hookEvent {
	case "PreToolUse":
		b = append(b, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":`...)
		if nudge != "" {
			reason += "\n" + nudge
		}
		b = appendJSONString(b, reason)
		b = append(b, '}')
	case "PostToolUse", "Stop", "SubagentStop":
		b = append(b, `{"continue":false,"stopReason":`...)
		b = appendJSONString(b, reason)
		if nudge != "" && contextEvent(hookEvent) {
			b = append(b, `,"hookSpecificOutput":{"hookEventName":`...)
			b = strconv.AppendQuote(b, hookEvent)
			b = append(b, `,"additionalContext":`...)
			b = appendJSONString(b, nudge)
			b = append(b, '}')
		}
	case "UserPromptSubmit":
		b = append(b, `{"decision":"block","reason":`...)
		b = appendJSONString(b, reason)
	default:
		return a.Encode(hookEvent, nudge)
	}
	return append(b, "}\n"...)
}

// EncodeRefuse refuses a pre-tool call alone (summary-only): EncodeHalt's
// refusal, which ends nothing here. Other events get the plain answer.
func (a Agent) EncodeRefuse(hookEvent, reason, nudge string) []byte {
	if hookEvent == "PreToolUse" {
		return a.EncodeHalt(hookEvent, reason, nudge)
	}
	return a.Encode(hookEvent, nudge)
}
