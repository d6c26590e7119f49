package main

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// cully daemon answers hook calls over loopback HTTP exactly as cully-hook
// answers them on stdin (the same record, the same answer), one per state
// dir, and refuses to listen anywhere but loopback.
func TestDaemon(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command("cully", "daemon", "--listen", addr)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	}()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if r, err := http.Get("http://" + addr + "/health"); err == nil {
			r.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no health answer: %s", errb.String())
		}
	}
	post := func(payload string) string {
		r, err := http.Post("http://"+addr+"/hook/claude", "application/json", strings.NewReader(payload))
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		b, _ := io.ReadAll(r.Body)
		if r.StatusCode != 200 || r.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("status %d %q: %s", r.StatusCode, r.Header.Get("Content-Type"), b)
		}
		return string(b)
	}
	// A command failing twice, then the same command again: the blind-retry
	// guard speaks in the pre-tool answer. Every answer equals cully-hook's
	// for the same calls in a state dir of its own.
	payloads := []string{
		`{"session_id":"d1","hook_event_name":"UserPromptSubmit","prompt":"fix","cwd":"/w"}`,
		`{"session_id":"d1","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"make x"},"tool_use_id":"t1","error":"Exit code 2\nmake: *** [x] Error 1","cwd":"/w"}`,
		`{"session_id":"d1","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"make x"},"tool_use_id":"t2","error":"Exit code 2\nmake: *** [x] Error 1","cwd":"/w"}`,
		`{"session_id":"d1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"make x"},"tool_use_id":"t3","cwd":"/w"}`,
	}
	hookEnv := testEnv(t)
	for k, v := range env {
		if k != "CULLY_HOME" && k != "PWD" {
			hookEnv[k] = v
		}
	}
	hookEnv["CLAUDE_PROJECT_DIR"] = "/w" // as the daemon takes it from the payload's cwd
	var last string
	for _, p := range payloads {
		got := strings.TrimSpace(post(p))
		want := strings.TrimSpace(runBin(t, "cully-hook", hookEnv, []byte(p)).stdout)
		if want == "" {
			want = "{}"
		}
		if got != want {
			t.Errorf("daemon answered %s, cully-hook %s", got, want)
		}
		last = got
	}
	if !strings.Contains(last, "failed on its last 2 runs") {
		t.Errorf("no blind-retry warning in the pre-tool answer: %s", last)
	}
	evs := journal(t, env["CULLY_HOME"])
	if len(evs) != 4 || evs[0].Session != "d1" || evs[3].ToolUseID != "t3" {
		t.Fatalf("journal: %d records %+v", len(evs), evs)
	}
	// One daemon per state dir; loopback only.
	if r := cully(t, env, nil, "daemon", "--listen", "127.0.0.1:0"); r.code != 1 || !strings.Contains(r.stderr, "another cully daemon runs") {
		t.Errorf("second daemon: %+v", r)
	}
	if r := cully(t, env, nil, "daemon", "--listen", "0.0.0.0:4781"); r.code != 2 || !strings.Contains(r.stderr, "loopback only") {
		t.Errorf("non-loopback listen: %+v", r)
	}
}
