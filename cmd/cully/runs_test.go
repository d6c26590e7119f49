package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"cully/runs"
	"cully/store"
)

// The lean hook binary hands its snapshots to one server, `cully snapshot
// --serve`, started with the cully binary beside it by the first ask: the
// hook returns at once, the server takes that ask and the ones after it
// (the run's baseline and a snapshot every 10 tool calls), records each
// one's outcome, and stops once nothing has been asked for its linger.
func TestHookBinaryStartsTheSnapshot(t *testing.T) {
	// One server takes the three asks while nothing is asked for less than
	// its linger (5 s here): the 10 hook calls between two asks take a
	// fraction of it even on a loaded machine.
	t.Parallel()
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
	env["CULLY_SNAPSHOT_LINGER"] = "5s"
	prompt := `{"session_id":"s-lean","hook_event_name":"UserPromptSubmit","prompt":"go","cwd":"` + repo + `"}`
	start := time.Now()
	if r := runBin(t, "cully-hook", env, []byte(prompt)); r.code != 0 || r.stderr != "" {
		t.Fatalf("cully-hook: %+v", r)
	}
	took := time.Since(start)
	read := `{"session_id":"s-lean","hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":"` + repo + `/a.txt"},"tool_response":{},"cwd":"` + repo + `"}`
	for range 20 {
		if r := runBin(t, "cully-hook", env, []byte(read)); r.code != 0 || r.stderr != "" {
			t.Fatalf("cully-hook: %+v", r)
		}
	}
	r := cully(t, env, nil, "snapshot", "--wait", "--session", "s-lean")
	if r.code != 0 || !strings.Contains(r.stdout, "3 written in this run, the last, step 2") {
		t.Fatalf("snapshot --wait: %+v", r)
	}
	h := store.Home{Dir: env["CULLY_HOME"]}
	st, err := h.ReadState("s-lean", nil)
	if err != nil || st.Run == nil {
		t.Fatalf("state: %v", err)
	}
	for _, f := range []string{"snapshot-000000.json", "snapshot-000002.json"} {
		if _, err := os.Stat(filepath.Join(h.RunDir(st.Run.ID), f)); err != nil {
			t.Fatal(err)
		}
	}
	srv, err := runs.Server(h)
	if err != nil || srv.Taken != 3 {
		t.Fatalf("one server took the three asks: %+v, %v", srv, err)
	}
	// doctor says which process it is, for whoever meets it in ps.
	if d := cully(t, env, nil, "doctor"); !strings.Contains(d.stdout, fmt.Sprintf("snapshot server running: pid %d,", srv.PID)) || !strings.Contains(d.stdout, "3 snapshot(s) taken; it stops after 5s with none asked") {
		t.Errorf("doctor does not show the server:\n%s", d.stdout)
	}
	// Its linger (5 s here) over, it stops, and its record goes with it.
	waitUntil(t, time.Minute, func() bool {
		_, err := runs.Server(h)
		return errors.Is(err, fs.ErrNotExist) && exited(srv.PID)
	})
	if live, err := h.Served(); err != nil || live {
		t.Fatalf("served after the server stopped: %v %v", live, err)
	}
	t.Logf("the hook call that started the server took %v", took)
}

// exited reports that pid is no running process (gone, or a zombie no
// one has reaped yet).
func exited(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return true
	}
	_, after, _ := strings.Cut(string(b), ") ")
	return strings.HasPrefix(after, "Z") || strings.HasPrefix(after, "X")
}

// waitUntil polls cond until it holds, failing after limit: a wait, not a
// timing assertion.
func waitUntil(t *testing.T, limit time.Duration, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(limit); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("not within %v", limit)
		}
	}
}
