//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// cully as a Claude Code plugin, added the way a user adds it: the
// repository as a marketplace (its .claude-plugin/marketplace.json), then
// `claude plugin install cully@cully`, with cully-hook on PATH and no
// `cully install`. The plugin's hooks fire in the real client (the journal
// holds the session's start and each call, and the blind-retry guard's
// answer reaches the model), its skills are listed to the model, `cully
// install` then writes no second set of hooks, and `doctor --fire` fires
// the plugin's command.
func TestClaudePluginLoadsAndFires(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	const cmd = "ls /nonexistent-cully-e2e-dir"
	s := newSession(t, repeat(3, bash(cmd)))
	for i, kv := range s.env {
		if strings.HasPrefix(kv, "PATH=") {
			s.env[i] = "PATH=" + binDir + string(os.PathListSeparator) + os.Getenv("PATH")
		}
	}
	run := func(name string, args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		c := exec.CommandContext(ctx, name, args...)
		c.Env, c.Dir = s.env, s.project
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run(claudeBin, "plugin", "marketplace", "add", root)
	run(claudeBin, "plugin", "install", "cully@cully")
	if out := run(claudeBin, "plugin", "list"); !strings.Contains(out, "cully@cully") {
		t.Fatalf("claude plugin list does not show cully@cully:\n%s", out)
	}

	out := run(filepath.Join(binDir, "cully"), "install")
	if !strings.Contains(out, "Claude Code runs cully as its plugin") {
		t.Errorf("cully install did not see the plugin:\n%s", out)
	}
	settings, _ := os.ReadFile(filepath.Join(s.home, ".claude", "settings.json"))
	if strings.Contains(string(settings), "cully-hook") {
		t.Errorf("cully install wrote hooks beside the plugin:\n%s", settings)
	}

	s.run()
	hooks := map[string]int{}
	for _, r := range s.journal() {
		if r["agent"] != "claude" {
			t.Errorf("a record of agent %v", r["agent"])
		}
		h, _ := r["hook"].(string)
		hooks[h]++
	}
	if hooks["SessionStart"] != 1 || hooks["PreToolUse"] != 3 || hooks["PostToolUseFailure"] != 3 {
		t.Errorf("the plugin's hooks recorded %v, want one SessionStart and 3 PreToolUse and PostToolUseFailure", hooks)
	}
	const marker = "failed on its last 2 runs"
	if got := s.api.firstWith(marker); got != 3 {
		t.Errorf("the guard first reached the model in request %d, want 3", got)
	}
	if req, _ := json.Marshal(s.api.last()); !strings.Contains(string(req), "cully-run-control") {
		t.Error("the plugin's skills are not listed to the model")
	}

	fire := exec.Command(filepath.Join(binDir, "cully"), "doctor", "--fire")
	fire.Env, fire.Dir = s.env, s.project
	b, _ := fire.CombinedOutput() // other checks may fail here; the fire's line is what counts
	if !strings.Contains(string(b), "ok    fire: Claude Code (its plugin, ") {
		t.Errorf("doctor --fire did not fire the plugin's command:\n%s", b)
	}
}
