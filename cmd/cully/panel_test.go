package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// tmuxPane drives a real terminal: tmux runs a command in a detached
// session on a private socket; tests send keys and read the screen. Once
// cully exits the pane says "cully exited N" and stays.
//
// Every command after the session's start goes through one tmux client
// in control mode (tmux -C), kept for the pane's life: a test that polls
// the screen every 20 ms would otherwise start 50 tmux processes a
// second, each about 12 ms of CPU on a small machine (a whole core for
// two waiting tests), where a capture through the control client costs
// the server a few microseconds.
type tmuxPane struct {
	t       *testing.T
	socket  string
	pidFile string

	mu     sync.Mutex // one command at a time on the control client
	in     io.WriteCloser
	blocks chan tmuxReply // the replies to this client's commands, in order
}

// tmuxReply is one command's reply on the control client: its output, or
// the error tmux gave.
type tmuxReply struct {
	out string
	err bool
}

func newTmux(t *testing.T, w, h int, env map[string]string, args ...string) *tmuxPane {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tmux is required in CI (.ci/run installs it)")
		}
		t.Skip("tmux not installed")
	}
	dir := t.TempDir()
	p := &tmuxPane{t: t, socket: filepath.Join(dir, "tmux.sock"), pidFile: filepath.Join(dir, "cully.pid")}
	self, err := exec.LookPath("cully")
	if err != nil {
		t.Fatal(err)
	}
	// The inner shell writes its pid and execs cully, which keeps it: the
	// pid is cully's, for tests that signal it.
	cmd := "exec env"
	for k, v := range env {
		cmd += fmt.Sprintf(" %s=%q", k, v)
	}
	cmd += " TERM=xterm-256color " + self + " " + strings.Join(args, " ")
	shell := fmt.Sprintf(`sh -c 'echo $$ > %q; %s'; echo "cully exited $?"; sleep 60`, p.pidFile, cmd)
	if out, err := exec.Command("tmux", "-S", p.socket, "new-session", "-d", "-s", "panel", "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), shell).CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v: %s", err, out)
	}
	ctl := exec.Command("tmux", "-S", p.socket, "-C", "attach-session", "-t", "panel")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TMUX=") { // a test run inside tmux: no nesting refusal
			ctl.Env = append(ctl.Env, kv)
		}
	}
	p.in, err = ctl.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := ctl.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := ctl.Start(); err != nil {
		t.Fatalf("tmux -C: %v", err)
	}
	p.blocks = make(chan tmuxReply, 4)
	go readTmuxReplies(out, p.blocks)
	t.Cleanup(func() {
		exec.Command("tmux", "-S", p.socket, "kill-server").Run()
		p.in.Close()
		_ = ctl.Wait()
		// The hang-up ends cully, which may still be writing to its state
		// dir as it goes: wait for it, or the test's temporary folders
		// are removed under its feet ("directory not empty").
		if b, err := os.ReadFile(p.pidFile); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
				for end := time.Now().Add(10 * time.Second); time.Now().Before(end) && syscall.Kill(pid, 0) == nil; {
					time.Sleep(20 * time.Millisecond)
				}
			}
		}
	})
	// No %output notifications: the client reads replies only (tmux 3.2
	// and later; an older one sends them, and the reader skips them).
	p.command("refresh-client", "-f", "no-output")
	return p
}

// readTmuxReplies reads a control client's output: each reply to one of
// its own commands comes between %begin and the %end (or %error) with the
// same time, number and flags (flags 1: this client's command);
// notifications come between replies.
func readTmuxReplies(r io.Reader, blocks chan<- tmuxReply) {
	defer close(blocks)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		id, ok := strings.CutPrefix(sc.Text(), "%begin ")
		if !ok {
			continue
		}
		var body []string
		var reply tmuxReply
		for sc.Scan() {
			l := sc.Text()
			if l == "%end "+id || l == "%error "+id {
				reply = tmuxReply{out: strings.Join(body, "\n"), err: strings.HasPrefix(l, "%error")}
				break
			}
			body = append(body, l)
		}
		if len(body) > 0 {
			reply.out += "\n"
		}
		if strings.HasSuffix(id, " 1") {
			blocks <- reply
		}
	}
}

// command runs one tmux command through the control client and returns
// its reply.
func (p *tmuxPane) command(args ...string) tmuxReply {
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	quoted := make([]string, len(args))
	for i, a := range args { // tmux's command parser: single quotes are literal
		quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	if _, err := io.WriteString(p.in, strings.Join(quoted, " ")+"\n"); err != nil {
		p.t.Fatalf("tmux %v: %v", args, err)
	}
	select {
	case r, ok := <-p.blocks:
		if !ok {
			p.t.Fatalf("tmux %v: the control client exited", args)
		}
		return r
	case <-time.After(30 * time.Second): // a hang bound, not a timing
		p.t.Fatalf("tmux %v: no reply", args)
	}
	return tmuxReply{}
}

func (p *tmuxPane) run(args ...string) string {
	p.t.Helper()
	r := p.command(args...)
	if r.err {
		p.t.Fatalf("tmux %v: %s", args, r.out)
	}
	return r.out
}

func (p *tmuxPane) screen() string { return p.run("capture-pane", "-p", "-t", "panel") }

// exitCode waits for cully to exit and returns its exit status.
func (p *tmuxPane) exitCode(limit time.Duration) int {
	p.t.Helper()
	p.waitFor("cully exited ", limit)
	for _, l := range strings.Split(p.screen(), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(l), "cully exited "); ok {
			if n, err := strconv.Atoi(rest); err == nil {
				return n
			}
		}
	}
	p.t.Fatalf("no exit status on screen:\n%s", p.screen())
	return 0
}

// pid is the cully process's id.
func (p *tmuxPane) pid() int {
	p.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, err := os.ReadFile(p.pidFile)
		if n, perr := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && perr == nil && n > 0 {
			return n
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("no pid in %s: %v", p.pidFile, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (p *tmuxPane) send(keys ...string) {
	p.run(append([]string{"send-keys", "-t", "panel"}, keys...)...)
}

// waitFor polls the screen until it contains want or the deadline passes,
// and returns how long it took.
func (p *tmuxPane) waitFor(want string, limit time.Duration) time.Duration {
	p.t.Helper()
	start := time.Now()
	for time.Since(start) < limit {
		if strings.Contains(p.screen(), want) {
			return time.Since(start)
		}
		time.Sleep(20 * time.Millisecond)
	}
	p.t.Fatalf("screen never showed %q within %v:\n%s", want, limit, p.screen())
	return 0
}

// The panel in a real terminal: hook calls show up as a checkpoint (the
// test logs how long it took: the bounds here are hang bounds, not
// timings); `a` acknowledges it; the journal holds the ack and status
// agrees.
func TestPanelInTmux(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	env["CULLY_CONFIG"] = filepath.Join(env["PWD"], "none.toml")
	pane := newTmux(t, 60, 30, map[string]string{"CULLY_HOME": env["CULLY_HOME"], "HOME": env["HOME"], "CULLY_CONFIG": env["CULLY_CONFIG"]}, "panel")
	pane.waitFor("waiting for the first hook call", 20*time.Second)

	send := func(p string) {
		if r := cully(t, env, []byte(p), "hook"); r.code != 0 {
			t.Fatal(r)
		}
	}
	send(`{"session_id":"tmux-s1","cwd":"/home/dev/project","hook_event_name":"UserPromptSubmit","prompt":"go"}`)
	for i := 0; i < 20; i++ {
		id := fmt.Sprintf("t%d", i)
		send(`{"session_id":"tmux-s1","cwd":"/home/dev/project","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/home/dev/project/a.go"},"tool_use_id":"` + id + `"}`)
		send(`{"session_id":"tmux-s1","cwd":"/home/dev/project","hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":"/home/dev/project/a.go"},"tool_response":{},"tool_use_id":"` + id + `"}`)
	}
	took := pane.waitFor("c1 exploring", 20*time.Second)
	t.Logf("checkpoint on screen %v after the hook call that raised it", took)

	pane.send("a")
	pane.waitFor("c1 acknowledged · u undoes", 5*time.Second) // shown for the undo window's 5 s
	// Written when the undo window ends.
	pane.waitFor("c1 acknowledged: the agent is no longer told", 10*time.Second)
	pane.waitFor("none open", 20*time.Second)
	var acked bool
	for _, ev := range journal(t, env["CULLY_HOME"]) {
		if ev.Kind == "ack" && len(ev.Ack) == 1 && ev.Ack[0] == "c1" {
			acked = true
		}
	}
	if !acked {
		t.Fatal("the journal holds no ack for c1")
	}
	r := cully(t, env, nil, "status")
	if !strings.Contains(r.stdout, "c1   acknowledged") {
		t.Fatalf("status disagrees:\n%s", r.stdout)
	}
	pane.send("q")
}

// Inside tmux, panel --split opens the panel in a new pane to the right,
// and the focus stays in the pane the user typed it in: their next keys
// belong to the agent, not to the panel.
func TestPanelSplitInTmux(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	pane := newTmux(t, 120, 30, map[string]string{"CULLY_HOME": env["CULLY_HOME"], "HOME": env["HOME"]}, "panel", "--split", "--width", "50")
	deadline := time.Now().Add(5 * time.Second)
	for {
		panes := strings.Fields(pane.run("list-panes", "-t", "panel", "-F", "#{pane_index}:#{pane_width}:#{pane_active}"))
		if len(panes) == 2 && strings.HasPrefix(panes[1], "1:50:") {
			out := pane.run("capture-pane", "-p", "-t", "panel.1")
			if strings.Contains(out, "waiting for the first hook call") {
				if panes[0] != "0:69:1" || panes[1] != "1:50:0" {
					t.Fatalf("the panel took the focus: %v (want pane 0 active)", panes)
				}
				if active := strings.TrimSpace(pane.run("display-message", "-p", "-t", "panel", "#{pane_index}")); active != "0" {
					t.Fatalf("active pane %s, want 0", active)
				}
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no 50-column panel pane: %v", panes)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// At the default --split width a guard warning can be read whole: the
// selected one wraps in the list, and enter shows it with the nudge.
func TestPanelGuardReadableAt56(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	env["CULLY_CONFIG"] = filepath.Join(env["PWD"], "none.toml")
	pane := newTmux(t, 56, 40, map[string]string{"CULLY_HOME": env["CULLY_HOME"], "HOME": env["HOME"], "CULLY_CONFIG": env["CULLY_CONFIG"]}, "panel")
	pane.waitFor("waiting for the first hook call", 20*time.Second)
	send := func(p string) {
		if r := cully(t, env, []byte(p), "hook"); r.code != 0 {
			t.Fatal(r)
		}
	}
	const cmd = "go test -run TestParseEmptyInputReturnsEmptyDocument ./internal/parser/..."
	base := `{"session_id":"tmux-g1","cwd":"/home/dev/project","tool_name":"Bash","tool_input":{"command":"` + cmd + `"},`
	send(`{"session_id":"tmux-g1","cwd":"/home/dev/project","hook_event_name":"UserPromptSubmit","prompt":"go"}`)
	for i := 0; i < 3; i++ {
		id := fmt.Sprintf(`"tool_use_id":"g%d"`, i)
		send(base + `"hook_event_name":"PreToolUse",` + id + `}`)
		if i < 2 {
			send(base + `"hook_event_name":"PostToolUseFailure","error":"Exit code 1\n--- FAIL: TestParseEmptyInputReturnsEmptyDocument","is_interrupt":false,` + id + `}`)
		}
	}
	var st struct {
		Warnings []struct{ Reason, Evidence string } `json:"guard_warnings"`
	}
	r := cully(t, env, nil, "status", "--json", "--session", "tmux-g1")
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil || len(st.Warnings) != 1 {
		t.Fatalf("want one guard warning: %v %s", err, r.stdout)
	}
	evidence := st.Warnings[0].Evidence
	if len(evidence) <= 56 {
		t.Fatalf("evidence %q fits a line: the test proves nothing", evidence)
	}
	pane.waitFor("third-attempt", 20*time.Second)
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(squashSpace(pane.screen()), squashSpace(evidence)) {
		if time.Now().After(deadline) {
			t.Fatalf("the selected guard's evidence %q is not whole on screen:\n%s", evidence, pane.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
	pane.send("Enter")
	pane.waitFor("Guard warning", 20*time.Second)
	out := strings.ReplaceAll(pane.screen(), "│", "")
	for _, want := range []string{evidence, "cully: " + evidence} {
		if !strings.Contains(squashSpace(out), squashSpace(want)) {
			t.Errorf("details miss %q:\n%s", want, out)
		}
	}
	pane.send("Escape")
	pane.send("q")
}

func squashSpace(s string) string { return strings.Join(strings.Fields(s), "") }

// A hook call cully fails at (here a payload that is not JSON, which the
// hook answers with nothing and logs) shows in the panel on a line of its
// own, at once and in a real terminal; one logged before the panel opened
// does not.
func TestPanelSaysWhenCullyFails(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	bad := func() {
		if r := runBin(t, "cully-hook", env, []byte(`{"session_id":`)); r.code != 0 || r.stdout != "" {
			t.Fatalf("cully-hook on a torn payload: %+v", r)
		}
	}
	bad() // before the panel
	pane := newTmux(t, 170, 20, map[string]string{"CULLY_HOME": env["CULLY_HOME"], "HOME": env["HOME"]}, "panel")
	pane.waitFor("waiting for the first hook call", 20*time.Second)
	time.Sleep(300 * time.Millisecond)
	if strings.Contains(pane.screen(), "cully error") {
		t.Fatalf("an error from before the panel opened is shown:\n%s", pane.screen())
	}
	// The panel's first read of the log may still be on its way: a failing
	// call every 300 ms until one shows.
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(pane.screen(), "cully error") {
		if time.Now().After(deadline) {
			t.Fatalf("no error line:\n%s", pane.screen())
		}
		bad()
		time.Sleep(300 * time.Millisecond)
	}
	if scr := pane.screen(); !strings.Contains(scr, "since the panel opened · last ") || !strings.Contains(scr, "hook: decode Claude Code payload: line 1, column 15: unexpected end of JSON input · cully doctor") {
		t.Errorf("the error line:\n%s", scr)
	}
	pane.send("q")
}

// In a real terminal, the session that needs the user is listed first: a
// question to the user (Claude Code's AskUserQuestion, its pre-tool call
// open) moves the session that asks above the one that works.
func TestPanelNeedsYouFirstInTmux(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	env["CULLY_CONFIG"] = filepath.Join(env["PWD"], "none.toml")
	pane := newTmux(t, 60, 30, map[string]string{"CULLY_HOME": env["CULLY_HOME"], "HOME": env["HOME"], "CULLY_CONFIG": env["CULLY_CONFIG"]}, "panel")
	pane.waitFor("waiting for the first hook call", 20*time.Second)
	send := func(session, cwd, rest string) {
		t.Helper()
		p := `{"session_id":"` + session + `","cwd":"` + cwd + `",` + rest + `}`
		if r := cully(t, env, []byte(p), "hook"); r.code != 0 {
			t.Fatal(r)
		}
	}
	send("tmux-a", "/home/dev/alpha", `"hook_event_name":"UserPromptSubmit","prompt":"go"`)
	send("tmux-b", "/home/dev/bravo", `"hook_event_name":"UserPromptSubmit","prompt":"go"`)
	send("tmux-b", "/home/dev/bravo", `"hook_event_name":"PreToolUse","tool_name":"AskUserQuestion","tool_input":{"questions":[]},"tool_use_id":"q1"`)
	send("tmux-a", "/home/dev/alpha", `"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/home/dev/alpha/a.go"},"tool_use_id":"r1"`)
	deadline := time.Now().Add(5 * time.Second)
	for {
		scr := pane.screen()
		var first, second string
		for _, l := range strings.Split(scr, "\n") {
			switch {
			case strings.HasPrefix(l, "1") && strings.Contains(l, "bravo"):
				first = l
			case strings.HasPrefix(l, "2") && strings.Contains(l, "alpha"):
				second = l
			}
		}
		if strings.Contains(first, "question") && strings.Contains(second, "working") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("bravo (a question) not listed first, above alpha:\n%s", scr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	pane.send("q")
}

// With no status line, the panel shows the cost, the context and the
// tokens read from the session's transcript where the install hint was:
// the cost marked as an estimate.
func TestPanelShowsTranscriptCost(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	env["CULLY_CONFIG"] = filepath.Join(env["PWD"], "none.toml")
	dir := filepath.Join(env["HOME"], ".claude", "projects", "-home-dev-project")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	// claude-sonnet-4-5: 100×$3 + 2000×$3.75 + 30000×$0.30 + 400×$15 per million = $0.0228
	line := `{"type":"assistant","sessionId":"tmux-c1","requestId":"req_1","message":{"id":"msg_1","model":"claude-sonnet-4-5","role":"assistant","content":[],` +
		`"usage":{"input_tokens":100,"cache_creation_input_tokens":2000,"cache_read_input_tokens":30000,"output_tokens":400}}}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "tmux-c1.jsonl"), []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := cully(t, env, []byte(`{"session_id":"tmux-c1","cwd":"/home/dev/project","hook_event_name":"UserPromptSubmit","prompt":"go"}`), "hook"); r.code != 0 {
		t.Fatal(r)
	}
	pane := newTmux(t, 56, 40, map[string]string{"CULLY_HOME": env["CULLY_HOME"], "HOME": env["HOME"], "CULLY_CONFIG": env["CULLY_CONFIG"]}, "panel")
	pane.waitFor("~$0.02 est. · context 16% of 200k", 10*time.Second)
	if strings.Contains(pane.screen(), "install --statusline") {
		t.Errorf("the install hint beside the figures:\n%s", pane.screen())
	}
	pane.send("q")
}
