package hookrun

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cully/engine"
	"cully/store"
)

// attentionPlayer sends captured payloads through the hook's whole path,
// one a second, and reads what the session needs from the user as the
// panel and `cully status --short` read it: from the saved state alone.
type attentionPlayer struct {
	t     *testing.T
	agent string
	home  string
	at    time.Time
	env   map[string]string
	// rewrite changes a payload before it is sent (a captured one turned
	// into a shape the capture lacks).
	rewrite func(raw []byte) []byte
}

func newAttentionPlayer(t *testing.T, agent string) *attentionPlayer {
	home := t.TempDir()
	return &attentionPlayer{t: t, agent: agent, home: home, at: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC),
		env: map[string]string{"CULLY_HOME": home, "CULLY_CONFIG": filepath.Join(home, "none.toml"), "CULLY_SNAPSHOTS": "off"}}
}

func (p *attentionPlayer) send(file string) {
	p.t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		p.t.Fatal(err)
	}
	p.sendRaw(raw)
}

func (p *attentionPlayer) sendRaw(raw []byte) {
	p.t.Helper()
	if p.rewrite != nil {
		raw = p.rewrite(raw)
	}
	p.at = p.at.Add(time.Second)
	p.env["CULLY_NOW"] = p.at.Format(time.RFC3339)
	var stdout, stderr bytes.Buffer
	Run(IO{Stdin: bytes.NewReader(raw), Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string { return p.env[k] }}, p.agent)
	if stderr.Len() > 0 {
		p.t.Fatalf("hook stderr: %s", stderr.String())
	}
}

// need is the session's need d after the last payload sent.
func (p *attentionPlayer) need(session string, d time.Duration) engine.Attention {
	p.t.Helper()
	st, err := store.Home{Dir: p.home}.ReadState(session, nil)
	if err != nil {
		p.t.Fatal(err)
	}
	return st.Attention(p.at.Add(d), -1)
}

func (p *attentionPlayer) expect(step, session string, d time.Duration, need engine.Need, cause engine.Cause, tool string) {
	p.t.Helper()
	a := p.need(session, d)
	if a.Need != need || a.Cause != cause || a.Tool != tool {
		p.t.Errorf("after %s, %s later: %s (%s, tool %q), want %s (%s, tool %q)", step, d, a.Need, a.Cause, a.Tool, need, cause, tool)
	}
}

// Claude Code's captured session, payload by payload: working from the
// prompt, a call that stays open past what it takes reads as waiting for
// the user (its permission prompt: Claude Code's hooks run before it),
// parallel calls close by their own ids, a subagent's long run under the
// Agent call is work, and the turn's end, then the session's, are idle.
func TestAttentionClaudeCapture(t *testing.T) {
	seq := filepath.Join("..", "hookbridge", "claude", "testdata", "capture-sequence")
	p := newAttentionPlayer(t, "claude")
	files, _ := filepath.Glob(filepath.Join(seq, "*.json"))
	if len(files) < 79 {
		t.Fatalf("capture sequence: %d files", len(files))
	}
	id := sessionOf(t, files[0])
	if id == "" {
		t.Fatalf("no session id in %s", files[0])
	}
	checks := map[string]func(step string){
		"003-SessionStart.json": func(s string) { p.expect(s, id, 0, engine.NeedIdle, engine.CauseQuiet, "") },
		"004-UserPromptSubmit.json": func(s string) {
			p.expect(s, id, 0, engine.NeedWorking, engine.CauseTurn, "")
			p.expect(s, id, 10*time.Minute, engine.NeedIdle, engine.CauseQuiet, "") // no record for 10 minutes: not working
		},
		"005-PreToolUse-Read.json": func(s string) {
			p.expect(s, id, 5*time.Second, engine.NeedWorking, engine.CauseCall, "Read")
			p.expect(s, id, 30*time.Second, engine.NeedYou, engine.CauseWaiting, "Read")
		},
		"011-PreToolUse-Bash.json": func(s string) {
			p.expect(s, id, time.Minute, engine.NeedWorking, engine.CauseCall, "Bash") // a command may run for minutes
			p.expect(s, id, 3*time.Minute, engine.NeedYou, engine.CauseWaiting, "Bash")
		},
		// The first of the two parallel calls ended: the second is still open.
		"012-PostToolUseFailure-Bash.json": func(s string) { p.expect(s, id, 0, engine.NeedWorking, engine.CauseCall, "Bash") },
		"013-PostToolUseFailure-Bash.json": func(s string) { p.expect(s, id, 0, engine.NeedWorking, engine.CauseTurn, "") },
		"056-PreToolUse-Agent.json": func(s string) {
			p.expect(s, id, 20*time.Minute, engine.NeedWorking, engine.CauseCall, "Agent") // a subagent's work takes what it takes
		},
		"062-PostToolUse-Agent.json": func(s string) { p.expect(s, id, 0, engine.NeedWorking, engine.CauseTurn, "") },
		"071-Stop.json":              func(s string) { p.expect(s, id, 0, engine.NeedIdle, engine.CauseTurnEnded, "") },
		"072-SessionEnd.json":        func(s string) { p.expect(s, id, 0, engine.NeedIdle, engine.CauseEnded, "") },
	}
	seen := 0
	for _, f := range files {
		p.send(f)
		if c := checks[filepath.Base(f)]; c != nil {
			c(filepath.Base(f))
			seen++
		}
	}
	if seen != len(checks) {
		t.Errorf("%d of %d checked payloads found in the capture", seen, len(checks))
	}
}

// A question to the user needs them at once; a host's permission
// notification (its schema's shape: message, title, notification_type)
// marks the open call; an answer closes it. The question is the captured
// PreToolUse with Claude Code's AskUserQuestion in it.
func TestAttentionClaudeQuestionAndPermission(t *testing.T) {
	seq := filepath.Join("..", "hookbridge", "claude", "testdata", "capture-sequence")
	p := newAttentionPlayer(t, "claude")
	p.send(filepath.Join(seq, "003-SessionStart.json"))
	id := sessionOf(t, filepath.Join(seq, "003-SessionStart.json"))
	p.send(filepath.Join(seq, "004-UserPromptSubmit.json"))
	pre, err := os.ReadFile(filepath.Join(seq, "005-PreToolUse-Read.json"))
	if err != nil {
		t.Fatal(err)
	}
	ask := bytes.Replace(pre, []byte(`"tool_name":"Read"`), []byte(`"tool_name":"AskUserQuestion"`), 1)
	if bytes.Equal(ask, pre) {
		ask = bytes.Replace(pre, []byte(`"tool_name": "Read"`), []byte(`"tool_name": "AskUserQuestion"`), 1)
	}
	if bytes.Equal(ask, pre) {
		t.Fatal("no tool_name to rewrite in the captured PreToolUse")
	}
	p.sendRaw(ask)
	p.expect("AskUserQuestion", id, 0, engine.NeedYou, engine.CauseQuestion, "AskUserQuestion")

	p.send(filepath.Join(seq, "012-PostToolUseFailure-Bash.json")) // another call's end: the question stays open
	p.expect("another call's end", id, 0, engine.NeedYou, engine.CauseQuestion, "AskUserQuestion")

	p.send(filepath.Join(seq, "010-PreToolUse-Bash.json"))
	note := strings.ReplaceAll(`{"session_id":"ID","transcript_path":"/home/dev/.claude/projects/-home-dev-project/ID.jsonl","cwd":"/home/dev/project","hook_event_name":"Notification",`+
		`"message":"Claude needs your permission to use Bash","title":"Claude Code","notification_type":"permission_prompt"}`, "ID", id)
	p.sendRaw([]byte(note))
	p.expect("permission_prompt", id, 0, engine.NeedYou, engine.CausePermission, "Bash")
	p.send(filepath.Join(seq, "012-PostToolUseFailure-Bash.json"))
	p.expect("the call's end", id, 0, engine.NeedWorking, engine.CauseTurn, "")
}

// Codex's captured run: the prompt, calls opened and closed by their ids,
// the turn's end.
func TestAttentionCodexCapture(t *testing.T) {
	dir := filepath.Join("..", "hookbridge", "codex", "testdata", "inject")
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) < 10 {
		t.Fatalf("codex capture: %d files", len(files))
	}
	p := newAttentionPlayer(t, "codex")
	empty := filepath.Join(p.home, "rollout.jsonl")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	p.rewrite = func(raw []byte) []byte {
		return transcriptPath.ReplaceAll(raw, []byte(`"transcript_path":"`+empty+`"`))
	}
	id := sessionOf(t, files[0])
	want := []struct {
		need  engine.Need
		cause engine.Cause
		tool  string
	}{
		{engine.NeedIdle, engine.CauseQuiet, ""},              // SessionStart
		{engine.NeedWorking, engine.CauseTurn, ""},            // UserPromptSubmit
		{engine.NeedWorking, engine.CauseCall, "Bash"},        // PreToolUse
		{engine.NeedWorking, engine.CauseTurn, ""},            // PostToolUse
		{engine.NeedWorking, engine.CauseCall, "apply_patch"}, // PreToolUse
		{engine.NeedWorking, engine.CauseTurn, ""},            // PostToolUse
		{engine.NeedWorking, engine.CauseCall, "Bash"},        // PreToolUse
		{engine.NeedWorking, engine.CauseTurn, ""},            // PostToolUse
		{engine.NeedIdle, engine.CauseTurnEnded, ""},          // Stop
		{engine.NeedIdle, engine.CauseEnded, ""},              // SessionEnd
	}
	for i, f := range files {
		p.send(f)
		w := want[i]
		p.expect(filepath.Base(f), id, 0, w.need, w.cause, w.tool)
	}
}

// sessionOf is a payload's session_id.
func sessionOf(t *testing.T, file string) string {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := bytes.Cut(raw, []byte(`"session_id"`))
	if !ok {
		return ""
	}
	_, rest, _ = bytes.Cut(rest, []byte(`"`))
	id, _, _ := bytes.Cut(rest, []byte(`"`))
	return string(id)
}
