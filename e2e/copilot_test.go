//go:build e2e

package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// copilotVersion is the pinned GitHub Copilot CLI, the one the captured
// payloads in hookbridge/copilot/testdata came from.
const copilotVersion = "1.0.102"

// ensureCopilot returns the pinned copilot binary, installing it from npm
// into the cache when missing (its platform package holds the binary).
func ensureCopilot(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CULLY_E2E_COPILOT"); p != "" {
		return p
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skipf("the pinned Copilot CLI binary is fetched for linux-x64 only, not %s-%s", runtime.GOOS, runtime.GOARCH)
	}
	cache := os.Getenv("CULLY_E2E_CACHE")
	if cache == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			t.Fatal(err)
		}
		cache = filepath.Join(home, ".cache", "cully-e2e")
	}
	dir := filepath.Join(cache, "copilot-"+copilotVersion)
	bin := filepath.Join(dir, "node_modules", "@github", "copilot-linux-x64", "copilot")
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("npm", "install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", dir, "@github/copilot@"+copilotVersion)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm install @github/copilot@%s: %v\n%s", copilotVersion, err, out)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("installed, but no binary at %s: %v", bin, err)
	}
	return bin
}

// copilotSession is one `copilot -p` run with cully installed, its model a
// loopback mock of the Anthropic Messages API reached through Copilot
// CLI's bring-your-own-model settings: no GitHub sign-in, no network.
type copilotSession struct {
	t       *testing.T
	bin     string
	home    string
	project string
	state   string
	env     []string
	api     *mockAPI
}

func newCopilotSession(t *testing.T, script []toolCall) *copilotSession {
	dir := t.TempDir()
	s := &copilotSession{t: t, bin: ensureCopilot(t), home: filepath.Join(dir, "home"), project: filepath.Join(dir, "project"), state: filepath.Join(dir, "state")}
	for _, d := range []string{s.home, s.project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s.api = newMockAPI(t, script)
	s.env = []string{
		"HOME=" + s.home, "PATH=" + os.Getenv("PATH"), "CULLY_HOME=" + s.state, "CULLY_SNAPSHOTS=off", "TERM=dumb",
		"COPILOT_PROVIDER_BASE_URL=" + s.api.url, "COPILOT_PROVIDER_TYPE=anthropic",
		"COPILOT_PROVIDER_API_KEY=sk-e2e-test-key-not-real", "COPILOT_MODEL=claude-sonnet-4",
		"COPILOT_OFFLINE=true", "COPILOT_AUTO_UPDATE=false",
	}
	return s
}

func (s *copilotSession) useConfig(toml string) {
	p := filepath.Join(s.home, "cully.toml")
	if err := os.WriteFile(p, []byte(toml), 0o600); err != nil {
		s.t.Fatal(err)
	}
	s.env = append(s.env, "CULLY_CONFIG="+p)
}

func (s *copilotSession) file(name string, size int) string {
	p := filepath.Join(s.project, name)
	line := []byte("e2e fixture line: the content does not matter, its size does.\n")
	if err := os.WriteFile(p, bytes.Repeat(line, size/len(line)+1)[:size], 0o644); err != nil {
		s.t.Fatal(err)
	}
	return p
}

// cully runs the built cully with the session's environment.
func (s *copilotSession) cully(args ...string) string {
	cmd := exec.Command(filepath.Join(binDir, "cully"), args...)
	cmd.Env = s.env
	cmd.Dir = s.project
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.t.Fatalf("cully %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// install wires cully into the throwaway HOME with the real installer.
func (s *copilotSession) install() {
	s.cully("install", "--agent", "copilot", "--command", filepath.Join(binDir, "cully-hook"))
}

// run runs `copilot -p` to the end of the script.
func (s *copilotSession) run() {
	cmd := exec.Command(s.bin, "-p", "Do the scripted steps.", "--allow-all-tools", "--no-color")
	cmd.Env = s.env
	cmd.Dir = s.project
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			s.t.Fatalf("copilot: %v\nstderr: %s\nstdout: %s", err, tail(errb.String(), 3000), tail(out.String(), 3000))
		}
	case <-time.After(4 * time.Minute):
		cmd.Process.Kill()
		s.t.Fatalf("copilot did not finish\nstderr: %s", errb.String())
	}
	if len(s.api.issued) != len(s.api.script) {
		s.t.Fatalf("the mock issued %d of %d calls\nstdout: %s", len(s.api.issued), len(s.api.script), tail(out.String(), 3000))
	}
}

// journal returns the records cully wrote.
func (s *copilotSession) journal() []map[string]any {
	return (&session{t: s.t, state: s.state}).journal()
}

// preContext is how Copilot CLI shows the model a preToolUse hook's
// additionalContext: a user message after the call's result.
const preContext = "Additional context from preToolUse hook:\n"

func view(path string) toolCall { return toolCall{"view", map[string]any{"path": path}} }
func copilotBash(cmd string) toolCall {
	return toolCall{"bash", map[string]any{"command": cmd, "description": "e2e step"}}
}

// The exploring checkpoint, told at its threshold, reaches the model once,
// as preToolUse context after the 21st call; every call is journaled, pre
// and post, as Copilot CLI's, under the session id it gave.
func TestCopilotExploringCheckpointReachesModelOnce(t *testing.T) {
	s := newCopilotSession(t, nil)
	s.useConfig("[rules]\nexplore_tell = 20\n")
	for i := 0; i < 23; i++ {
		s.api.script = append(s.api.script, view(s.file(fmt.Sprintf("notes-%02d.txt", i), 600)))
	}
	s.install()
	s.run()
	const marker = "cully checkpoint c1 (exploring)"
	if got := s.api.firstWith(marker); got != 21 {
		t.Errorf("checkpoint first reached the model in request %d, want 21 (the one after the 21st call)", got)
	}
	if n := count(s.api.last(), preContext+marker); n != 1 {
		t.Errorf("checkpoint shown %d times in the last request as preToolUse context, want exactly 1", n)
	}
	pres, posts, sessions := 0, 0, map[any]bool{}
	for _, r := range s.journal() {
		if r["agent"] != "copilot" {
			t.Errorf("a record not Copilot CLI's: %v", r)
		}
		sessions[r["session"]] = true
		switch r["hook"] {
		case "preToolUse":
			pres++
		case "postToolUse":
			posts++
			if r["class"] != "read" || r["outcome"] != "ok" {
				t.Errorf("a view is a read that succeeded: %v", r)
			}
		}
	}
	if pres != 23 || posts != 23 || len(sessions) != 1 || sessions["unknown"] {
		t.Errorf("journal: %d pre, %d post, sessions %v; want 23, 23 and one named session", pres, posts, sessions)
	}
	if out := s.cully("status"); !strings.Contains(out, "(copilot)") || !strings.Contains(out, "project  project · ") {
		t.Errorf("status does not name the agent and project:\n%s", out)
	}
}

// A command that failed on its last two runs, run a third time unchanged:
// the guard reaches the model once. The exit status comes from the shell
// result's last line; uninstall then leaves no cully file behind.
func TestCopilotThirdAttemptGuard(t *testing.T) {
	const cmd = "ls /nonexistent-cully-e2e-dir"
	const marker = "failed on its last 2 runs"
	s := newCopilotSession(t, []toolCall{copilotBash(cmd), copilotBash(cmd), copilotBash(cmd)})
	s.install()
	s.run()
	if got := s.api.firstWith(marker); got != 3 {
		t.Errorf("guard first reached the model in request %d, want 3", got)
	}
	if n := count(s.api.last(), preContext+"cully: `"+cmd+"` "+marker); n != 1 {
		t.Errorf("guard shown %d times as preToolUse context", n)
	}
	fails := 0
	for _, r := range s.journal() {
		if r["hook"] == "postToolUse" {
			if r["outcome"] != "failed" || r["exit"] != float64(2) {
				t.Errorf("ls of a missing folder exits 2: %v", r)
			}
			fails++
		}
	}
	if fails != 3 {
		t.Errorf("%d failed calls journaled, want 3", fails)
	}
	s.cully("uninstall", "--agent", "copilot")
	if _, err := os.Stat(filepath.Join(s.home, ".copilot", "hooks", "cully.json")); !os.IsNotExist(err) {
		t.Errorf("uninstall left the hook file: %v", err)
	}
}
