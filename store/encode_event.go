package store

import (
	"strconv"
	"time"
	"unicode/utf8"

	"cully/engine"
)

// AppendEvent appends the event as one JSON object, exactly as encoding/json
// would write it (same keys, same omissions; a test holds the two equal).
// The hook writes a record per call, and a hand-written encoder spares each
// short-lived hook process encoding/json's reflection warm-up.
func AppendEvent(b []byte, e *engine.Event) []byte {
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, int64(e.V), 10)
	b = appendField(b, "ts")
	b = appendTime(b, e.Time)
	b = appendStr(b, "agent", e.Agent, false)
	b = appendStr(b, "session", e.Session, false)
	b = appendField(b, "task")
	b = strconv.AppendInt(b, int64(e.Task), 10)
	b = appendStr(b, "hook", e.Hook, true)
	b = appendStr(b, "kind", string(e.Kind), false)
	b = appendStr(b, "subagent", e.Subagent, true)
	b = appendStr(b, "source", e.Source, true)
	b = appendStr(b, "cwd", e.Cwd, true)
	b = appendStr(b, "tool", e.Tool, true)
	b = appendStr(b, "tool_use_id", e.ToolUseID, true)
	b = appendStr(b, "prompt_id", e.PromptID, true)
	b = appendStr(b, "traceparent", e.TraceParent, true)
	b = appendStr(b, "tmux_pane", e.Pane, true)
	b = appendStr(b, "class", string(e.Class), true)
	b = appendStr(b, "target", e.Target, true)
	b = appendList(b, "files", e.Files, appendQuoted)
	if e.Size != nil {
		b = appendField(b, "size")
		b = strconv.AppendInt(b, *e.Size, 10)
	}
	if e.Mtime != nil {
		b = appendField(b, "mtime")
		b = appendTime(b, *e.Mtime)
	}
	if e.Ranged {
		b = append(b, `,"ranged":true`...)
	}
	if e.Bounded {
		b = append(b, `,"bounded":true`...)
	}
	b = appendStr(b, "cmd_fp", e.CmdFP, true)
	b = appendStr(b, "cmd", e.Cmd, true)
	b = appendStr(b, "outcome", string(e.Outcome), true)
	if e.Exit != nil {
		b = appendField(b, "exit")
		b = strconv.AppendInt(b, int64(*e.Exit), 10)
	}
	b = appendStr(b, "fail_sig", e.FailSig, true)
	b = appendStr(b, "err_sig", e.ErrSig, true)
	b = appendStr(b, "missing", e.Missing, true)
	b = appendStr(b, "family_fp", e.FamilyFP, true)
	b = appendStr(b, "call_fp", e.CallFP, true)
	b = appendStr(b, "out_fp", e.OutFP, true)
	b = appendStr(b, "search_fp", e.SearchFP, true)
	if e.Matches != nil {
		b = strconv.AppendInt(appendField(b, "matches"), int64(*e.Matches), 10)
	}
	b = appendStr(b, "filter_fp", e.FilterFP, true)
	b = appendStr(b, "plain_fp", e.PlainFP, true)
	b = appendStr(b, "note", e.Note, true)
	b = appendStr(b, "advice", e.Advice, true)
	if e.Changes {
		b = append(b, `,"changes":true`...)
	}
	if e.Created {
		b = append(b, `,"created":true`...)
	}
	b = appendStr(b, "destructive", e.Destructive, true)
	if t := e.Tests; t != nil {
		b = appendTestCounts(append(b, `,"tests":`...), t)
	}
	if p := e.Plan; p != nil {
		b = strconv.AppendInt(append(b, `,"plan":{"done":`...), int64(p.Done), 10)
		b = appendInt(b, "total", p.Total, false)
		b = append(b, '}')
	}
	b = appendStr(b, "end_fp", e.EndFP, true)
	b = appendStr(b, "end_sketch", e.EndSketch, true)
	b = appendStr(b, "end_says", e.EndSays, true)
	b = appendStr(b, "end_claim", e.EndClaim, true)
	if e.Forced {
		b = append(b, `,"forced":true`...)
	}
	b = appendStr(b, "prompt_fp", e.PromptFP, true)
	if e.Attended != nil {
		b = appendField(b, "attended")
		b = strconv.AppendBool(b, *e.Attended)
	}
	if e.Quiet {
		b = append(b, `,"quiet":true`...)
	}
	if e.Defer {
		b = append(b, `,"defer":true`...)
	}
	if e.NoSnapshots {
		b = append(b, `,"no_snapshots":true`...)
	}
	b = appendList(b, "prompt_cmds", e.PromptCmds, appendQuoted)
	b = appendList(b, "ack", e.Ack, appendQuoted)
	b = appendList(b, "tell", e.Tell, appendQuoted)
	b = appendList(b, "rejected", e.Rejected, func(b []byte, r engine.Rejected) []byte {
		b = append(b, `{"tool":`...)
		b = appendQuoted(b, r.Tool)
		b = appendStr(b, "class", string(r.Class), true)
		b = appendStr(b, "target", r.Target, true)
		b = appendStr(b, "fp", r.FP, false)
		b = appendStr(b, "sig", r.Sig, false)
		return append(b, '}')
	})
	if e.Usage != nil {
		b = appendUsage(appendField(b, "usage"), e.Usage)
	}
	if e.Transcript != nil {
		b = appendTranscript(appendField(b, "transcript"), e.Transcript)
	}
	b = appendStr(b, "run", e.Run, true)
	if e.Step != nil {
		b = strconv.AppendInt(appendField(b, "step"), int64(*e.Step), 10)
	}
	b = appendList(b, "paths", e.Paths, appendQuoted)
	b = appendInt(b, "path_count", e.PathCount, true)
	b = appendList(b, "signals", e.Signals, func(b []byte, s engine.Signal) []byte {
		b = append(b, `{"kind":`...)
		b = appendQuoted(b, string(s.Kind))
		b = appendStr(b, "reason", string(s.Reason), true)
		b = appendStr(b, "id", s.ID, true)
		b = appendStr(b, "evidence", s.Evidence, true)
		b = appendStr(b, "text", s.Text, true)
		b = appendInt(b, "n", s.N, true)
		return append(b, '}')
	})
	return append(b, '}')
}

// appendList writes a non-empty slice as a JSON array field (omitempty).
func appendList[T any](b []byte, k string, list []T, item func([]byte, T) []byte) []byte {
	if len(list) == 0 {
		return b
	}
	b = append(appendField(b, k), '[')
	for i, x := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = item(b, x)
	}
	return append(b, ']')
}

func appendField(b []byte, k string) []byte {
	b = append(b, ',', '"')
	b = append(b, k...)
	return append(b, '"', ':')
}

func appendStr(b []byte, k, v string, omitEmpty bool) []byte {
	if omitEmpty && v == "" {
		return b
	}
	return appendQuoted(appendField(b, k), v)
}

func appendOptInt(b []byte, k string, v *int64) []byte {
	if v == nil {
		return b
	}
	return strconv.AppendInt(appendField(b, k), *v, 10)
}

func appendTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}

const hexDigits = "0123456789abcdef"

// appendQuoted writes a JSON string with encoding/json's escaping: control
// characters, quotes, backslashes, <, >, &, U+2028/9, and invalid UTF-8 as
// U+FFFD; and, beyond it, DEL, the C1 controls and the bidirectional
// controls as \uNNNN, so that the journal shown on a terminal (tail, less)
// is as safe as cully's own output.
func appendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' && c != 0x7f {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' || engine.IsControl(r) {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', hexDigits[r>>12&0xF], hexDigits[r>>8&0xF], hexDigits[r>>4&0xF], hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendTestCounts appends a check's own figures as one object.
func appendTestCounts(b []byte, t *engine.TestCounts) []byte {
	b = appendQuoted(append(b, `{"runner":`...), t.Runner)
	b = appendInt(b, "passed", t.Passed, false)
	b = appendInt(b, "failed", t.Failed, false)
	b = appendInt(b, "errors", t.Errors, false)
	b = appendInt(b, "skipped", t.Skipped, false)
	if t.Counted {
		b = append(b, `,"counted":true`...)
	}
	return append(b, '}')
}
