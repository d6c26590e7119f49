package claude

import (
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"cully/engine"
	"cully/hookbridge"
	"cully/jsonlite"
)

// A transcript is JSON lines, one record each. Replay turns the records
// into the hook events the session would have produced — prompts, pre- and
// post-tool calls, compactions — by building each hook's payload and
// decoding it with the hook's own decoder (decodePayload), so a replayed
// call is exactly the event the hook would have recorded. The transcript
// holds no file sizes or modification times, so events carry none (the
// metadata guards cannot be judged).
//
// The payloads are built from the records' raw JSON values, without
// decoding a record into Go values or encoding a payload again: a
// record's members are walked once, a line whose "type" holds nothing for
// the hooks is left as soon as that member is read, and a tool result's
// text is decoded only when the call failed (its error text). The events
// are those of decoding every line with encoding/json and marshalling the
// payloads (the reference in transcript_ref_test.go, compared event for
// event), except for records no Claude Code writes: a member named twice
// or only up to case (encoding/json matches names case-insensitively and
// merges a repeated object), numbers outside JSON's grammar. A line whose
// "type" says the hooks get nothing from it is not checked past that
// member, so its corruption goes uncounted (ReplayStats.Corrupt).

// recordKind is what a record gives the hooks.
type recordKind uint8

const (
	recNone    recordKind = iota
	recPrompt             // UserPromptSubmit
	recCompact            // PreCompact
	recCalls              // PreToolUse, one per tool_use block
	recResults            // PostToolUse or PostToolUseFailure, one per tool_result block
	recText               // the main agent's text, no call: its turn may end here (Stop)
	recGoesOn             // the turn ended, and the agent went on with no prompt: a Stop hook blocked, or a background task notified it
)

// record is what one line holds for the hooks, its values raw JSON.
type record struct {
	kind    recordKind
	at      time.Time
	uuid    string // "" when the record has none
	session []byte
	cwd     []byte
	agent   []byte // the subagent, for a sidechain record that names one
	calls   []toolCall
	results []toolResult
	refused bool   // a user record whose content is neither text nor blocks
	text    []byte // recText: its last text block, a raw JSON string
	prompt  []byte // recPrompt: the prompt, a raw JSON string (or null)
	main    bool   // not a sidechain's (a subagent's) record
}

type toolCall struct {
	id          string
	rawID, name []byte
	input       []byte
}

type toolResult struct {
	id     string
	failed bool
	err    []byte // the error text, a raw JSON string (failed)
	resp   []byte // the members of tool_response the decoder reads (responseMembers)
}

var (
	errCorrupt = errors.New("corrupt record")
	errIgnore  = errors.New("nothing for the hooks")
)

// name decodes a member name (raw, quoted) without allocating when it has
// no escapes.
func name(k []byte) string {
	if bytes.IndexByte(k, '\\') < 0 && len(k) >= 2 {
		return string(k[1 : len(k)-1]) // compared only: no allocation
	}
	s, _ := jsonlite.Unquote(k)
	return s
}

// is reports whether a raw JSON value is the string s.
func is(v []byte, s string) bool {
	if len(v) == len(s)+2 && v[0] == '"' && string(v[1:len(v)-1]) == s {
		return true
	}
	if bytes.IndexByte(v, '\\') < 0 {
		return false
	}
	u, ok := jsonlite.Unquote(v)
	return ok && u == s
}

func isNull(v []byte) bool { return string(v) == "null" }

// asString checks a raw value for a string field the way encoding/json
// does: a string sets it, null leaves it, anything else is an error.
func asString(v []byte, dst *[]byte) error {
	switch {
	case len(v) > 0 && v[0] == '"':
		*dst = v
	case !isNull(v):
		return errCorrupt
	}
	return nil
}

// asBool is asString for a bool field.
func asBool(v []byte, dst *bool) error {
	switch string(v) {
	case "true":
		*dst = true
	case "false":
		*dst = false
	case "null":
	default:
		return errCorrupt
	}
	return nil
}

// mayCallTools is a cheap test that an assistant record can hold a
// tool_use block: the bytes `_use"` (the end of "tool_use", rarer in JSON
// than its opening quote, so the search skips ahead faster), or an escape
// that could spell them.
func mayCallTools(line []byte) bool {
	return bytes.Contains(line, []byte(`_use"`)) || bytes.Contains(line, []byte(`\u`))
}

// parse reads one line into rec (its values alias the line). It returns
// errIgnore for a record that gives the hooks nothing, errCorrupt for one
// encoding/json would refuse.
func parse(line []byte, rec *record) error {
	var typ, subtype, message, result, agentID []byte
	var sidechain, meta, summary, repeats, notified bool
	err := jsonlite.Members(line, func(k, v []byte) error {
		switch name(k) {
		case "type":
			if err := asString(v, &typ); err != nil {
				return err
			}
			if typ == nil {
				return nil
			}
			switch {
			case is(typ, "user"), is(typ, "system"):
			case is(typ, "assistant"):
				if !mayCallTools(line) && !bytes.Contains(line, []byte(`"text"`)) {
					return errIgnore
				}
			default:
				return errIgnore
			}
		case "subtype":
			return asString(v, &subtype)
		case "timestamp":
			if err := rec.at.UnmarshalJSON(v); err != nil {
				return errCorrupt
			}
		case "sessionId":
			return asString(v, &rec.session)
		case "cwd":
			return asString(v, &rec.cwd)
		case "agentId":
			return asString(v, &agentID)
		case "uuid":
			if len(v) > 0 && v[0] == '"' {
				rec.uuid = jsonlite.Str(v)
			}
		case "isSidechain":
			return asBool(v, &sidechain)
		case "isMeta":
			return asBool(v, &meta)
		case "origin":
			// A background task's notification wakes the agent as a user
			// record no one typed: no UserPromptSubmit runs for it.
			notified = bytes.Contains(v, []byte(`"task-notification"`))
		case "isCompactSummary":
			return asBool(v, &summary)
		case "repeatsCompactSummary":
			return asBool(v, &repeats)
		case "toolUseResult":
			result = v
		case "message":
			switch {
			case isNull(v):
			case v[0] == '{':
				message = v
			default:
				return errCorrupt
			}
		}
		return nil
	})
	switch {
	case errors.Is(err, errIgnore):
		return errIgnore
	case err != nil && isNull(bytes.Trim(line, " \t\r\n")):
		return errIgnore // encoding/json reads null into a struct as nothing
	case err != nil:
		return errCorrupt
	}
	var role, content []byte
	if message != nil {
		err := members(message, func(k, v []byte) error {
			switch name(k) {
			case "role":
				return asString(v, &role)
			case "content":
				content = v
			}
			return nil
		})
		if err != nil {
			return errCorrupt
		}
	}
	if sidechain && len(agentID) > 2 { // a non-empty string
		rec.agent = agentID
	}
	rec.main = !sidechain
	switch {
	case typ == nil:
		return errIgnore
	case is(typ, "system"):
		if subtype == nil || !is(subtype, "compact_boundary") {
			return errIgnore
		}
		rec.kind = recCompact
	case is(typ, "assistant"):
		blocks, ok := contentBlocks(content)
		if !ok {
			return errIgnore
		}
		for _, b := range blocks {
			if b.typ != nil && is(b.typ, "text") && b.text != nil {
				rec.text = b.text
			}
			if b.typ != nil && is(b.typ, "tool_use") {
				input := b.input
				if input == nil {
					input = []byte("null")
				}
				rec.calls = append(rec.calls, toolCall{id: jsonlite.Str(b.id), rawID: b.id, name: b.name, input: input})
			}
		}
		switch {
		case len(rec.calls) > 0:
			rec.kind, rec.text = recCalls, nil
		case rec.text != nil && !sidechain:
			rec.kind = recText
		default:
			return errIgnore
		}
	case is(typ, "user"):
		if content != nil && (content[0] == '"' || isNull(content)) {
			if !sidechain && (meta && bytes.HasPrefix(content, stopFeedback) || notified) {
				rec.kind = recGoesOn
				return nil
			}
			if meta || summary || repeats || sidechain {
				return errIgnore
			}
			rec.kind, rec.prompt = recPrompt, content
			return nil
		}
		blocks, ok := contentBlocks(content)
		if !ok {
			rec.kind, rec.refused = recResults, true
			return nil
		}
		for _, b := range blocks {
			if b.typ == nil || !is(b.typ, "tool_result") {
				continue
			}
			r := toolResult{id: jsonlite.Str(b.toolUseID), failed: b.isError}
			if r.failed {
				r.err = errorJSON(b.content)
			} else {
				r.resp = responseMembers(result)
			}
			rec.results = append(rec.results, r)
		}
		if len(rec.results) == 0 {
			return errIgnore
		}
		rec.kind = recResults
	default:
		return errIgnore
	}
	return nil
}

// block is a content block's members, raw.
type block struct {
	typ, id, name, toolUseID, text []byte
	input, content                 []byte
	isError                        bool
}

// contentBlocks reads content as encoding/json reads it into a slice of
// blocks: an array of objects (or nulls) whose fields have their types,
// or null (no blocks). Anything else fails the whole content.
func contentBlocks(content []byte) ([]block, bool) {
	if content == nil {
		return nil, false
	}
	if isNull(content) {
		return nil, true
	}
	if content[0] != '[' {
		return nil, false
	}
	var out []block
	err := elements(content, func(v []byte) error {
		var b block
		switch {
		case isNull(v):
		case v[0] == '{':
			err := members(v, func(k, v []byte) error {
				switch name(k) {
				case "type":
					return asString(v, &b.typ)
				case "id":
					return asString(v, &b.id)
				case "name":
					return asString(v, &b.name)
				case "tool_use_id":
					return asString(v, &b.toolUseID)
				case "text":
					return asString(v, &b.text)
				case "is_error":
					return asBool(v, &b.isError)
				case "input":
					b.input = v
				case "content":
					b.content = v
				}
				return nil
			})
			if err != nil {
				return err
			}
		default:
			return errCorrupt
		}
		out = append(out, b)
		return nil
	})
	return out, err == nil
}

// errorJSON is a failed tool result's error text as a raw JSON string: the
// content itself when it is a string, else its text blocks joined by
// newlines ("" when it is neither).
func errorJSON(content []byte) []byte {
	if len(content) > 0 && content[0] == '"' {
		return content
	}
	blocks, ok := contentBlocks(content)
	if !ok || isNull(content) {
		return []byte(`""`)
	}
	var parts []string
	for _, b := range blocks {
		if t := jsonlite.Str(b.text); t != "" {
			parts = append(parts, t)
		}
	}
	return appendQuoted(nil, strings.Join(parts, "\n"))
}

// appendQuoted writes s as a JSON string that jsonlite.Unquote reads back
// as s (s is valid UTF-8: it was decoded from JSON).
func appendQuoted(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// responseMembers keeps, of a tool result, the members the decoder reads
// of a shell call's tool_response: for the decoder they are the same
// object, without holding a command's whole output. Only the top level is
// walked (its values skipped, not read).
func responseMembers(result []byte) []byte {
	if len(result) == 0 || result[0] != '{' {
		return nil
	}
	kept := map[string][]byte{}
	_ = members(result, func(k, v []byte) error {
		if n := name(k); contains(respMembers, n) {
			kept[n] = v
		}
		return nil
	})
	if len(kept) == 0 {
		return nil
	}
	out := []byte{'{'}
	for _, n := range respMembers {
		if v, ok := kept[n]; ok {
			if len(out) > 1 {
				out = append(out, ',')
			}
			out = appendQuoted(out, n)
			out = append(out, ':')
			out = append(out, v...)
		}
	}
	return append(out, '}')
}

// own copies what rec keeps out of the line it aliases.
func (rec *record) own(in map[string][]byte) {
	intern := func(b []byte) []byte {
		if b == nil {
			return nil
		}
		if v, ok := in[string(b)]; ok {
			return v
		}
		v := bytes.Clone(b)
		in[string(v)] = v
		return v
	}
	rec.session, rec.cwd, rec.agent = intern(rec.session), intern(rec.cwd), intern(rec.agent)
	rec.prompt = bytes.Clone(rec.prompt)
	n := 0
	for _, c := range rec.calls {
		n += len(c.rawID) + len(c.name) + len(c.input)
	}
	for _, r := range rec.results {
		n += len(r.err) + len(r.resp)
	}
	n += len(rec.text) + len(rec.prompt)
	buf := make([]byte, 0, n)
	keep := func(b []byte) []byte {
		if b == nil {
			return nil
		}
		buf = append(buf, b...)
		return buf[len(buf)-len(b) : len(buf) : len(buf)]
	}
	rec.text, rec.prompt = keep(rec.text), keep(rec.prompt)
	for i := range rec.calls {
		c := &rec.calls[i]
		c.rawID, c.name, c.input = keep(c.rawID), intern(c.name), keep(c.input)
	}
	for i := range rec.results {
		r := &rec.results[i]
		r.err, r.resp = keep(r.err), keep(r.resp)
	}
}

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
