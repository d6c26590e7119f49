package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cully/store"
)

// The lean hook binary starts the snapshot with the cully binary beside
// it, in the background: the hook returns at once, and the snapshot
// records itself. (The scripts drive `cully hook`.)
func TestHookBinaryStartsTheSnapshot(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	env := testEnv(t)
	repo := filepath.Join(env["PWD"], "repo")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(repo, "a.txt"), []byte("a\n"), 0o644)
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	env["CULLY_SNAPSHOTS"], env["CLAUDE_PROJECT_DIR"], env["PWD"] = "on", repo, repo
	prompt := `{"session_id":"s-lean","hook_event_name":"UserPromptSubmit","prompt":"go","cwd":"` + repo + `"}`
	start := time.Now()
	if r := runBin(t, "cully-hook", env, []byte(prompt)); r.code != 0 || r.stderr != "" {
		t.Fatalf("cully-hook: %+v", r)
	}
	took := time.Since(start)
	r := cully(t, env, nil, "snapshot", "--wait", "--session", "s-lean")
	if r.code != 0 || !strings.Contains(r.stdout, "1 written in this run, the last, step 0") {
		t.Fatalf("snapshot --wait: %+v", r)
	}
	h := store.Home{Dir: env["CULLY_HOME"]}
	st, err := h.ReadState("s-lean")
	if err != nil || st.Run == nil {
		t.Fatalf("state: %v", err)
	}
	if _, err := os.Stat(filepath.Join(h.RunDir(st.Run.ID), "snapshot-000000.json")); err != nil {
		t.Fatal(err)
	}
	t.Logf("the hook call that started the baseline took %v", took)
}
