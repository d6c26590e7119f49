package claude

import (
	"bytes"
	"hash/fnv"
	"io"
	"strconv"

	"cully/engine"
	"cully/hookbridge"
	"cully/jsonlite"
)

// maxUsageRead bounds what one hook call reads of the transcript. The lines
// since the session's last read hold the model's messages and the tools'
// results (a Read of a large file is in them whole), usually a few KiB;
// past this, the call reads only the last part, from the first whole line
// in it, and the messages before it go uncounted (Tokens then undercounts:
// `cully replay` and ccusage read the whole file).
const maxUsageRead = 8 << 20

// seenKeep is how many counted messages a position remembers. A message's
// lines are written together, but a resumed session writes earlier
// messages again, up to 48 messages later in the development corpus: a
// message repeated further back than this is counted twice.
const seenKeep = 64

// usageEvents are the events on which the hook reads the transcript on:
// one per model request (a batch of tool results, a prompt, the turn's
// end) rather than every pre- and post-tool call.
func usageEvent(k engine.Kind) bool {
	switch k {
	case engine.KindBatch, engine.KindPrompt, engine.KindStop, engine.KindSessionEnd, engine.KindCompact, engine.KindSessionStart:
		return true
	}
	return false
}

// Complete reads the session's transcript (transcript_path) on from where
// the last read stopped and adds the usage of the assistant messages
// written since, each message once (its id and request id: Claude Code
// writes the usage on every content block's line, as ccusage dedups it),
// to the session's totals: input not read from the cache, cache writes,
// cache reads apart, output. The usage goes on the event only when it
// changed. Subagents write transcripts of their own, read when their
// SubagentStop names one (agent_transcript_path).
func (Agent) Complete(raw []byte, env hookbridge.Env, ev *engine.Event, st *engine.State) {
	if ev.TranscriptPath == "" || !usageEvent(ev.Kind) && ev.Hook != "SubagentStop" {
		return
	}
	usage := engine.HostUsage{}
	if st.Usage != nil {
		usage = *st.Usage
	}
	pos := engine.TranscriptPos{File: transcriptFile(ev.TranscriptPath)}
	if st.Transcript != nil && st.Transcript.File == pos.File {
		pos = *st.Transcript.Clone()
	} else {
		// The first read of this transcript: the totals are its own from
		// here (a status line's figures count differently).
		usage.InputTokens, usage.OutputTokens, usage.CacheReadTokens, usage.CacheWriteTokens = nil, nil, nil, nil
	}
	var t Tokens
	read := readUsage(ev.TranscriptPath, &pos, &t)
	if read {
		ev.Transcript = &pos
	}
	if ev.Hook == "SubagentStop" {
		if p, err := jsonlite.ParseObject(raw); err == nil {
			if sub := p.Str("agent_transcript_path"); sub != "" {
				sp := engine.TranscriptPos{File: transcriptFile(sub)}
				readUsage(sub, &sp, &t) // once, at its end: its position is not kept
			}
		}
	}
	if t == (Tokens{}) && (usage.InputTokens != nil || !read) {
		return // nothing new, or no transcript to read: unknown stays unknown
	}
	t.add(&usage)
	if !st.Usage.Equal(&usage) {
		ev.Usage = &usage
	}
}

// transcriptFile names a transcript in the session's state without keeping
// its path: a 64-bit FNV-1a of the path, in hex.
func transcriptFile(path string) string {
	h := fnv.New64a()
	h.Write([]byte(path))
	return strconv.FormatUint(h.Sum64(), 16)
}

// Tokens are the usage of some assistant messages.
type Tokens struct {
	Input, CacheWrite, CacheRead, Output int64
	Messages                             int
}

func (t Tokens) add(u *engine.HostUsage) {
	sum := func(dst **int64, n int64) {
		v := n
		if *dst != nil {
			v += **dst
		}
		*dst = &v
	}
	sum(&u.InputTokens, t.Input)
	sum(&u.OutputTokens, t.Output)
	sum(&u.CacheReadTokens, t.CacheRead)
	sum(&u.CacheWriteTokens, t.CacheWrite)
}

// readUsage reads the transcript after pos.Off up to its last whole line,
// adding each new message's usage to t. It reports whether it moved pos.
func readUsage(path string, pos *engine.TranscriptPos, t *Tokens) bool {
	lines, next, rewritten, ok := hookbridge.ReadOn(path, pos.Off, maxUsageRead)
	if rewritten { // shorter than what was read of it: rewritten, read anew
		pos.Off, pos.Seen, pos.SeenUsage = 0, nil, nil
	}
	if !ok {
		return false
	}
	for _, line := range lines {
		usageLine(line, pos, t)
	}
	pos.Off = next
	return true
}

// assistantMark is in every line that can carry usage: the hook parses
// only those.
var assistantMark = []byte(`"assistant"`)

// usageLine counts one transcript line's usage, if it is an assistant
// message's line: a message not seen yet adds its figures; a later line of
// the newest message replaces what it counted with its own (the last line
// holds the final output count, as ccusage takes it); a message seen
// before that adds nothing.
func usageLine(line []byte, pos *engine.TranscriptPos, t *Tokens) {
	m, ok := parseUsage(line)
	if !ok {
		return
	}
	cur := [4]int64{m.tokens.Input, m.cacheWrite, m.tokens.CacheRead, m.tokens.Output}
	key := transcriptFile(m.key)
	if n := len(pos.Seen); n > 0 && pos.Seen[n-1] == key && len(pos.SeenUsage) == 4 {
		t.Input += cur[0] - pos.SeenUsage[0]
		t.CacheWrite += cur[1] - pos.SeenUsage[1]
		t.CacheRead += cur[2] - pos.SeenUsage[2]
		t.Output += cur[3] - pos.SeenUsage[3]
		pos.SeenUsage = cur[:]
		return
	}
	for _, k := range pos.Seen {
		if k == key {
			return
		}
	}
	pos.Seen = append(pos.Seen, key)
	if n := len(pos.Seen); n > seenKeep {
		pos.Seen = append(pos.Seen[:0:0], pos.Seen[n-seenKeep:]...)
	}
	pos.SeenUsage = append(pos.SeenUsage[:0:0], cur[:]...)
	t.Input += cur[0]
	t.CacheWrite += cur[1]
	t.CacheRead += cur[2]
	t.Output += cur[3]
	t.Messages++
}

// SumUsage reads a whole transcript as the hook reads it in parts: every
// assistant message's usage once. For replay, and the test that holds the
// two equal.
func SumUsage(r io.Reader) (Tokens, error) {
	var t Tokens
	var pos engine.TranscriptPos
	b, err := io.ReadAll(r)
	for _, line := range bytes.Split(b, []byte{'\n'}) {
		usageLine(line, &pos, &t)
	}
	return t, err
}
