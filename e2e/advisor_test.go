//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The advisor with the real Claude Code CLI as its worker, set up by
// `cully advisor setup` exactly as a user would: a failure loop opens a
// checkpoint, the hook starts `cully advise --auto` in the background, the
// worker (claude -p, against the same loopback mock) answers, and the
// agent is told the advice once, in its next nudge. The worker runs with
// the setup's flags: a small model, read-only tools, and no hooks, so its
// own session is not recorded.
func TestAdvisorWorkerIsClaude(t *testing.T) {
	const advice = "E2E advice: run the failing listing once with its parent directory to see what exists."
	const cmd = "ls /nonexistent-cully-e2e-advisor"
	s := newSession(t, nil)
	s.api.script = append(repeat(3, bash(cmd)), read(s.file("notes.txt", 600)), read(s.file("more.txt", 600)))
	s.api.worker = advice

	// The user's PATH has claude on it; setup finds it there.
	bin := filepath.Join(s.home, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(claudeBin, filepath.Join(bin, "claude")); err != nil {
		t.Fatal(err)
	}
	for i, e := range s.env {
		if strings.HasPrefix(e, "PATH=") {
			s.env[i] = "PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")
		}
	}
	s.env = append(s.env, "CULLY_CONFIG="+filepath.Join(s.home, "cully.toml"))
	setup := exec.Command(filepath.Join(binDir, "cully"), "advisor", "setup", "--yes")
	setup.Env = s.env
	out, err := setup.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "written: ") {
		t.Fatalf("cully advisor setup: %v\n%s", err, out)
	}

	// The agent's request after the third failure waits for the advice to
	// land in the journal (a slow model would give the worker that time).
	s.api.gate = func(turn int) {
		if turn != 3 {
			return
		}
		deadline := time.Now().Add(150 * time.Second)
		for time.Now().Before(deadline) {
			for _, r := range s.journal() {
				if r["kind"] == "advice" {
					return
				}
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Errorf("no advice in the journal 150 s after the failure loop")
	}
	s.install()
	s.run()

	s.api.mu.Lock()
	workers := s.api.workerRequests
	s.api.mu.Unlock()
	if len(workers) != 1 {
		t.Fatalf("%d worker requests, want 1", len(workers))
	}
	w := workers[0]
	if m, _ := w["model"].(string); !strings.Contains(m, "haiku") {
		t.Errorf("worker model %q, want the small one (haiku)", m)
	}
	var tools []string
	for _, x := range asSlice(w["tools"]) {
		if tm, _ := x.(map[string]any); tm != nil {
			name, _ := tm["name"].(string)
			tools = append(tools, name)
			// The client's own placeholder (defer_loading, "never call this
			// tool": it keeps deferred tool loading on) runs nothing.
			if name == "DeferredToolPlaceholder" && tm["defer_loading"] == true {
				continue
			}
			if name != "Read" && name != "Grep" && name != "Glob" {
				t.Errorf("worker offered the tool %q: only Read, Grep and Glob", name)
			}
		}
	}
	prompt := strings.Join(texts(map[string]any{"messages": asSlice(w["messages"])[:1]}), "\n")
	for _, want := range []string{workerMark, "checkpoint failure-loop", cmd} {
		if !strings.Contains(prompt, want) {
			t.Errorf("worker prompt lacks %q:\n%s", want, prompt)
		}
	}
	t.Logf("worker: model %v, tools %v", w["model"], tools)

	// Told once, in a nudge (hook context), and never again.
	if n := s.nudgeCount(advice); n != 1 {
		t.Errorf("advice shown %d times in the agent's last request, want exactly 1", n)
	}
	if got := s.api.firstWith(advice); got != 4 {
		t.Errorf("advice first reached the agent in request %d, want 4 (after the call that followed it)", got)
	}
	// One session in the journal: the worker's own hooks did not run.
	sessions := map[string]bool{}
	kinds := map[string]int{}
	for _, r := range s.journal() {
		if id, _ := r["session"].(string); id != "" {
			sessions[id] = true
		}
		k, _ := r["kind"].(string)
		kinds[k]++
	}
	if len(sessions) != 1 || kinds["advice"] != 1 {
		t.Errorf("journal: sessions %v, kinds %v; want one session and one advice record", sessions, kinds)
	}
	// The ledger counts the request as spent.
	led := exec.Command(filepath.Join(binDir, "cully"), "ledger", "--json")
	led.Env = s.env
	lout, err := led.Output()
	if err != nil {
		t.Fatalf("cully ledger: %v", err)
	}
	var rep struct {
		Totals struct {
			Spent int `json:"spent"`
		} `json:"totals"`
	}
	if err := json.Unmarshal(lout, &rep); err != nil || rep.Totals.Spent != 1 {
		t.Errorf("ledger: %v, spent %d, want 1\n%s", err, rep.Totals.Spent, lout)
	}
}

func asSlice(v any) []any { x, _ := v.([]any); return x }

// Why the advisor does not use Claude Code's asyncRewake hooks: in print
// mode the pinned client waits for an asyncRewake hook to exit before its
// next model request (the "background" hook's time is the agent's), and
// its exit-2 message arrives as a blocking error on that same tool result.
// A worker run there would put a model call on the agent's path, which
// cully never does; the detached `cully advise` keeps it off. If a new
// pin changes this, this test says so.
func TestAsyncRewakeBlocksInPrintMode(t *testing.T) {
	const pause = 3 * time.Second
	s := newSession(t, []toolCall{bash("echo one"), bash("echo two")})
	hook := filepath.Join(s.home, "rewake.sh")
	script := "#!/bin/sh\ncat >/dev/null\nsleep " + fmt.Sprint(pause.Seconds()) + "\necho 'rewake: from the background' >&2\nexit 2\n"
	if err := os.WriteFile(hook, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	settings, _ := json.Marshal(map[string]any{"hooks": map[string]any{"PostToolUse": []any{map[string]any{"matcher": "",
		"hooks": []any{map[string]any{"type": "command", "command": hook, "asyncRewake": true}}}}}})
	if err := os.MkdirAll(filepath.Join(s.home, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.home, ".claude", "settings.json"), settings, 0o644); err != nil {
		t.Fatal(err)
	}
	var at [3]time.Time
	s.api.gate = func(turn int) { at[turn] = time.Now() }
	s.run()
	if gap := at[1].Sub(at[0]); gap < pause {
		t.Errorf("the request after the first call came %v after the one before it: the client no longer waits for asyncRewake hooks (%v) — the advisor could use them (docs/advisor.md)", gap, pause)
	}
	if n := count(s.api.requests[1], "rewake: from the background"); n != 1 {
		t.Errorf("the hook's message is in the next request %d times, want 1", n)
	}
}
