package gemini

import (
	"bytes"
	"io"
	"os"
	"path/filepath"

	"cully/hookbridge"
	"cully/jsonlite"
	"cully/usage"
)

// UsageFiles finds a session's log: .gemini/tmp/*/chats/session-*-ID8.jsonl
// (ID8: the session id's first 8 characters) whose first line names the
// session. Gemini CLI's hooks keep no hash of its path.
func (Agent) UsageFiles(session, _ string, getenv func(string) string) []string {
	if !hookbridge.SafeID(session) || len(session) < 8 {
		return nil
	}
	d, err := homeDir(getenv)
	if err != nil {
		return nil
	}
	for _, p := range hookbridge.FindFiles([]string{filepath.Join(d, ".gemini", "tmp", "*", "chats", "session-*-"+session[:8]+".jsonl")}, 16) {
		if logOf(p) == session {
			return []string{p}
		}
	}
	return nil
}

// logOf is the session a log's first line names ("" when none).
func logOf(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, 4096)
	n, _ := io.ReadFull(f, buf)
	line, _, _ := bytes.Cut(buf[:n], []byte{'\n'})
	p, err := jsonlite.ParseObject(line)
	if err != nil {
		return ""
	}
	return p.Str("sessionId")
}

// replyOf reads a session log's line as one of Gemini's replies: its id,
// model and token figures; ok is false for any other line. Lines that
// cannot hold a reply's figures are not decoded.
func replyOf(line []byte) (id, model string, tok jsonlite.Object, ok bool) {
	if !bytes.Contains(line, []byte(`"tokens"`)) || !bytes.Contains(line, []byte(`"gemini"`)) {
		return "", "", nil, false
	}
	typ := ""
	if jsonlite.Members(line, func(k, v []byte) error {
		switch string(k) {
		case `"id"`:
			id = jsonlite.Str(v)
		case `"type"`:
			typ = jsonlite.Str(v)
		case `"model"`:
			model = jsonlite.Str(v)
		case `"tokens"`:
			tok = jsonlite.AsObject(v)
		}
		return nil
	}) != nil || typ != "gemini" || tok == nil {
		return "", "", nil, false
	}
	return id, model, tok, true
}

// UsageLine counts a reply's figures ("gemini" messages' tokens{input,
// output, cached, thoughts}), its last copy's (Gemini CLI writes a message
// again whole whenever it updates it), as ccusage does: the cached input
// apart from the rest, thoughts billed as output. The newest reply's input
// is the context.
func (Agent) UsageLine(line []byte, main bool, t *usage.Tally) {
	id, model, tok, ok := replyOf(line)
	if !ok || len(tok) == 0 {
		return
	}
	in, cached := tok.Int("input"), tok.Int("cached")
	n := usage.Tokens{Input: in - min(cached, in), CacheRead: cached, Output: tok.Int("output"), Thoughts: tok.Int("thoughts")}
	t.AddMessage(id, model, n)
	if main {
		t.Model, t.Context = model, in
	}
}
