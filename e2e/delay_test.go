//go:build e2e

package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// hookModes are the ways a tool call can reach cully in Claude Code, and
// the baselines they are measured against.
var hookModes = []string{"none", "no-op", "cully", "cully-no-batch", "http", "http-down"}

// TestHookDelay measures, in the real client, what each hook mode adds to
// every tool call: the mock model times the client from its answer (a
// tool call) to the next request (the tool's result), so the difference
// from the no-hook session is the hooks' delay. Modes: a no-op command on
// every event cully registers (the client's own cost of running hooks);
// cully-hook as installed; cully-hook without PostToolBatch (the fewest
// process starts per call: pre and post); http hooks to `cully daemon`;
// and the same with the daemon down. It asserts what each mode must keep
// (every call recorded; with the daemon down no tool is blocked) and logs
// the figures; bench/client-delay.sh prints them (CULLY_DELAY_CALLS,
// CULLY_DELAY_ROUNDS). No timing is asserted.
func TestHookDelay(t *testing.T) {
	calls := envInt("CULLY_DELAY_CALLS", 30)
	rounds := envInt("CULLY_DELAY_ROUNDS", 2)
	gaps := map[string][]time.Duration{}
	for r := 0; r < rounds; r++ {
		for _, mode := range hookModes {
			s := newSession(t, nil)
			f := s.file("notes.txt", 600)
			s.api.script = repeat(calls, read(f))
			stop := s.setupMode(mode)
			s.run()
			stop()
			g := s.api.callGaps()
			if len(g) != calls {
				t.Fatalf("%s: timed %d calls of %d", mode, len(g), calls)
			}
			gaps[mode] = append(gaps[mode], g...)
			s.checkMode(mode, calls)
		}
	}
	base := quantiles(gaps["none"])
	t.Logf("per tool call, %d calls x %d rounds per mode (the client's time from the model's tool call to the next request; delay = over no hooks)", calls, rounds)
	t.Logf("%-15s %9s %9s %9s %9s   %s", "mode", "p50", "p90", "p99", "max", "delay p50 / p90 / p99 / max")
	for _, mode := range hookModes {
		q := quantiles(gaps[mode])
		t.Logf("%-15s %9s %9s %9s %9s   %s / %s / %s / %s", mode, ms(q[0]), ms(q[1]), ms(q[2]), ms(q[3]),
			ms(q[0]-base[0]), ms(q[1]-base[1]), ms(q[2]-base[2]), ms(q[3]-base[3]))
	}
}

func envInt(k string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(k)); err == nil && v > 0 {
		return v
	}
	return def
}

// quantiles are p50, p90, p99 and the maximum.
func quantiles(d []time.Duration) [4]time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	if len(s) == 0 {
		return [4]time.Duration{}
	}
	at := func(p float64) time.Duration { return s[min(len(s)-1, int(p*float64(len(s))))] }
	return [4]time.Duration{at(0.5), at(0.9), at(0.99), s[len(s)-1]}
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond)) }

// setupMode installs the mode's hooks; the returned func stops what it
// started.
func (s *session) setupMode(mode string) func() {
	switch mode {
	case "none":
	case "no-op":
		s.installCommand("/bin/true")
	case "cully":
		s.install()
	case "cully-no-batch":
		s.install()
		s.editSettings(func(hooks map[string]any) { delete(hooks, "PostToolBatch") })
	case "http", "http-down":
		port := freePort(s.t)
		url := fmt.Sprintf("http://127.0.0.1:%d/hook/claude", port)
		s.install() // the skills and settings as install writes them, then each entry made an http hook
		// Each entry carries the install's secret from the environment, as
		// docs/performance.md writes the entry.
		tok := s.daemonToken()
		s.env = append(s.env, "CULLY_DAEMON_TOKEN="+tok)
		s.editSettings(func(hooks map[string]any) {
			for ev := range hooks {
				hooks[ev] = []any{map[string]any{"matcher": "", "hooks": []any{map[string]any{"type": "http", "url": url, "timeout": 5,
					"headers": map[string]any{"Authorization": "Bearer $CULLY_DAEMON_TOKEN"}, "allowedEnvVars": []any{"CULLY_DAEMON_TOKEN"}}}}}
			}
		})
		if mode == "http" {
			return s.startDaemon(port, tok)
		}
	}
	return func() {}
}

func (s *session) editSettings(fn func(hooks map[string]any)) {
	p := filepath.Join(s.home, ".claude", "settings.json")
	b, err := os.ReadFile(p)
	if err != nil {
		s.t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		s.t.Fatal(err)
	}
	hooks, _ := m["hooks"].(map[string]any)
	fn(hooks)
	out, _ := json.MarshalIndent(m, "", "  ")
	if err := os.WriteFile(p, out, 0o600); err != nil {
		s.t.Fatal(err)
	}
}

// daemonToken is the secret `cully daemon --token` prints for the
// session's state dir.
func (s *session) daemonToken() string {
	cmd := exec.Command(filepath.Join(binDir, "cully"), "daemon", "--token")
	cmd.Env = s.env
	out, err := cmd.Output()
	if err != nil {
		s.t.Fatalf("cully daemon --token: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// startDaemon runs `cully daemon` on loopback for the session's state dir
// and waits for its health check, which carries the secret.
func (s *session) startDaemon(port int, tok string) func() {
	cmd := exec.Command(filepath.Join(binDir, "cully"), "daemon", "--listen", fmt.Sprintf("127.0.0.1:%d", port))
	cmd.Env = s.env
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			s.t.Logf("daemon: %s", sc.Text())
		}
	}()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		req, _ := http.NewRequest("GET", fmt.Sprintf("http://127.0.0.1:%d/health", port), nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		r, err := http.DefaultClient.Do(req)
		if err == nil && r.StatusCode == http.StatusOK {
			r.Body.Close()
			break
		}
		if err == nil {
			r.Body.Close()
			err = fmt.Errorf("health answered %s", r.Status)
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("cully daemon did not answer: %v", err)
		}
	}
	return func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			s.t.Errorf("cully daemon did not stop on SIGINT")
		}
	}
}

// toolResults counts the tool results a request carries.
func toolResults(req map[string]any) int {
	n := 0
	msgs, _ := req["messages"].([]any)
	for _, x := range msgs {
		mm, _ := x.(map[string]any)
		blocks, _ := mm["content"].([]any)
		for _, b := range blocks {
			if bm, _ := b.(map[string]any); bm["type"] == "tool_result" && bm["is_error"] != true {
				n++
			}
		}
	}
	return n
}

// checkMode asserts what the mode must keep: every call recorded, pre and
// post (the batch too where it is registered); with the daemon down,
// nothing recorded and every call still run.
func (s *session) checkMode(mode string, calls int) {
	pre, post, batch := 0, 0, 0
	for _, r := range s.journal() {
		switch r["hook"] {
		case "PreToolUse":
			pre++
		case "PostToolUse":
			post++
		case "PostToolBatch":
			batch++
		}
	}
	switch mode {
	case "cully", "http":
		if pre != calls || post != calls || batch != calls {
			s.t.Errorf("%s: %d pre, %d post, %d batch records for %d calls", mode, pre, post, batch, calls)
		}
	case "cully-no-batch":
		if pre != calls || post != calls || batch != 0 {
			s.t.Errorf("%s: %d pre, %d post, %d batch records for %d calls", mode, pre, post, batch, calls)
		}
	case "http-down":
		if pre+post+batch != 0 {
			s.t.Errorf("http-down: %d records with no daemon", pre+post+batch)
		}
		if n := toolResults(s.api.last()); len(s.api.issued) != calls || n != calls {
			s.t.Errorf("http-down: %d calls issued, %d results reached the model, want %d", len(s.api.issued), n, calls)
		}
		s.t.Logf("http-down: %d tool calls ran, %d of %d hook calls recorded: every event of the session lost", len(s.api.issued), pre+post+batch, 3*calls)
	}
}
