package claude

import (
	"fmt"
	"hash/fnv"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"time"

	"cully/engine"
	"cully/hookbridge"
	"cully/jsonlite"
)

// The player: a transcript's records (read in transcript.go) become the
// hook events they would have produced, a session's files are played
// together, and `cully replay` identifies a transcript and finds the
// folders that hold them.

// player turns records into events, pairing each tool result with its call.
type player struct {
	a       Agent
	cfg     *engine.Config
	fn      func(ev *engine.Event) error
	st      hookbridge.ReplayStats
	pending map[string]jsonlite.Object // tool_use_id → the PreToolUse payload
	intern  map[string][]byte
	memo    shellMemo
	// The main agent's turn: open since its first record after the last
	// turn end; last is its last text when no call followed it (what
	// Stop's last_assistant_message holds), at the record end.
	open bool
	last []byte
	end  *record
}

func newPlayer(a Agent, cfg *engine.Config, fn func(ev *engine.Event) error) *player {
	return &player{a: a, cfg: cfg, fn: fn, pending: map[string]jsonlite.Object{}, intern: map[string][]byte{}, memo: shellMemo{}}
}

var (
	hookPrompt = []byte(`"UserPromptSubmit"`)
	hookStop   = []byte(`"Stop"`)
	// stopFeedback begins the meta user record Claude Code writes when a
	// Stop hook blocks the turn's end, its reason after.
	stopFeedback    = []byte(`"Stop hook feedback:`)
	hookCompact     = []byte(`"PreCompact"`)
	hookPre         = []byte(`"PreToolUse"`)
	hookPost        = []byte(`"PostToolUse"`)
	hookPostFailure = []byte(`"PostToolUseFailure"`)
	triggerReplay   = []byte(`"replay"`)
	jsonFalse       = []byte(`false`)
	jsonNull        = []byte(`null`)
)

func noEnv(string) string { return "" }

func (p *player) decode(payload jsonlite.Object, at time.Time) error {
	ev, err := decodePayload(payload, hookbridge.Env{Now: at, Getenv: noEnv, Config: p.cfg}, p.memo)
	if err != nil {
		return err
	}
	return p.fn(ev)
}

// play emits a record's events.
func (p *player) play(rec *record) error {
	base := func(hook []byte) jsonlite.Object {
		o := jsonlite.Object{"session_id": rec.session, "cwd": rec.cwd, "hook_event_name": hook}
		if rec.agent != nil {
			o["agent_id"] = rec.agent
		}
		return o
	}
	if rec.main && (rec.kind == recCalls || rec.kind == recText) {
		p.open, p.last, p.end = true, rec.text, rec
	}
	switch rec.kind {
	case recPrompt:
		if err := p.endTurn(); err != nil {
			return err
		}
		o := base(hookPrompt)
		if rec.prompt != nil {
			o["prompt"] = rec.prompt
		}
		return p.decode(o, rec.at)
	case recGoesOn:
		// The turn ended (the Stop hooks ran: one of them blocked, or a
		// background task woke the agent after): its end is played, and
		// the agent's next calls open a turn of the same task.
		return p.endTurn()
	case recCompact:
		o := base(hookCompact)
		o["trigger"] = triggerReplay
		return p.decode(o, rec.at)
	case recCalls:
		for _, c := range rec.calls {
			o := base(hookPre)
			o["tool_name"], o["tool_input"], o["tool_use_id"] = c.name, c.input, c.rawID
			p.pending[c.id] = o
			if err := p.decode(o, rec.at); err != nil {
				return err
			}
		}
	case recResults:
		if rec.refused {
			p.st.Skipped++
			return nil
		}
		for _, r := range rec.results {
			pre := p.pending[r.id]
			if pre == nil {
				p.st.Skipped++
				continue
			}
			delete(p.pending, r.id)
			o := maps.Clone(pre)
			if r.failed {
				o["hook_event_name"], o["error"], o["is_interrupt"] = hookPostFailure, r.err, jsonFalse
			} else {
				resp := r.resp
				if resp == nil {
					resp = jsonNull
				}
				o["hook_event_name"], o["tool_response"] = hookPost, resp
			}
			if err := p.decode(o, rec.at); err != nil {
				return err
			}
		}
	}
	return nil
}

// endTurn plays the Stop of the main agent's turn, if one is open and
// ended with its text: before the next prompt, and at the end of the
// transcript. The transcript holds no Stop hook's payload: its
// last_assistant_message is that text, and stop_hook_active is not known.
func (p *player) endTurn() error {
	if !p.open || p.last == nil { // a turn that stopped mid-call was interrupted: no Stop hook runs
		p.open = false
		return nil
	}
	p.open = false
	o := jsonlite.Object{"session_id": p.end.session, "cwd": p.end.cwd, "hook_event_name": hookStop,
		"last_assistant_message": p.last}
	return p.decode(o, p.end.at)
}

// read parses every line of r, handing each record that gives the hooks
// something to keep (its values still alias the line).
func (p *player) read(r io.Reader, keep func(rec *record, line []byte) error) error {
	long, err := hookbridge.Lines(r, func(line []byte) error {
		p.st.Lines++
		var rec record
		switch err := parse(line, &rec); err {
		case nil:
			return keep(&rec, line)
		case errCorrupt:
			p.st.Corrupt++
		}
		return nil
	})
	p.st.Lines += long
	p.st.Corrupt += long
	if err != nil {
		return fmt.Errorf("read transcript: %w", err)
	}
	return nil
}

// Replay reads one transcript and calls fn with each event, in the order
// of its lines.
func (a Agent) Replay(r io.Reader, cfg *engine.Config, fn func(ev *engine.Event) error) (hookbridge.ReplayStats, error) {
	p := newPlayer(a, cfg, fn)
	err := p.read(r, func(rec *record, _ []byte) error {
		rec.own(p.intern)
		r := *rec // endTurn keeps the turn's last record
		return p.play(&r)
	})
	if err == nil {
		err = p.endTurn()
	}
	return p.st, err
}

// ReplaySession reads the files of one session — a transcript split in
// parts (full.jsonl.001, .002, …), its subagents' transcripts — and takes
// each record once: by its uuid, or by its exact line when it has none.
// The records are ordered by time (a record without a timestamp keeps the
// place of the one before it in its file; equal times keep the order of the
// files, then of the lines), then played as in Replay. It holds the
// session's records, not its files.
func (a Agent) ReplaySession(files []io.Reader, cfg *engine.Config, fn func(ev *engine.Event) error) (hookbridge.ReplayStats, error) {
	p := newPlayer(a, cfg, fn)
	type kept struct {
		rec *record
		key time.Time
	}
	var recs []kept
	seen := map[string]struct{}{}
	// Lines without a uuid are told apart by a 128-bit FNV hash: enough to
	// never confuse two lines of one session, and no crypto package for the
	// hook binary (which links this adapter) to initialise on every call.
	seenLine := map[[16]byte]struct{}{}
	for _, f := range files {
		var last time.Time
		err := p.read(f, func(rec *record, line []byte) error {
			if rec.uuid != "" {
				if _, dup := seen[rec.uuid]; dup {
					p.st.Duplicates++
					return nil
				}
				seen[rec.uuid] = struct{}{}
			} else {
				var h [16]byte
				f := fnv.New128a()
				f.Write(line)
				f.Sum(h[:0])
				if _, dup := seenLine[h]; dup {
					p.st.Duplicates++
					return nil
				}
				seenLine[h] = struct{}{}
			}
			if !rec.at.IsZero() {
				last = rec.at
			}
			rec.own(p.intern)
			r := *rec
			recs = append(recs, kept{&r, last})
			return nil
		})
		if err != nil {
			return p.st, err
		}
	}
	slices.SortStableFunc(recs, func(x, y kept) int { return x.key.Compare(y.key) })
	for _, k := range recs {
		if err := p.play(k.rec); err != nil {
			return p.st, err
		}
	}
	return p.st, p.endTurn()
}

// Record: Claude Code calls its recorded sessions transcripts.
func (Agent) Record() string { return "transcript" }

// RecordDirs: Claude Code keeps its transcripts under projects/ in its
// user folder ($CLAUDE_CONFIG_DIR, else ~/.claude).
func (Agent) RecordDirs(getenv func(string) string) ([]string, error) {
	d, err := configDir(getenv)
	if err != nil {
		return nil, err
	}
	return []string{filepath.Join(d, "projects")}, nil
}

// Identify: a Claude Code transcript is JSON lines whose records have a
// "type", and carry their session's id ("sessionId"); some records (a
// summary, a file-history snapshot) carry none, so the first few lines are
// read until one does.
func (Agent) Identify(head io.Reader) (session, why string) {
	const maxLines, maxBytes = 200, 8 << 20
	lines, size, objects := 0, 0, 0
	head = io.LimitReader(head, maxBytes) // a file with no newline is not read to its end
	_, err := hookbridge.Lines(head, func(line []byte) error {
		lines++
		size += len(line)
		var typ, id []byte
		err := jsonlite.Members(line, func(k, v []byte) error {
			switch name(k) {
			case "type":
				typ = v
			case "sessionId":
				id = v
			}
			if typ != nil && id != nil {
				return hookbridge.ErrStop
			}
			return nil
		})
		if err == nil || err == hookbridge.ErrStop {
			objects++
		}
		if len(typ) > 0 && typ[0] == '"' && len(id) > 2 && id[0] == '"' {
			session = jsonlite.Str(id)
			return hookbridge.ErrStop
		}
		if lines >= maxLines || size >= maxBytes {
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
		return "", "not a Claude Code transcript (not JSON lines)"
	}
	return "", "not a Claude Code transcript (no record names its session)"
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
