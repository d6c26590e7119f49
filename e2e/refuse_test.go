//go:build e2e

package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The refusal tests: in each real client, a user budget of 3 tool calls in
// enforce mode halts the run at the 4th call, which the host refuses
// through its own hook contract (the call's file is never made), the
// reason reaching the model; after `cully resume --raise` the same session's calls
// run again, until one of them runs `cully stop` (as the user would from
// another terminal while it is under way): the next is refused, or the
// host's loop ends after it; after `cully resume` the calls run again.
// Every call creates a file of its own, so what ran is on disk.

// enforce3 is the user config: a budget of 3 tool calls, enforced.
const enforce3 = "[budget]\ntool_calls = 3\nmode = \"enforce\"\n"

// haltMark opens every halt reason (engine.HaltText).
const haltMark = "cully halted this run"

// touches are n shell commands, each creating a file of its own
// (prefix-1 … prefix-n).
func touches(prefix string, n int) []string {
	var out []string
	for i := 1; i <= n; i++ {
		out = append(out, fmt.Sprintf("touch %s-%d", prefix, i))
	}
	return out
}

func calls(cmds []string, call func(string) toolCall) []toolCall {
	var out []toolCall
	for _, c := range cmds {
		out = append(out, call(c))
	}
	return out
}

// ranFirst checks that of the files prefix-1 … prefix-n exactly the first
// k exist: the calls that ran.
func ranFirst(t *testing.T, project, prefix string, n, k int, out string) {
	t.Helper()
	for i := 1; i <= n; i++ {
		_, err := os.Stat(filepath.Join(project, fmt.Sprintf("%s-%d", prefix, i)))
		if ran := err == nil; ran != (i <= k) {
			t.Errorf("call %d (%s-%d) ran: %v; want the first %d only\n%s", i, prefix, i, ran, k, tail(out, 2000))
		}
	}
}

// runClient runs a client to its end (at most 4 minutes) and returns its
// output; a client that a halt ends with an error status is no failure:
// what ran is what counts.
func runClient(t *testing.T, env []string, dir, bin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env, cmd.Dir, cmd.Stdin = env, dir, nil
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Logf("%s exited with %v", filepath.Base(bin), err)
		}
	case <-time.After(4 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("%s did not finish:\n%s", filepath.Base(bin), tail(out.String(), 3000))
	}
	return out.String()
}

// resume runs `cully resume --raise` in the project: the run's halt ends
// and its budget doubles.
func resume(t *testing.T, env []string, project string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "cully"), "resume", "--raise", "--reason", "e2e: the calls are legitimate")
	cmd.Env, cmd.Dir = env, project
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cully resume: %v\n%s", err, out)
	}
}

// stopCalls are the second phase's commands: the first runs `cully stop`
// in the project while it is the call in flight (as a user would from
// another terminal), the second must then be refused, or never asked for
// where the host ends the agent's loop after the call in flight.
func stopCalls() []string {
	return []string{"touch again-1 && " + filepath.Join(binDir, "cully") + " stop", "touch again-2"}
}

// unstop runs `cully resume` in the project: the user's own stop needs
// no note.
func unstop(t *testing.T, env []string, project string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "cully"), "resume")
	cmd.Env, cmd.Dir = env, project
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cully resume: %v\n%s", err, out)
	}
}

// stopMark opens the refusal of a stopped run (engine.HaltText).
const stopMark = "cully: the user stopped this run"

// halts counts the journal's records that carry a halt signal, by hook.
func halts(records []map[string]any) map[string]int {
	n := map[string]int{}
	for _, r := range records {
		sigs, _ := r["signals"].([]any)
		for _, x := range sigs {
			if m, _ := x.(map[string]any); m["kind"] == "halt" {
				n[fmt.Sprint(r["hook"])]++
			}
		}
	}
	return n
}

// Claude Code: the 4th call is denied and the session stopped there
// (continue false); the reason is the stop's, shown to the user, and the
// model reads it in the refused call's result once the session is resumed
// after `cully resume --raise`, whose calls then run.
func TestClaudeRefusesAHaltedRun(t *testing.T) {
	start := time.Now()
	s := newSession(t, calls(touches("refuse", 6), bash))
	s.useConfig(enforce3)
	s.install()
	args := []string{"--output-format", "stream-json", "--verbose", "--dangerously-skip-permissions", "--max-turns", "60"}
	out := runClient(t, s.env, s.project, claudeBin, append([]string{"-p", "Do the scripted steps."}, args...)...)
	ranFirst(t, s.project, "refuse", 6, 3, out)
	if n := len(s.api.issued); n != 4 {
		t.Errorf("the model was asked for %d calls: the halt should stop the session at the 4th", n)
	}
	if !strings.Contains(out, haltMark) {
		t.Errorf("the client did not show the stop's reason:\n%s", tail(out, 3000))
	}
	if h := halts(s.journal()); h["PreToolUse"] != 1 {
		t.Errorf("halted records by hook: %v, want the one refused PreToolUse", h)
	}
	halted := time.Since(start)
	session := ""
	for _, r := range s.journal() {
		session, _ = r["session"].(string)
	}
	resume(t, s.env, s.project)
	s.api.then(calls(stopCalls(), bash))
	asked := len(s.api.requests)
	out = runClient(t, s.env, s.project, claudeBin, append([]string{"-p", "Go on.", "--resume", session}, args...)...)
	ranFirst(t, s.project, "refuse", 6, 3, out)
	if len(s.api.requests) <= asked || count(s.api.requests[asked], haltMark) == 0 {
		t.Errorf("the resumed session's first request does not show the model the refusal's reason")
	}
	// cully stop in the call in flight: its result ends the session
	// (continue false); nothing else runs.
	ranFirst(t, s.project, "again", 2, 1, out)
	if !strings.Contains(out, stopMark) {
		t.Errorf("the client did not show the stop's reason:\n%s", tail(out, 3000))
	}
	stopped := time.Since(start)
	unstop(t, s.env, s.project)
	s.api.then(calls(touches("final", 1), bash))
	out = runClient(t, s.env, s.project, claudeBin, append([]string{"-p", "Go on.", "--resume", session}, args...)...)
	ranFirst(t, s.project, "final", 1, 1, out)
	t.Logf("halted in %v; resumed and stopped in %v; resumed in %v", halted, stopped-halted, time.Since(start)-stopped)
}

// Codex: the 4th call and every one after it are denied (PreToolUse takes
// no continue:false), the model reading "Command blocked by PreToolUse
// hook: <reason>" as each one's output; after `cully resume --raise` the resumed
// session's calls run.
func TestCodexRefusesAHaltedRun(t *testing.T) {
	start := time.Now()
	s := newCodexSession(t, touches("refuse", 5))
	s.install()
	cfg := filepath.Join(s.home, "cully.toml")
	if err := os.WriteFile(cfg, []byte(enforce3), 0o600); err != nil {
		t.Fatal(err)
	}
	s.env = append(s.env, "CULLY_CONFIG="+cfg)
	s.run()
	ranFirst(t, s.project, "refuse", 5, 3, s.out)
	if len(s.api.requests) < 5 || !strings.Contains(allTexts(s.api.requests[4]), "Command blocked by PreToolUse hook: "+haltMark) {
		t.Errorf("the request after the 4th call does not show the model the refusal")
	}
	if h := halts(s.journal()); h["PreToolUse"] != 2 {
		t.Errorf("halted records by hook: %v, want the 2 refused PreToolUse", h)
	}
	halted := time.Since(start)
	resume(t, s.env, s.project)
	s.api.then(stopCalls())
	again := []string{"exec", "resume", "--last", "--json", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "Go on."}
	out := runClient(t, s.env, s.project, needCodex(t), again...)
	ranFirst(t, s.project, "again", 2, 1, out) // cully stop in the call in flight: the next is refused
	stopped := time.Since(start)
	unstop(t, s.env, s.project)
	s.api.then(touches("final", 1))
	out = runClient(t, s.env, s.project, needCodex(t), again...)
	ranFirst(t, s.project, "final", 1, 1, out)
	t.Logf("halted in %v; resumed and stopped in %v; resumed in %v", halted, stopped-halted, time.Since(start)-stopped)
}

// Gemini CLI: the 4th call and every one after it are denied (BeforeTool
// deny), the model reading "Tool execution blocked: <reason>" as each
// one's result; after `cully resume --raise` the resumed session's calls run.
func TestGeminiRefusesAHaltedRun(t *testing.T) {
	start := time.Now()
	s := newGeminiSession(t, calls(touches("refuse", 6), shell))
	s.useConfig(enforce3)
	s.install()
	args := []string{geminiJS(t), "--yolo", "--output-format", "json"}
	out := runClient(t, s.env, s.project, "node", append(args, "-p", "Do the scripted steps.")...)
	ranFirst(t, s.project, "refuse", 6, 3, out)
	if s.api.count(4, "Tool execution blocked: "+haltMark) != 1 {
		t.Errorf("the request after the 4th call does not show the model the refusal once")
	}
	if h := halts(s.journal()); h["BeforeTool"] != 3 {
		t.Errorf("halted records by hook: %v, want the %d refused BeforeTool", h, 3)
	}
	halted := time.Since(start)
	resume(t, s.env, s.project)
	s.api.then(calls(stopCalls(), shell))
	out = runClient(t, s.env, s.project, "node", append(args, "--resume", "latest", "-p", "Go on.")...)
	ranFirst(t, s.project, "again", 2, 1, out) // cully stop in the call in flight: nothing else runs
	stopped := time.Since(start)
	unstop(t, s.env, s.project)
	s.api.then(calls(touches("final", 1), shell))
	out = runClient(t, s.env, s.project, "node", append(args, "--resume", "latest", "-p", "Go on.")...)
	ranFirst(t, s.project, "final", 1, 1, out)
	t.Logf("halted in %v; resumed and stopped in %v; resumed in %v", halted, stopped-halted, time.Since(start)-stopped)
}

// opencode: the plugin throws the block cully answers at the 4th call's
// tool.execute.before and every one after it, the model reading it as the
// call's error; after `cully resume --raise` the continued session's calls run.
func TestOpencodeRefusesAHaltedRun(t *testing.T) {
	start := time.Now()
	ocBash := func(c string) toolCall {
		return toolCall{"bash", map[string]any{"command": c, "description": "e2e step"}}
	}
	s := newOpencodeSession(t, calls(touches("refuse", 6), ocBash))
	cfg := filepath.Join(s.home, "cully.toml")
	if err := os.WriteFile(cfg, []byte(enforce3), 0o600); err != nil {
		t.Fatal(err)
	}
	s.env = append(s.env, "CULLY_CONFIG="+cfg)
	s.install()
	out := runClient(t, s.env, s.project, opencodeBin(t), "run", "Do the scripted steps.")
	ranFirst(t, s.project, "refuse", 6, 3, out)
	if s.api.count(4, haltMark) != 1 {
		t.Errorf("the request after the 4th call does not show the model the refusal once")
	}
	if h := halts(s.journal()); h["tool.execute.before"] != 3 {
		t.Errorf("halted records by hook: %v, want the %d refused tool.execute.before", h, 3)
	}
	halted := time.Since(start)
	resume(t, s.env, s.project)
	s.api.then(calls(stopCalls(), ocBash))
	out = runClient(t, s.env, s.project, opencodeBin(t), "run", "--continue", "Go on.")
	ranFirst(t, s.project, "again", 2, 1, out) // cully stop in the call in flight: the next is refused
	stopped := time.Since(start)
	unstop(t, s.env, s.project)
	s.api.then(calls(touches("final", 1), ocBash))
	out = runClient(t, s.env, s.project, opencodeBin(t), "run", "--continue", "Go on.")
	ranFirst(t, s.project, "final", 1, 1, out)
	t.Logf("halted in %v; resumed and stopped in %v; resumed in %v", halted, stopped-halted, time.Since(start)-stopped)
}

// GitHub Copilot CLI: the 4th call is denied (preToolUse
// permissionDecision deny), the model reading the reason as its result;
// after `cully resume --raise` the continued session's calls run.
func TestCopilotRefusesAHaltedRun(t *testing.T) {
	start := time.Now()
	s := newCopilotSession(t, calls(touches("refuse", 5), copilotBash))
	s.useConfig(enforce3)
	s.install()
	args := []string{"--allow-all-tools", "--no-color"}
	out := runClient(t, s.env, s.project, s.bin, append([]string{"-p", "Do the scripted steps."}, args...)...)
	ranFirst(t, s.project, "refuse", 5, 3, out)
	if len(s.api.requests) < 5 || count(s.api.requests[4], haltMark) == 0 {
		t.Errorf("the request after the 4th call does not show the model the refusal")
	}
	if h := halts(s.journal()); h["preToolUse"] != 2 {
		t.Errorf("halted records by hook: %v, want the 2 refused preToolUse", h)
	}
	halted := time.Since(start)
	resume(t, s.env, s.project)
	s.api.then(calls(stopCalls(), copilotBash))
	out = runClient(t, s.env, s.project, s.bin, append([]string{"--continue", "-p", "Go on."}, args...)...)
	ranFirst(t, s.project, "again", 2, 1, out) // cully stop in the call in flight: the next is refused
	stopped := time.Since(start)
	unstop(t, s.env, s.project)
	s.api.then(calls(touches("final", 1), copilotBash))
	out = runClient(t, s.env, s.project, s.bin, append([]string{"--continue", "-p", "Go on."}, args...)...)
	ranFirst(t, s.project, "final", 1, 1, out)
	t.Logf("halted in %v; resumed and stopped in %v; resumed in %v", halted, stopped-halted, time.Since(start)-stopped)
}
