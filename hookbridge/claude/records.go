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

// UsageLine counts an assistant message's usage once by its message and
// request ids, the last copy's figures (Claude Code writes the usage on
// each content block's line, the last one final), as ccusage does; cache
// writes split by their lifetime where the line says (cache_creation).
// The main chain's newest message sets the context: its whole input.
func (Agent) UsageLine(line []byte, main bool, t *usage.Tally) {
	if !bytes.Contains(line, assistantMark) || !bytes.Contains(line, []byte(`"usage"`)) {
		return
	}
	p, err := jsonlite.ParseObject(line)
	if err != nil || p.Str("type") != "assistant" {
		return
	}
	msg := p.Sub("message")
	if !msg.Present("usage") {
		return
	}
	u := msg.Sub("usage")
	n := usage.Tokens{Input: u.Int("input_tokens"), Output: u.Int("output_tokens"), CacheRead: u.Int("cache_read_input_tokens")}
	if u.Present("cache_creation") {
		cc := u.Sub("cache_creation")
		n.CacheWrite, n.CacheWrite1h = cc.Int("ephemeral_5m_input_tokens"), cc.Int("ephemeral_1h_input_tokens")
	} else {
		n.CacheWrite = u.Int("cache_creation_input_tokens")
	}
	model := msg.Str("model")
	t.AddMessage(msg.Str("id")+":"+p.Str("requestId"), model, n)
	if main && !p.Bool("isSidechain") && model != "<synthetic>" {
		t.Model = model
		t.Context = n.Input + n.CacheRead + n.CacheWrite + n.CacheWrite1h
	}
}
