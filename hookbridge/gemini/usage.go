package gemini

import (
	"io"
	"path/filepath"
	"strings"

	"cully/engine"
	"cully/hookbridge"
)

// maxLog bounds the session log read for its token figures: the log holds
// every tool result, and a session whose log is larger gets unknown
// figures rather than a long read at the end of each turn.
const maxLog = 64 << 20

// sessionUsage reads the token figures of a session from its log, the
// JSON lines Gemini CLI 0.61 writes at transcript_path
// (…/chats/session-*.jsonl): each model reply is a "gemini" message with
// tokens{input, output, cached, thoughts, tool, total}, written again
// whole whenever the message is updated, so the last record of each id
// counts. It is read at the end of a turn and of the session only, never
// on a tool call. Nil when the log is not there, not one, or too large.
func sessionUsage(path string, env hookbridge.Env) *engine.HostUsage {
	if env.Open == nil || !sessionLog(path) {
		return nil
	}
	if env.Stat != nil {
		if fi, err := env.Stat(path); err != nil || fi.Size() > maxLog {
			return nil
		}
	}
	f, err := env.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	u, ok := readUsage(io.LimitReader(f, maxLog))
	if !ok {
		return nil
	}
	return u
}

// sessionLog says whether a payload's transcript_path has the shape of a
// Gemini CLI session log: an absolute, clean path to a .jsonl file in a
// chats folder (a subagent's log sits one folder deeper).
func sessionLog(path string) bool {
	if !filepath.IsAbs(path) || filepath.Clean(path) != path || filepath.Ext(path) != ".jsonl" {
		return false
	}
	dir := filepath.Dir(path)
	return filepath.Base(dir) == "chats" || filepath.Base(filepath.Dir(dir)) == "chats"
}

// tokens is one reply's figures.
type tokens struct{ input, output, thoughts int64 }

// readUsage sums a session log's token figures: input and output (with
// thoughts, which are billed as output) over every reply, the last
// reply's input as the context's size, and its model.
// ok is false when the log could not be read or holds no reply's figures.
func readUsage(r io.Reader) (u *engine.HostUsage, ok bool) {
	type reply struct {
		id string
		t  tokens
	}
	var replies []reply
	index := map[string]int{}
	model := ""
	_, err := hookbridge.Lines(r, func(line []byte) error {
		id, m, o, ok := replyOf(line)
		if !ok {
			return nil
		}
		t := tokens{o.Int("input"), o.Int("output"), o.Int("thoughts")}
		if i, ok := index[id]; ok && id != "" {
			replies[i].t = t
		} else {
			index[id] = len(replies)
			replies = append(replies, reply{id, t})
		}
		if m != "" {
			model = m
		}
		return nil
	})
	if err != nil || len(replies) == 0 {
		return nil, false
	}
	var in, out int64
	for _, r := range replies {
		in += r.t.input
		out += r.t.output + r.t.thoughts
	}
	ctx := replies[len(replies)-1].t.input
	return &engine.HostUsage{InputTokens: &in, OutputTokens: &out, ContextTokens: &ctx, Model: strings.TrimSpace(model)}, true
}
