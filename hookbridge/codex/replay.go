package codex

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"cully/engine"
	"cully/hookbridge"
	"cully/jsonlite"
)

// A rollout is JSON lines, {"timestamp","type","payload"} each. Replay
// turns its records into the hook events the session would have produced,
// by building each hook's payload and decoding it with the hook's own
// decoder (decodePayload), so a replayed call is the event the hook would
// have recorded, its outcome included:
//
//   - session_meta: SessionStart (its payload names the session and the cwd);
//   - event_msg task_started (a turn; older rollouts: user_message): UserPromptSubmit,
//     with the prompt of the turn's user_message when one follows before any
//     other event;
//   - event_msg task_complete: Stop, with the turn's last_agent_message;
//   - response_item function_call, custom_tool_call, local_shell_call: PreToolUse,
//     a shell command as Bash with its command line, a patch as apply_patch;
//   - response_item function_call_output, custom_tool_call_output: PostToolUse,
//     with the call's outcome from event_msg item_completed (0.171) or
//     exec_command_end (older rollouts), else from the output's own words
//     ("Process exited with code N", "Exit code: N", metadata.exit_code);
//   - event_msg context_compacted, response_item compaction: PreCompact;
//   - token_usage_record, event_msg token_count: the usage, on the next event.
//
// A rollout holds no file sizes or modification times, so events carry
// none. A subagent's thread is a rollout of its own, replayed as its own
// session.

// Record: Codex calls its recorded sessions rollouts.
func (Agent) Record() string { return "rollout" }

// RecordDirs: Codex keeps its rollouts under sessions/ in its home
// ($CODEX_HOME, else ~/.codex), by date.
func (Agent) RecordDirs(getenv func(string) string) ([]string, error) {
	d, err := home(getenv)
	if err != nil {
		return nil, err
	}
	return []string{filepath.Join(d, "sessions")}, nil
}

// Identify: a rollout opens with a session_meta record whose payload names
// the session ("id"); older ones may start with other records, so the first
// lines are read until one does.
func (Agent) Identify(head io.Reader) (session, why string) {
	const maxLines, maxBytes = 200, 8 << 20
	lines, objects, rollout := 0, 0, false
	head = io.LimitReader(head, maxBytes)
	_, err := hookbridge.Lines(head, func(line []byte) error {
		lines++
		var typ, payload []byte
		err := jsonlite.Members(line, func(k, v []byte) error {
			switch string(k) {
			case `"type"`:
				typ = v
			case `"payload"`:
				payload = v
			}
			return nil
		})
		if err == nil {
			objects++
		}
		switch string(typ) {
		case `"session_meta"`:
			rollout = true
			if id := jsonlite.AsObject(payload).Str("id"); id != "" {
				session = id
				return hookbridge.ErrStop
			}
		case `"response_item"`, `"event_msg"`, `"turn_context"`:
			rollout = true
		}
		if lines >= maxLines {
			return hookbridge.ErrStop
		}
		return nil
	})
	switch {
	case session != "":
		return session, ""
	case err != nil:
		return "", err.Error()
	case lines == 0:
		return "", "empty file"
	case objects == 0:
		return "", "not a Codex rollout (not JSON lines)"
	case rollout:
		return "", "not a Codex rollout (no session_meta names its session)"
	}
	return "", "not a Codex rollout (no session_meta, response_item or event_msg record)"
}

// player turns rollout records into events.
type player struct {
	cfg     *engine.Config
	fn      func(ev *engine.Event) error
	st      hookbridge.ReplayStats
	session []byte // raw JSON strings, as payload values
	cwd     []byte
	model   []byte
	turns   bool                       // a task_started was seen: prompts come from those
	pending map[string]jsonlite.Object // call_id → its PreToolUse payload
	// held are the PostToolUse payloads of commands still running when
	// their call returned ("Process running with session ID N"), by that
	// session id: Codex's hook fires the command's one PostToolUse when a
	// later write_stdin poll sees it end (openai/codex#18888), with the
	// poll's output, so the replay plays it there (heldIDs: their call ids).
	held     map[string]jsonlite.Object
	heldIDs  map[string]string
	ends     map[string]ended // call_id → how it ended, as recorded before its output
	usage    engine.HostUsage // the figures read so far
	fresh    bool             // they changed since the last event
	lastSeen time.Time
	// forkID is the rollout's own id when it is a fork (a subagent's
	// thread spawned from another), whose opening copies the parent's
	// history; copying is true while that copy is being read: it is the
	// parent's work, replayed from the parent's own rollout, not the fork's.
	forkID  string
	copying bool
	// headless: the rollout's session_meta says `codex exec` ran it; the
	// session start says so (Event.Attended), as the hook's Complete does.
	headless bool
	// prompt is a turn's UserPromptSubmit not played yet, waiting for the
	// user_message that holds its text (promptAt: the turn's start).
	prompt   bool
	promptAt time.Time
}

func newPlayer(cfg *engine.Config, fn func(ev *engine.Event) error) *player {
	return &player{cfg: cfg, fn: fn, pending: map[string]jsonlite.Object{}, ends: map[string]ended{},
		held: map[string]jsonlite.Object{}, heldIDs: map[string]string{}}
}

// Replay reads one rollout and calls fn with each event, in the order of
// its lines.
func (Agent) Replay(r io.Reader, cfg *engine.Config, fn func(ev *engine.Event) error) (hookbridge.ReplayStats, error) {
	p := newPlayer(cfg, fn)
	if err := p.read(r); err != nil {
		return p.st, err
	}
	return p.st, p.flushPrompt()
}

// ReplaySession reads every file of one session: a rollout is one file
// (a resumed session appends to it), so the files are played one after
// the other, each line taken once.
func (Agent) ReplaySession(files []io.Reader, cfg *engine.Config, fn func(ev *engine.Event) error) (hookbridge.ReplayStats, error) {
	p := newPlayer(cfg, fn)
	seen := map[string]struct{}{}
	for _, f := range files {
		if err := p.readUnique(f, seen); err != nil {
			return p.st, err
		}
	}
	return p.st, p.flushPrompt()
}

// flushPrompt plays the turn's prompt still waiting for its text, without it.
func (p *player) flushPrompt() error {
	if !p.prompt {
		return nil
	}
	p.prompt = false
	return p.decode(p.base(hookPrompt), p.promptAt, nil)
}

func (p *player) read(r io.Reader) error { return p.readUnique(r, nil) }

// readUnique plays every line of r; with seen, a line met before (in
// another copy of the rollout) is counted and skipped.
func (p *player) readUnique(r io.Reader, seen map[string]struct{}) error {
	long, err := hookbridge.Lines(r, func(line []byte) error {
		p.st.Lines++
		if seen != nil {
			if _, dup := seen[string(line)]; dup {
				p.st.Duplicates++
				return nil
			}
			seen[string(line)] = struct{}{}
		}
		return p.line(line)
	})
	p.st.Lines += long
	p.st.Corrupt += long
	if err != nil {
		return fmt.Errorf("read rollout: %w", err)
	}
	return nil
}

var (
	hookStart   = []byte(`"SessionStart"`)
	hookPrompt  = []byte(`"UserPromptSubmit"`)
	hookPre     = []byte(`"PreToolUse"`)
	hookPost    = []byte(`"PostToolUse"`)
	hookCompact = []byte(`"PreCompact"`)
	hookStop    = []byte(`"Stop"`)
	toolBash    = []byte(`"Bash"`)
	toolApply   = []byte(`"apply_patch"`)
	srcReplay   = []byte(`"replay"`)
	srcResume   = []byte(`"resume"`)
	srcStartup  = []byte(`"startup"`)
)

// line plays one record.
func (p *player) line(line []byte) error {
	var typ, payload, ts []byte
	err := jsonlite.Members(line, func(k, v []byte) error {
		switch string(k) {
		case `"type"`:
			typ = v
		case `"payload"`:
			payload = v
		case `"timestamp"`:
			ts = v
		}
		return nil
	})
	if err != nil {
		p.st.Corrupt++
		return nil
	}
	at := p.lastSeen
	if t, err := time.Parse(time.RFC3339Nano, jsonlite.Str(ts)); err == nil {
		at = t
		p.lastSeen = t
	}
	pl := jsonlite.AsObject(payload)
	if p.forkID != "" && string(typ) != `"session_meta"` {
		// Turn ids are UUIDv7, ordered by time: a turn older than the fork
		// is the parent's, copied; the fork's own turns start after it.
		if t := turnID(typ, pl); t != "" {
			p.copying = t < p.forkID
		}
		if p.copying {
			p.st.Duplicates++
			return nil
		}
	}
	switch string(typ) {
	case `"session_meta"`:
		first := p.session == nil
		if first && pl.Str("forked_from_id") != "" {
			p.forkID = pl.Str("id")
		}
		if !first && p.forkID != "" && pl.Str("id") != p.forkID {
			p.copying = true // the parent's meta opens the copy of its history
			return nil
		}
		// Bytes kept across lines are copied: hookbridge.Lines reuses its
		// buffer (kept as slices, a session's id turned to garbage after
		// the first megabyte of its rollout).
		if id := pl["id"]; len(id) > 2 {
			p.session = bytes.Clone(id)
		}
		if cwd := pl["cwd"]; len(cwd) > 0 {
			p.cwd = bytes.Clone(cwd)
		}
		src := srcStartup
		if !first {
			src = srcResume
		}
		if first {
			p.headless = pl.Str("originator") == "codex_exec" || pl.Str("source") == "exec"
		}
		o := p.base(hookStart)
		o["source"] = src
		return p.decode(o, at, nil)
	case `"turn_context"`:
		if cwd := pl["cwd"]; len(cwd) > 0 {
			p.cwd = bytes.Clone(cwd)
		}
		if m := pl["model"]; len(m) > 2 {
			p.model = bytes.Clone(m)
		}
	case `"token_usage_record"`, `"event_msg"`:
		return p.event(typ, line, pl, at)
	case `"response_item"`:
		return p.item(pl, at)
	case `"compacted"`:
		o := p.base(hookCompact)
		o["trigger"] = srcReplay
		return p.decode(o, at, nil)
	}
	return nil
}

// event plays an event_msg (or a token record): turns, outcomes, usage.
func (p *player) event(typ, line []byte, pl jsonlite.Object, at time.Time) error {
	pos := engine.TranscriptPos{}
	u := p.usage
	readLine(line, &pos, &u, nil) // the hook's own reading: outcomes and figures
	if !u.Equal(&p.usage) {
		p.usage, p.fresh = u, true
	}
	for _, x := range pos.Exits {
		p.ends[x.ID] = ended{exit: x.Exit, status: x.Status}
	}
	if string(typ) != `"event_msg"` {
		return nil
	}
	switch pl.Str("type") {
	case "task_started":
		if err := p.flushPrompt(); err != nil {
			return err
		}
		p.turns, p.prompt, p.promptAt = true, true, at
	case "user_message":
		switch {
		case p.prompt: // the text of the turn's prompt
			p.prompt = false
			o := p.base(hookPrompt)
			o["prompt"] = bytes.Clone(pl["message"])
			return p.decode(o, p.promptAt, nil)
		case !p.turns:
			o := p.base(hookPrompt)
			o["prompt"] = bytes.Clone(pl["message"])
			return p.decode(o, at, nil)
		}
	case "task_complete":
		o := p.base(hookStop)
		o["last_assistant_message"] = bytes.Clone(pl["last_agent_message"])
		return p.decode(o, at, nil)
	case "exec_command_end": // older rollouts: the outcome of a command
		if id := pl.Str("call_id"); id != "" {
			if v := pl["exit_code"]; len(v) > 0 && v[0] != 'n' {
				n := int(jsonlite.Int(v))
				p.ends[id] = ended{exit: &n}
			}
		}
	case "context_compacted":
		o := p.base(hookCompact)
		o["trigger"] = srcReplay
		return p.decode(o, at, nil)
	}
	return nil
}

// item plays a response_item: tool calls and their outputs.
func (p *player) item(pl jsonlite.Object, at time.Time) error {
	switch pl.Str("type") {
	case "function_call", "custom_tool_call", "local_shell_call":
		id := pl.Str("call_id")
		if id == "" {
			id = pl.Str("id")
		}
		name, input := toolCall(pl)
		o := p.base(hookPre)
		o["tool_name"], o["tool_input"], o["tool_use_id"] = bytes.Clone(name), bytes.Clone(input), quote(id)
		p.pending[id] = o
		return p.decode(o, at, nil)
	case "function_call_output", "custom_tool_call_output":
		id := pl.Str("call_id")
		pre := p.pending[id]
		if pre == nil {
			p.st.Skipped++
			return nil
		}
		delete(p.pending, id)
		out := OutputText(pl["output"])
		o := make(jsonlite.Object, len(pre)+1)
		for k, v := range pre {
			o[k] = v
		}
		o["hook_event_name"], o["tool_response"] = hookPost, quote(out)
		_, endKnown := p.ends[id]
		if sid, ok := runningSession(out); ok && !endKnown && string(pre["tool_name"]) == string(toolBash) {
			p.held[sid], p.heldIDs[sid] = o, id // played when a poll sees it end
			return nil
		}
		var end *ended
		if e, ok := p.ends[id]; ok {
			delete(p.ends, id)
			end = &e
		} else if e, ok := endFromOutput(pl["output"], out); ok {
			end = &e
		}
		if err := p.polledEnd(pre, out, end, at); err != nil {
			return err
		}
		return p.decode(o, at, end)
	case "compaction":
		o := p.base(hookCompact)
		o["trigger"] = srcReplay
		return p.decode(o, at, nil)
	}
	return nil
}

// polledEnd plays the held PostToolUse of the command a write_stdin call
// polled, when the poll's answer says the command ended: its exit status
// from the rollout's own record of the command when there is one, else
// from the poll's words, and the poll's output as the command's.
func (p *player) polledEnd(pre jsonlite.Object, out string, end *ended, at time.Time) error {
	if string(pre["tool_name"]) != `"write_stdin"` {
		return nil
	}
	sid := string(jsonlite.AsObject(pre["tool_input"])["session_id"])
	held := p.held[sid]
	if held == nil || end == nil || end.exit == nil {
		return nil
	}
	id := p.heldIDs[sid]
	delete(p.held, sid)
	delete(p.heldIDs, sid)
	e := *end
	if recorded, ok := p.ends[id]; ok {
		delete(p.ends, id)
		e = recorded
	}
	held["tool_response"] = quote(out)
	return p.decode(held, at, &e)
}

func (p *player) base(hook []byte) jsonlite.Object {
	o := jsonlite.Object{"session_id": p.session, "cwd": p.cwd, "hook_event_name": hook}
	if p.model != nil {
		o["model"] = p.model
	}
	return o
}

func noEnv(string) string { return "" }

func (p *player) decode(o jsonlite.Object, at time.Time, end *ended) error {
	if p.prompt && string(o["hook_event_name"]) != string(hookPrompt) { // the turn's prompt came with no text
		if err := p.flushPrompt(); err != nil {
			return err
		}
	}
	if p.session == nil {
		p.st.Skipped++
		return nil
	}
	ev, err := decodePayload(o, hookbridge.Env{Now: at, Getenv: noEnv, Config: p.cfg}, end)
	if err != nil {
		return err
	}
	ev.TranscriptPath = ""
	ev.Usage = nil
	if ev.Kind == engine.KindSessionStart {
		attended := !p.headless
		ev.Attended = &attended
	}
	if p.fresh {
		u := p.usage
		if p.model != nil {
			u.Model = jsonlite.Str(p.model)
		}
		ev.Usage, p.fresh = &u, false
	}
	return p.fn(ev)
}
