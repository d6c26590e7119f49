package claude

import (
	"bytes"
	"errors"
	"strings"
	"time"

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
