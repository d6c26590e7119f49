package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// preTool sends a Claude Code PreToolUse for a shell command from the
// session's repository and returns the hook's answer.
func (w *twoRepos) preTool(repo, session, cmd string) string {
	w.t.Helper()
	w.seq++
	p := fmt.Sprintf(`{"session_id":%q,"hook_event_name":"PreToolUse","cwd":%q,"permission_mode":"default","tool_use_id":"toolu_%d","tool_name":"Bash","tool_input":{"command":%q}}`,
		session, repo, w.seq, cmd)
	r := runBin(w.t, "cully-hook", w.in(repo), []byte(p))
	if r.code != 0 {
		w.t.Fatalf("cully-hook: %+v", r)
	}
	w.hook(repo, session, "PostToolUse", fmt.Sprintf(`,"tool_name":"Bash","tool_input":{"command":%q},"tool_response":{"stdout":"","stderr":"","interrupted":false}`, cmd))
	return r.stdout
}

// panelIn starts the panel in a repository, following a session.
func (w *twoRepos) panelIn(t *testing.T, repo, session string) *tmuxPane {
	env := w.in(repo)
	delete(env, "CLAUDE_PROJECT_DIR")
	return newTmux(t, 100, 40, env, "panel", "--session", session)
}

// p in the panel stops the run as `cully stop` does: Claude Code's next
// PreToolUse is refused (permissionDecision deny); r, with a reason typed
// inline, lifts it.
func TestPanelPauseResume(t *testing.T) {
	t.Parallel()
	w := newTwoRepos(t)
	if a := w.preTool(w.a, sessA, "ls"); strings.Contains(a, `"deny"`) {
		t.Fatalf("refused before p: %s", a)
	}
	p := w.panelIn(t, w.a, sessA)
	p.waitFor("Run ", 20*time.Second)
	p.send("p")
	p.waitFor("(final snapshot", 20*time.Second)
	a := w.preTool(w.a, sessA, "ls")
	if !strings.Contains(a, `"permissionDecision":"deny"`) || !strings.Contains(a, "cully resume") {
		t.Fatalf("after p, the next pre-tool call is not refused: %s\n%s", a, p.screen())
	}
	p.send("r")
	p.waitFor("Resume the run", 10*time.Second)
	p.send("-l", "back to it")
	p.waitFor("› back to it", 10*time.Second)
	p.send("Enter")
	p.waitFor("resumed run", 20*time.Second)
	if a := w.preTool(w.a, sessA, "ls"); strings.Contains(a, `"deny"`) {
		t.Fatalf("after r, still refused: %s", a)
	}
	var resumed bool
	for _, ev := range journal(t, w.env["CULLY_HOME"]) {
		resumed = resumed || ev.Kind == "resume" && ev.Note == "back to it" && ev.Session == sessA
	}
	if !resumed {
		t.Errorf("the resume's reason is not in the journal")
	}
}

// claudeCall sends one Claude Code payload for session "s" from env's
// folder and returns the hook's answer.
func claudeCall(t *testing.T, env map[string]string, event string, extra string) string {
	t.Helper()
	p := fmt.Sprintf(`{"session_id":"s","hook_event_name":%q,"cwd":%q,"permission_mode":"default"%s}`, event, env["PWD"], extra)
	r := runBin(t, "cully-hook", env, []byte(p))
	if r.code != 0 {
		t.Fatalf("cully-hook: %+v", r)
	}
	return r.stdout
}

// t in the panel tells the selected checkpoint, one shown and not told
// (exploring, with the default explore_tell of 0): the next pre-tool
// answer carries its text, once.
func TestPanelTell(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	claudeCall(t, env, "UserPromptSubmit", `,"prompt":"look around"`)
	read := func(i int) string {
		in := fmt.Sprintf(`,"tool_name":"Read","tool_input":{"file_path":%q},"tool_use_id":"toolu_%d"`, filepath.Join(env["PWD"], fmt.Sprintf("f%d.go", i)), i)
		a := claudeCall(t, env, "PreToolUse", in)
		claudeCall(t, env, "PostToolUse", in+`,"tool_response":{"type":"text","file":{"content":"x"}}`)
		return a
	}
	for i := range 22 {
		if a := read(i); strings.Contains(a, "checkpoint c") {
			t.Fatalf("read %d: a checkpoint told before t: %s", i, a)
		}
	}
	p := newTmux(t, 100, 40, env, "panel", "--session", "s")
	p.waitFor("c1 exploring", 20*time.Second)
	p.send("t")
	p.waitFor("c1 is told at the agent's next tool call", 20*time.Second)
	a := read(22)
	if !strings.Contains(a, "checkpoint c1 (exploring)") || !strings.Contains(a, `"additionalContext"`) {
		t.Fatalf("the next pre-tool answer does not carry c1: %s", a)
	}
	if a := read(23); strings.Contains(a, "checkpoint c1") {
		t.Errorf("c1 told twice: %s", a)
	}
}

// g in the panel selects the agent's tmux pane, as its hook recorded it
// (TMUX_PANE at the prompt): here the agent runs in a window of its own
// beside the panel's.
func TestPanelGoToAgentPane(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	// The session exists before the panel that names it starts (a panel
	// given a session nobody recorded says so and exits).
	claudeCall(t, env, "SessionStart", `,"source":"startup"`)
	p := newTmux(t, 100, 30, env, "panel", "--session", "s")
	agent := strings.TrimSpace(p.run("new-window", "-d", "-t", "panel", "-P", "-F", "#{pane_id}", "sleep 60"))
	if !strings.HasPrefix(agent, "%") {
		t.Fatalf("new-window said %q", agent)
	}
	hookEnv := map[string]string{"TMUX_PANE": agent}
	for k, v := range env {
		hookEnv[k] = v
	}
	claudeCall(t, hookEnv, "UserPromptSubmit", `,"prompt":"go"`)
	p.waitFor("task 1", 20*time.Second)
	active := func() bool {
		for _, l := range strings.Split(p.run("list-panes", "-a", "-F", "#{pane_id} #{window_active}#{pane_active}"), "\n") {
			if l == agent+" 11" {
				return true
			}
		}
		return false
	}
	if active() {
		t.Fatal("the agent's pane is active before g")
	}
	p.send("g")
	waitUntil(t, 20*time.Second, active)
}

// d in the panel shows the run's diff: a file the agent's shell command
// wrote, marked the agent's, and one the user changed between calls,
// marked outside; R shows the rollback's dry run, y rolls back, and the
// undo step is shown: the agent's files are back, the user's kept.
func TestPanelDiffAndRollback(t *testing.T) {
	t.Parallel()
	w := newTwoRepos(t)
	cmd := "printf 'made by a shell\\n' > shell.txt"
	in := fmt.Sprintf(`,"tool_name":"Bash","tool_input":{"command":%q}`, cmd)
	w.hook(w.a, sessA, "PreToolUse", in)
	w.write(filepath.Join(w.a, "shell.txt"), "made by a shell\n")
	w.hook(w.a, sessA, "PostToolUse", in+`,"tool_response":{"stdout":"","stderr":"","interrupted":false}`)
	w.write(filepath.Join(w.a, "sub", "keep.txt"), "the user's\n")
	w.wait(w.a, sessA)
	p := w.panelIn(t, w.a, sessA)
	p.waitFor("Run ", 20*time.Second)
	p.send("d")
	p.waitFor("shell.txt · added · agent", 20*time.Second)
	scr := p.screen()
	for _, want := range []string{"+made by a shell", "sub/keep.txt · modified · outside the agent's calls", "a.txt · modified · agent"} {
		if !strings.Contains(scr, want) {
			t.Errorf("the diff misses %q:\n%s", want, scr)
		}
	}
	p.send("Escape")
	p.waitFor("Recent", 10*time.Second) // a key sent at once after esc would read as alt+key
	p.send("R")
	p.waitFor("dry run:", 20*time.Second)
	scr = p.screen()
	if !strings.Contains(scr, "remove   shell.txt") || !strings.Contains(scr, "left     sub/keep.txt") || !w.edited(w.a, "a.txt", "a1\n", "new-a.txt") {
		t.Fatalf("the dry run:\n%s", scr)
	}
	p.send("y")
	p.waitFor("undo: cully rollback --to", 30*time.Second)
	if !w.reverted(w.a, "a.txt", "a0\n", "new-a.txt") {
		t.Errorf("y did not roll back: a.txt %q", w.read(filepath.Join(w.a, "a.txt")))
	}
	if _, err := os.Stat(filepath.Join(w.a, "shell.txt")); err == nil {
		t.Errorf("shell.txt, the agent's, is still there")
	}
	if got := w.read(filepath.Join(w.a, "sub", "keep.txt")); got != "the user's\n" {
		t.Errorf("the user's change was not kept: %q", got)
	}
}
