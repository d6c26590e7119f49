package codex

import (
	"hash/fnv"
	"strconv"

	"cully/engine"
	"cully/hookbridge"
	"cully/jsonlite"
)

// maxRead bounds what one hook call reads of the rollout: the lines
// written since the session's last call are a few KiB (a command's output
// is in them twice, in its completion record and in the model's input);
// when more than this has been written since (a hook installed in the
// middle of a long session, an output of megabytes), the call reads only
// the last maxRead bytes, from the first whole line in them. Reading 4 MiB
// takes about a millisecond; a record it skipped leaves its call's outcome
// unknown.
const maxRead = 4 << 20

// maxExits bounds the outcomes kept for calls whose hook has not come yet
// (parallel calls, read by another call's hook first). A call whose
// PostToolUse never comes (denied by another hook, interrupted) would
// otherwise stay forever: the oldest go first.
const maxExits = 16

// rolloutFile names a rollout in the session's state without keeping its
// path: a 64-bit FNV-1a of the path, in hex.
func rolloutFile(path string) string {
	h := fnv.New64a()
	h.Write([]byte(path))
	return strconv.FormatUint(h.Sum64(), 16)
}

// Complete reads the rollout on from where the session's last call
// stopped: the outcomes of the calls that ended since, the token counts
// and the model's context window. A PostToolUse whose call's outcome it
// finds is decoded again with it; its usage goes on the event only when it
// changed.
func (Agent) Complete(raw []byte, env hookbridge.Env, ev *engine.Event, st *engine.State) {
	model := ""
	if ev.Usage != nil {
		model = ev.Usage.Model
	}
	usage := engine.HostUsage{}
	if st.Usage != nil {
		usage = *st.Usage
	}
	if model != "" {
		usage.Model = model
	}
	if ev.TranscriptPath != "" {
		pos := engine.TranscriptPos{File: rolloutFile(ev.TranscriptPath)}
		if st.Transcript != nil && st.Transcript.File == pos.File {
			pos = *st.Transcript.Clone()
		}
		var meta rolloutMeta
		if readRollout(ev.TranscriptPath, &pos, &usage, &meta) {
			ev.Transcript = &pos
		}
		if meta.seen { // the rollout's first line: `codex exec` runs with nobody watching
			attended := !meta.exec
			ev.Attended = &attended
		}
		if ev.Kind == engine.KindPostTool && ev.ToolUseID != "" {
			if end, ok := claim(&pos, ev.ToolUseID); ok {
				ev.Transcript = &pos
				if p, err := jsonlite.ParseObject(raw); err == nil {
					if again, err := decodePayload(p, env, &end); err == nil {
						again.Time, again.TranscriptPath = ev.Time, ev.TranscriptPath
						*ev = *again
						ev.Transcript = &pos
					}
				}
			}
		}
	}
	ev.Usage = nil
	if !st.Usage.Equal(&usage) {
		ev.Usage = &usage
	}
}

// claim takes a call's outcome out of the position's list.
func claim(pos *engine.TranscriptPos, id string) (ended, bool) {
	for i, x := range pos.Exits {
		if x.ID == id {
			pos.Exits = append(pos.Exits[:i:i], pos.Exits[i+1:]...)
			return ended{exit: x.Exit, status: x.Status}, true
		}
	}
	return ended{}, false
}

// readRollout reads what was written to the rollout after pos.Off, up to
// its last whole line, into pos (the outcomes) and u (the token counts). It
// reports whether it moved pos.
func readRollout(path string, pos *engine.TranscriptPos, u *engine.HostUsage, meta *rolloutMeta) bool {
	lines, next, rewritten, ok := hookbridge.ReadOn(path, pos.Off, maxRead)
	if rewritten { // shorter than what was read of it: rewritten, read anew
		pos.Off, pos.Exits = 0, nil
	}
	if !ok {
		return false
	}
	for _, line := range lines {
		readLine(line, pos, u, meta)
	}
	if n := len(pos.Exits); n > maxExits {
		pos.Exits = append(pos.Exits[:0:0], pos.Exits[n-maxExits:]...)
	}
	pos.Off = next
	return true
}

// rolloutMeta is what the rollout's first line (session_meta) says of the
// session: seen, and whether `codex exec` runs it (originator
// "codex_exec", source "exec"): headless, nobody watching.
type rolloutMeta struct{ seen, exec bool }

// skipLine ends a walk of a rollout line's members early: the line holds
// nothing the hook reads, or what it reads has been found.
const skipLine = decodeError("skip")

// readLine takes from one rollout line what the hook payloads lack:
//
//	{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"CommandExecution","id":"call_1","status":"failed","exit_code":3,…}}}
//	{"type":"event_msg","payload":{"type":"task_started","model_context_window":258400,…}}
//	{"type":"token_usage_record","payload":{"usage":{"input_tokens":1000,…},"thread_token_usage":{"input_tokens":1000,"output_tokens":50,…}}}
//	{"type":"session_meta","payload":{"originator":"codex_exec","source":"exec",…}}
//
// Other lines are left at their "type", which comes before their payload.
func readLine(line []byte, pos *engine.TranscriptPos, u *engine.HostUsage, meta *rolloutMeta) {
	var typ, payload []byte
	_ = jsonlite.Members(line, func(k, v []byte) error {
		switch string(k) {
		case `"type"`:
			typ = v
			if string(v) != `"event_msg"` && string(v) != `"token_usage_record"` && string(v) != `"session_meta"` {
				return skipLine
			}
		case `"payload"`:
			payload = v
		}
		if typ != nil && payload != nil {
			return skipLine
		}
		return nil
	})
	if payload == nil {
		return
	}
	p := jsonlite.AsObject(payload)
	if string(typ) == `"session_meta"` {
		if meta != nil {
			meta.seen, meta.exec = true, p.Str("originator") == "codex_exec" || p.Str("source") == "exec"
		}
		return
	}
	if string(typ) == `"token_usage_record"` {
		if last := p.Sub("usage"); last != nil {
			setInt(&u.ContextTokens, last["input_tokens"])
		}
		if all := p.Sub("thread_token_usage"); all != nil {
			setTotals(u, all)
		}
		return
	}
	switch p.Str("type") {
	case "item_completed":
		item := p.Sub("item")
		id, status := item.Str("id"), item.Str("status")
		if id == "" || status == "" {
			return // a message, not a call
		}
		x := engine.CallExit{ID: id, Status: status}
		if v := item["exit_code"]; len(v) > 0 && string(v) != "null" {
			n := int(jsonlite.Int(v))
			x.Exit = &n
		}
		for i := range pos.Exits {
			if pos.Exits[i].ID == id {
				pos.Exits[i] = x
				return
			}
		}
		pos.Exits = append(pos.Exits, x)
	case "task_started":
		setInt(&u.ContextWindow, p["model_context_window"])
	case "token_count":
		info := p.Sub("info")
		setInt(&u.ContextWindow, info["model_context_window"])
		if all := info.Sub("total_token_usage"); all != nil {
			setTotals(u, all)
		}
		if last := info.Sub("last_token_usage"); last != nil {
			setInt(&u.ContextTokens, last["input_tokens"])
		}
	}
}

// setInt sets *dst to a JSON number (a null or a missing value leaves it).
// setTotals takes a session's token totals. Codex counts cached input
// inside input_tokens (total_tokens is input plus output): the cached part
// is taken out into CacheReadTokens, so InputTokens is uncached input as
// for every host.
func setTotals(u *engine.HostUsage, all jsonlite.Object) {
	setInt(&u.InputTokens, all["input_tokens"])
	setInt(&u.OutputTokens, all["output_tokens"])
	setInt(&u.CacheReadTokens, all["cached_input_tokens"])
	setInt(&u.CacheWriteTokens, all["cache_write_input_tokens"])
	if u.InputTokens != nil && u.CacheReadTokens != nil && *u.CacheReadTokens <= *u.InputTokens {
		n := *u.InputTokens - *u.CacheReadTokens
		u.InputTokens = &n
	}
}

func setInt(dst **int64, v []byte) {
	if len(v) == 0 || v[0] < '0' || v[0] > '9' {
		return
	}
	n := jsonlite.Int(v)
	*dst = &n
}
