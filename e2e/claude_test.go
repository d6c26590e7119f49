//go:build e2e

package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cully/install"
)

// claudeVersion is the pinned client, the one the captured payloads in
// hookbridge/claude/testdata came from.
const claudeVersion = "2.1.332"

var (
	claudeBin string
	binDir    string
)

func TestMain(m *testing.M) {
	var err error
	if claudeBin, err = ensureClaude(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: cannot get the Claude Code client:", err)
		os.Exit(1)
	}
	binDir, err = os.MkdirTemp("", "cully-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for pkg, name := range map[string]string{"../cmd/cully": "cully", "../cmd/cully-hook": "cully-hook", "../cmd/cully-export": "cully-export", "../cmd/cully-daemon": "cully-daemon"} {
		build := exec.Command("go", "build", "-o", filepath.Join(binDir, name), pkg)
		build.Env = append(os.Environ(), "CGO_ENABLED=0") // as cully is built everywhere
		if out, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "build %s: %v\n%s", name, err, out)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(binDir)
	os.Exit(code)
}

// ensureClaude returns the pinned claude binary, installing it from npm
// into the cache when missing.
func ensureClaude() (string, error) {
	if p := os.Getenv("CULLY_E2E_CLAUDE"); p != "" {
		return p, nil
	}
	cache := os.Getenv("CULLY_E2E_CACHE")
	if cache == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		cache = filepath.Join(home, ".cache", "cully-e2e")
	}
	dir := filepath.Join(cache, "claude-code-"+claudeVersion)
	bin := filepath.Join(dir, "node_modules", "@anthropic-ai", "claude-code-linux-x64", "claude")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	cmd := exec.Command("npm", "install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", dir, "@anthropic-ai/claude-code@"+claudeVersion)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm install: %v\n%s", err, out)
	}
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("installed, but no binary at %s: %w", bin, err)
	}
	return bin, nil
}

// session is one headless claude run with cully installed.
type session struct {
	t       *testing.T
	home    string
	project string
	state   string
	env     []string
	api     *mockAPI
	elapsed time.Duration
}

func newSession(t *testing.T, script []toolCall, extraEnv ...string) *session {
	dir := t.TempDir()
	s := &session{t: t, home: filepath.Join(dir, "home"), project: filepath.Join(dir, "project"), state: filepath.Join(dir, "state")}
	for _, d := range []string{s.home, s.project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s.api = newMockAPI(t, script)
	s.env = []string{
		"HOME=" + s.home, "PATH=" + os.Getenv("PATH"), "CULLY_HOME=" + s.state,
		"ANTHROPIC_BASE_URL=" + s.api.url, "ANTHROPIC_API_KEY=sk-ant-e2e-test-key-not-real",
		"IS_SANDBOX=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1",
		// No background snapshot outlives a test's temporary folder (the
		// snapshots' own tests are cmd/cully's scripts and package runs).
		"CULLY_SNAPSHOTS=off",
	}
	s.env = append(s.env, extraEnv...)
	return s
}

// useConfig gives the session's cully a user config file.
func (s *session) useConfig(toml string) {
	p := filepath.Join(s.home, "cully.toml")
	if err := os.WriteFile(p, []byte(toml), 0o600); err != nil {
		s.t.Fatal(err)
	}
	s.env = append(s.env, "CULLY_CONFIG="+p)
}

func (s *session) file(name string, size int) string {
	line := []byte("e2e fixture line: the content does not matter, its size does.\n")
	return s.write(name, string(bytes.Repeat(line, size/len(line)+1)[:size]))
}

func (s *session) write(name, content string) string {
	p := filepath.Join(s.project, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		s.t.Fatal(err)
	}
	return p
}

// install wires cully into the throwaway HOME with `cully install`: its
// hook command sets the hook's environment before the program
// (install.HookEnv), which the client's own shell then runs.
func (s *session) install() {
	s.installCommand(filepath.Join(binDir, "cully-hook"))
	b, err := os.ReadFile(filepath.Join(s.home, ".claude", "settings.json"))
	if want := `"command": "` + install.HookEnv + " " + filepath.Join(binDir, "cully-hook"); err != nil || !bytes.Contains(b, []byte(want)) {
		s.t.Fatalf("the installed hook command is not %s…: %v\n%s", want, err, b)
	}
}

// installCommand installs the hook entries with another command (a no-op
// hook gives the client's own cost of running hooks).
func (s *session) installCommand(hook string) {
	cmd := exec.Command(filepath.Join(binDir, "cully"), "install", "--command", hook)
	cmd.Env = s.env
	if out, err := cmd.CombinedOutput(); err != nil {
		s.t.Fatalf("cully install: %v\n%s", err, out)
	}
}

// run runs `claude -p` headless to the end of the script.
func (s *session) run() {
	cmd := exec.Command(claudeBin, "-p", "Do the scripted steps.", "--output-format", "stream-json", "--verbose",
		"--dangerously-skip-permissions", "--max-turns", "60")
	cmd.Env = s.env
	cmd.Dir = s.project
	cmd.Stdin = nil // /dev/null: claude -p appends any readable stdin to the prompt
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		s.elapsed = time.Since(start)
		if err != nil {
			s.t.Fatalf("claude: %v\nstderr: %s\nstdout tail: %s", err, errb.String(), tail(out.String(), 3000))
		}
	case <-time.After(4 * time.Minute):
		cmd.Process.Kill()
		s.t.Fatalf("claude did not finish\nstderr: %s", errb.String())
	}
	if !strings.Contains(out.String(), `"type":"result"`) {
		s.t.Fatalf("no result from claude:\n%s", tail(out.String(), 3000))
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// journal returns the records cully wrote.
func (s *session) journal() []map[string]any {
	f, err := os.Open(filepath.Join(s.state, "journal.jsonl"))
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			s.t.Fatalf("journal line: %v", err)
		}
		out = append(out, m)
	}
	return out
}

func repeat(n int, c toolCall) []toolCall {
	out := make([]toolCall, n)
	for i := range out {
		out[i] = c
	}
	return out
}

func read(path string) toolCall { return toolCall{"Read", map[string]any{"file_path": path}} }
func bash(cmd string) toolCall {
	return toolCall{"Bash", map[string]any{"command": cmd, "description": "e2e step"}}
}

// nudgeMark is in every cully nudge as the client delivers it. (The word
// "cully" alone is in every request once the skill is installed: the
// client lists installed skills in its system prompt.)
const nudgeMark = "hook additional context: cully"

// nudgeCount is how often the model was shown a cully text in the final
// request: injected context persists, so this counts deliveries.
func (s *session) nudgeCount(sub string) int { return count(s.api.last(), sub) }

// The exploring checkpoint, told at its threshold (by default it is shown,
// not told), reaches the model exactly once, right after the 21st call
// (raised by the 20th read, delivered before the next call), and the
// journal holds one record per tool call the mock issued.
func TestExploringCheckpointReachesModelOnce(t *testing.T) {
	s := newSession(t, nil)
	s.useConfig("[rules]\nexplore_tell = 20\n")
	for i := 0; i < 23; i++ {
		s.api.script = append(s.api.script, read(s.file(fmt.Sprintf("notes-%02d.txt", i), 600)))
	}
	s.install()
	s.run()
	const marker = "cully checkpoint c1 (exploring)"
	if got := s.api.firstWith(marker); got != 21 {
		t.Errorf("checkpoint first reached the model in request %d, want 21 (after the 21st call)", got)
	}
	if n := s.nudgeCount(marker); n != 1 {
		t.Errorf("checkpoint shown %d times in the last request, want exactly 1", n)
	}
	if n := s.nudgeCount("PreToolUse:Read hook additional context: cully checkpoint"); n != 1 {
		t.Errorf("the nudge should arrive as PreToolUse additional context, found %d", n)
	}
	// One journal record per issued call, pre and post, matched by id.
	posts, pres := map[string]int{}, map[string]int{}
	for _, r := range s.journal() {
		id, _ := r["tool_use_id"].(string)
		switch r["hook"] {
		case "PostToolUse", "PostToolUseFailure":
			posts[id]++
		case "PreToolUse":
			pres[id]++
		}
	}
	if len(s.api.issued) != 23 || len(posts) != len(s.api.issued) || len(pres) != len(s.api.issued) {
		t.Errorf("issued %d calls, journal has %d post and %d pre records", len(s.api.issued), len(posts), len(pres))
	}
	for _, id := range s.api.issued {
		if posts[id] != 1 || pres[id] != 1 {
			t.Errorf("call %s: %d pre, %d post records", id, pres[id], posts[id])
		}
	}
	t.Logf("23 tool calls in %v with cully", s.elapsed)
}

// The blind-retry guard reaches the model before the third identical
// failing command, and not when an edit came between.
func TestThirdAttemptGuard(t *testing.T) {
	const cmd = "ls /nonexistent-cully-e2e-dir"
	const marker = "failed on its last 2 runs"
	t.Run("blind", func(t *testing.T) {
		s := newSession(t, repeat(3, bash(cmd)))
		s.install()
		s.run()
		if got := s.api.firstWith(marker); got != 3 {
			t.Errorf("guard first reached the model in request %d, want 3", got)
		}
		if n := s.nudgeCount("PreToolUse:Bash hook additional context: cully: `" + cmd + "` " + marker); n != 1 {
			t.Errorf("guard shown %d times", n)
		}
	})
	t.Run("after an edit", func(t *testing.T) {
		s := newSession(t, nil)
		f := s.write("fix.txt", "alpha beta gamma\n")
		edit := toolCall{"Edit", map[string]any{"file_path": f, "old_string": "alpha", "new_string": "ALPHA", "replace_all": false}}
		// This client edits only files read in the session: read, then edit.
		s.api.script = []toolCall{bash(cmd), bash(cmd), read(f), edit, bash(cmd)}
		s.install()
		s.run()
		if n := s.nudgeCount(marker); n != 0 {
			t.Errorf("a retry after an edit is not blind, yet the guard was shown %d times", n)
		}
	})
}

// The unchanged re-read guard reaches the model; ranged reads never
// trigger it.
func TestRereadGuard(t *testing.T) {
	s := newSession(t, nil)
	f := s.file("big.txt", 12<<10)
	ranged := toolCall{"Read", map[string]any{"file_path": f, "offset": 10, "limit": 5}}
	s.api.script = []toolCall{ranged, ranged, read(f), read(f)}
	s.install()
	s.run()
	const marker = "was read whole"
	if got := s.api.firstWith(marker); got != 4 {
		t.Errorf("re-read guard first reached the model in request %d, want 4 (after the second whole read)", got)
	}
	if n := s.nudgeCount(marker); n != 1 {
		t.Errorf("re-read guard shown %d times", n)
	}
}

// With CULLY_GUARD=off nothing reaches the model, and the journal still
// records every call.
func TestGuardOff(t *testing.T) {
	s := newSession(t, nil, "CULLY_GUARD=off")
	f := s.file("notes.txt", 600)
	s.api.script = repeat(22, read(f))
	s.install()
	s.run()
	if i := s.api.firstWith(nudgeMark); i >= 0 {
		t.Errorf("request %d shows a cully nudge with CULLY_GUARD=off", i)
	}
	posts := 0
	for _, r := range s.journal() {
		if r["hook"] == "PostToolUse" {
			posts++
		}
	}
	if posts != 22 {
		t.Errorf("journal has %d tool results, want 22", posts)
	}
}

// With an unwritable CULLY_HOME the run completes with the same tool calls,
// and no cully text reaches the model.
func TestUnwritableStateDir(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "not-a-dir")
	os.WriteFile(blocker, []byte("x"), 0o600)
	s := newSession(t, nil, "CULLY_HOME="+filepath.Join(blocker, "state"))
	f := s.file("notes.txt", 600)
	s.api.script = append(repeat(21, read(f)), bash("ls /nonexistent-cully-e2e-dir"), bash("ls /nonexistent-cully-e2e-dir"), bash("ls /nonexistent-cully-e2e-dir"))
	// Install keeps its record and backups in a state dir, so it runs with
	// a usable one; the agent's hooks then get the broken one.
	runEnv := s.env
	s.env = append(append([]string(nil), runEnv...), "CULLY_HOME="+filepath.Join(dir, "install-state"))
	s.install()
	s.env = runEnv
	s.run()
	if len(s.api.issued) != 24 {
		t.Errorf("issued %d calls, want 24", len(s.api.issued))
	}
	for _, mark := range []string{nudgeMark, "cully hook:", "cully-hook", "errors.log"} {
		if i := s.api.firstWith(mark); i >= 0 {
			t.Errorf("request %d shows %q although cully could not run", i, mark)
		}
	}
	if n := len(s.api.requests); n != 25 {
		t.Errorf("%d model requests, want 25 (one per call plus the closing one)", n)
	}
}

// In the real client, the hook's captures before and after each call that
// may change files let a rollback revert what the agent's calls did and
// leave what the user did: the agent's Write and shell edits go back, a
// file the user wrote after the run stays, listed.
func TestRollbackRevertsTheAgentsCalls(t *testing.T) {
	s := newSession(t, nil, "CULLY_SNAPSHOTS=on", "CULLY_SNAPSHOT_LINGER=2s")
	s.write("notes.txt", "one\ntwo\n")
	s.write("old.txt", "old\n")
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.email=e2e@example.com", "-c", "user.name=e2e"}, args...)...)
		cmd.Dir, cmd.Env = s.project, s.env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-qm", "init")
	s.api.script = []toolCall{
		{Name: "Write", Input: map[string]any{"file_path": filepath.Join(s.project, "made.txt"), "content": "by the agent\n"}},
		bash("sed -i s/one/agent/ notes.txt && rm old.txt"),
	}
	s.install()
	s.run()
	s.write("user.txt", "the user's, after the run\n")
	cully := func(args ...string) string {
		cmd := exec.Command(filepath.Join(binDir, "cully"), args...)
		cmd.Dir, cmd.Env = s.project, s.env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("cully %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	cully("snapshot", "--wait", "--timeout", "60s")
	marks := 0
	runs, _ := filepath.Glob(filepath.Join(s.state, "runs", "*", "marks.jsonl"))
	for _, f := range runs {
		b, _ := os.ReadFile(f)
		marks += bytes.Count(b, []byte("\n"))
	}
	if marks < 4 {
		t.Fatalf("%d marks for two calls that change files, want a pre and a post each", marks)
	}
	out := cully("rollback", "--to", "0")
	for _, want := range []string{"restored  notes.txt", "restored  old.txt", "removed   made.txt", "left      user.txt (changed outside the agent's calls)"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	for f, want := range map[string]string{"notes.txt": "one\ntwo\n", "old.txt": "old\n", "user.txt": "the user's, after the run\n"} {
		if b, err := os.ReadFile(filepath.Join(s.project, f)); err != nil || string(b) != want {
			t.Errorf("%s = %q, %v; want %q", f, b, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(s.project, "made.txt")); err == nil {
		t.Error("made.txt, the agent's, is still there")
	}
}
