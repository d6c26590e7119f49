package claude

import (
	"bytes"
	"path/filepath"
	"strings"

	"cully/hookbridge"
	"cully/jsonlite"
	"cully/usage"
)

// maxSubagentFiles bounds the subagent transcripts read with a session's.
const maxSubagentFiles = 256

// UsageFiles finds a session's transcript, projects/*/SESSION.jsonl in
// Claude Code's folder, and its subagents' beside it
// (SESSION/subagents/*.jsonl). known is the hooks' hash of the transcript's
// path.
func (Agent) UsageFiles(session, known string, getenv func(string) string) []string {
	if !hookbridge.SafeID(session) {
		return nil
	}
	d, err := configDir(getenv)
	if err != nil {
		return nil
	}
	var main string
	for _, p := range hookbridge.FindFiles([]string{filepath.Join(d, "projects", "*", session+".jsonl")}, 16) {
		if known == "" || transcriptFile(p) == known {
			main = p
			break
		}
	}
	if main == "" {
		return nil
	}
	subs := hookbridge.FindFiles([]string{filepath.Join(strings.TrimSuffix(main, ".jsonl"), "subagents", "*.jsonl")}, maxSubagentFiles)
	return append([]string{main}, subs...)
}

// messageUsage is what an assistant message's line says of its usage:
// the message's key (its message and request ids), model and figures,
// cache writes split by their lifetime where the line says
// (cache_creation), and CacheWrite, all its cache writes as
// cache_creation_input_tokens counts them.
type messageUsage struct {
	key, model string
	sidechain  bool
	tokens     usage.Tokens
	cacheWrite int64
}

// parseUsage reads an assistant message's line (false for any other line:
// only lines that name "assistant" and "usage" are parsed).
func parseUsage(line []byte) (messageUsage, bool) {
	if !bytes.Contains(line, assistantMark) || !bytes.Contains(line, []byte(`"usage"`)) {
		return messageUsage{}, false
	}
	p, err := jsonlite.ParseObject(line)
	if err != nil || p.Str("type") != "assistant" {
		return messageUsage{}, false
	}
	msg := p.Sub("message")
	if !msg.Present("usage") {
		return messageUsage{}, false
	}
	u := msg.Sub("usage")
	m := messageUsage{key: msg.Str("id") + ":" + p.Str("requestId"), model: msg.Str("model"), sidechain: p.Bool("isSidechain"),
		tokens:     usage.Tokens{Input: u.Int("input_tokens"), Output: u.Int("output_tokens"), CacheRead: u.Int("cache_read_input_tokens")},
		cacheWrite: u.Int("cache_creation_input_tokens")}
	if u.Present("cache_creation") {
		cc := u.Sub("cache_creation")
		m.tokens.CacheWrite, m.tokens.CacheWrite1h = cc.Int("ephemeral_5m_input_tokens"), cc.Int("ephemeral_1h_input_tokens")
	} else {
		m.tokens.CacheWrite = m.cacheWrite
	}
	return m, true
}

// UsageLine counts an assistant message's usage once by its message and
// request ids, the last copy's figures (Claude Code writes the usage on
// each content block's line, the last one final), as ccusage does; cache
// writes split by their lifetime where the line says (cache_creation).
// The main chain's newest message sets the context: its whole input.
func (Agent) UsageLine(line []byte, main bool, t *usage.Tally) {
	m, ok := parseUsage(line)
	if !ok {
		return
	}
	t.AddMessage(m.key, m.model, m.tokens)
	if main && !m.sidechain && m.model != "<synthetic>" {
		n := m.tokens
		t.Model, t.Context = m.model, n.Input+n.CacheRead+n.CacheWrite+n.CacheWrite1h
	}
}
