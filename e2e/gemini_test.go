//go:build e2e

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// geminiVersion is the pinned Gemini CLI, the one whose package code the
// adapter's notes were read from and whose payloads are in
// hookbridge/gemini/testdata.
const geminiVersion = "0.61.0"

var geminiOnce struct {
	sync.Once
	path string
	err  error
}

// geminiJS returns the pinned client's entry script, installing it from
// npm into the cache on first use ($CULLY_E2E_GEMINI names one to use
// instead).
func geminiJS(t *testing.T) string {
	geminiOnce.Do(func() {
		if p := os.Getenv("CULLY_E2E_GEMINI"); p != "" {
			geminiOnce.path = p
			return
		}
		geminiOnce.path, geminiOnce.err = npmInstall("gemini-cli-"+geminiVersion, "@google/gemini-cli@"+geminiVersion,
			filepath.Join("node_modules", "@google", "gemini-cli", "bundle", "gemini.js"))
	})
	if geminiOnce.err != nil {
		t.Fatalf("cannot get Gemini CLI %s: %v", geminiVersion, geminiOnce.err)
	}
	return geminiOnce.path
}

// npmInstall installs pkg into dir of the e2e cache ($CULLY_E2E_CACHE,
// default ~/.cache/cully-e2e) unless rel is already there, and returns
// rel's path.
func npmInstall(dir, pkg, rel string) (string, error) {
	cache := os.Getenv("CULLY_E2E_CACHE")
	if cache == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		cache = filepath.Join(home, ".cache", "cully-e2e")
	}
	dir = filepath.Join(cache, dir)
	p := filepath.Join(dir, rel)
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	cmd := exec.Command("npm", "install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", dir, pkg)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm install %s: %v\n%s", pkg, err, out)
	}
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("installed %s, but no %s: %w", pkg, rel, err)
	}
	return p, nil
}

// geminiSession is one headless `gemini -p` run with cully installed by
// `cully install --agent gemini`.
type geminiSession struct {
	t                    *testing.T
	home, project, state string
	env                  []string
	api                  *geminiMock
	stdout, stderr       string
	elapsed              time.Duration
}

func newGeminiSession(t *testing.T, script []toolCall, extraEnv ...string) *geminiSession {
	dir := t.TempDir()
	s := &geminiSession{t: t, home: filepath.Join(dir, "home"), project: filepath.Join(dir, "project"), state: filepath.Join(dir, "state")}
	for _, d := range []string{filepath.Join(s.home, ".gemini"), s.project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The user's own settings, which install merges into: an API key
	// login, and no usage statistics (the machine has no network).
	settings := `{
  "security": { "auth": { "selectedType": "gemini-api-key" } },
  "privacy": { "usageStatisticsEnabled": false }
}
`
	if err := os.WriteFile(filepath.Join(s.home, ".gemini", "settings.json"), []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	s.api = newGeminiMock(t, script)
	s.env = append([]string{
		"HOME=" + s.home, "PATH=" + os.Getenv("PATH"), "CULLY_HOME=" + s.state, "CULLY_SNAPSHOTS=off",
		"GEMINI_API_KEY=e2e-test-key-not-real", "GOOGLE_GEMINI_BASE_URL=" + s.api.url,
		// Headless runs in an untrusted folder stop at start-up; trust,
		// as a CI job gives it, is what lets settings hooks run at all.
		"GEMINI_CLI_TRUST_WORKSPACE=true",
	}, extraEnv...)
	return s
}

func (s *geminiSession) write(name, content string) string {
	p := filepath.Join(s.project, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		s.t.Fatal(err)
	}
	return p
}

func (s *geminiSession) useConfig(toml string) {
	p := filepath.Join(s.home, "cully.toml")
	if err := os.WriteFile(p, []byte(toml), 0o600); err != nil {
		s.t.Fatal(err)
	}
	s.env = append(s.env, "CULLY_CONFIG="+p)
}

func (s *geminiSession) cully(args ...string) string {
	cmd := exec.Command(filepath.Join(binDir, "cully"), args...)
	cmd.Env, cmd.Dir = s.env, s.project
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.t.Fatalf("cully %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (s *geminiSession) install() {
	out := s.cully("install", "--agent", "gemini", "--command", filepath.Join(binDir, "cully-hook")+" --agent gemini")
	if !strings.Contains(out, "settings.json: updated") {
		s.t.Fatalf("install did not merge into the user's settings:\n%s", out)
	}
}

func (s *geminiSession) run() {
	cmd := exec.Command("node", geminiJS(s.t), "-p", "Do the scripted steps.", "--yolo", "--output-format", "json")
	cmd.Env, cmd.Dir, cmd.Stdin = s.env, s.project, nil
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		s.elapsed = time.Since(start)
		s.stdout, s.stderr = out.String(), errb.String()
		if err != nil {
			s.t.Fatalf("gemini: %v\nstderr: %s\nstdout: %s", err, tail(s.stderr, 3000), tail(s.stdout, 2000))
		}
	case <-time.After(4 * time.Minute):
		cmd.Process.Kill()
		s.t.Fatalf("gemini did not finish\nstderr: %s", tail(errb.String(), 3000))
	}
	var res struct {
		Response string `json:"response"`
	}
	if json.Unmarshal(out.Bytes(), &res) != nil || res.Response != "Done." {
		s.t.Fatalf("gemini did not finish the script:\n%s", tail(out.String(), 2000))
	}
}

func (s *geminiSession) journal() []map[string]any {
	b, err := os.ReadFile(filepath.Join(s.state, "journal.jsonl"))
	if err != nil {
		s.t.Fatalf("no journal: %v", err)
	}
	var out []map[string]any
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			s.t.Fatalf("journal line: %v", err)
		}
		out = append(out, m)
	}
	return out
}

func shell(cmd string) toolCall {
	return toolCall{"run_shell_command", map[string]any{"command": cmd, "description": "e2e step"}}
}

// The blind-retry guard, raised before the third identical failing
// command, reaches the model exactly once: appended to that call's result
// (BeforeTool's answer cannot reach it), so the model sees it in the
// request after the third call, with the failure-loop checkpoint which
// that third failure raised. The journal holds each call's pre and post
// records, and the turn's end the token figures of Gemini CLI's log.
func TestGeminiThirdAttemptGuard(t *testing.T) {
	const cmd = "ls /nonexistent-cully-e2e-dir"
	const marker = "failed on its last 2 runs"
	s := newGeminiSession(t, repeat(3, shell(cmd)))
	s.install()
	s.run()
	if got := s.api.firstWith(marker); got != 3 {
		t.Errorf("guard first reached the model in request %d, want 3 (after the third call)", got)
	}
	if n := s.api.count(-1, "cully: `"+cmd+"` "+marker); n != 1 {
		t.Errorf("guard shown %d times in the last request, want exactly 1", n)
	}
	// One delivery, as hook context on the third call's result, with the
	// failure-loop checkpoint that the same result raised.
	if n := s.api.count(-1, "<hook_context>cully checkpoint c1 (failure-loop)"); n != 1 || s.api.count(-1, "\n\n<hook_context>") != 1 {
		t.Errorf("want one hook context on a tool result, opening with the failure-loop checkpoint: %d, %d", n, s.api.count(-1, "\n\n<hook_context>"))
	}
	pre, post, stop := 0, 0, 0
	var usage map[string]any
	for _, r := range s.journal() {
		switch r["hook"] {
		case "BeforeTool":
			pre++
		case "AfterTool":
			post++
			if r["outcome"] != "failed" || r["exit"] != float64(2) {
				t.Errorf("the failing ls is recorded as %v (exit %v), want failed with exit 2", r["outcome"], r["exit"])
			}
		case "AfterAgent":
			stop++
			usage, _ = r["usage"].(map[string]any)
		}
	}
	if pre != 3 || post != 3 || stop != 1 {
		t.Errorf("journal: %d BeforeTool, %d AfterTool, %d AfterAgent records, want 3, 3, 1", pre, post, stop)
	}
	// The mock reported 1000+n prompt tokens and 10 output tokens for each
	// of its 4 streamed replies (n = 1…4).
	if usage == nil || usage["input_tokens"] != float64(4010) || usage["output_tokens"] != float64(40) || usage["context_tokens"] != float64(1004) {
		t.Errorf("turn-end usage from the session log = %v, want input 4010, output 40, context 1004", usage)
	}
	t.Logf("3 tool calls in %v", s.elapsed)
}

// The exploring checkpoint, told at its threshold, reaches the model once,
// with the result of the 20th read, the call that raised it; nothing of
// cully reaches the model with CULLY_GUARD=off.
func TestGeminiExploringCheckpoint(t *testing.T) {
	const marker = "cully checkpoint c1 (exploring)"
	script := func(s *geminiSession) {
		for i := 0; i < 22; i++ {
			s.api.script = append(s.api.script, toolCall{"read_file", map[string]any{"file_path": s.write(fmt.Sprintf("notes-%02d.txt", i), "a line\n")}})
		}
	}
	t.Run("told once", func(t *testing.T) {
		s := newGeminiSession(t, nil)
		s.useConfig("[rules]\nexplore_tell = 20\n")
		script(s)
		s.install()
		s.run()
		if got := s.api.firstWith(marker); got != 20 {
			t.Errorf("checkpoint first reached the model in request %d, want 20 (after the 20th read)", got)
		}
		if n := s.api.count(-1, marker); n != 1 {
			t.Errorf("checkpoint shown %d times in the last request, want 1", n)
		}
		out := s.cully("status", "--json")
		if !strings.Contains(out, `"reason": "exploring"`) {
			t.Errorf("status does not show the checkpoint:\n%s", out)
		}
	})
	t.Run("guard off", func(t *testing.T) {
		s := newGeminiSession(t, nil, "CULLY_GUARD=off")
		s.useConfig("[rules]\nexplore_tell = 20\n")
		script(s)
		s.install()
		s.run()
		if i := s.api.firstWith("\n\n<hook_context>"); i >= 0 {
			t.Errorf("request %d shows cully text with CULLY_GUARD=off", i)
		}
	})
}
