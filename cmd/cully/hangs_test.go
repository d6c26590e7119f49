package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// startHook starts cully-hook with its stdin and stdout as pipes the test
// holds, and returns a channel that yields its exit error.
func startHook(t *testing.T, env map[string]string) (stdin io.WriteCloser, stdout io.ReadCloser, stderr *bytes.Buffer, done chan error) {
	t.Helper()
	cmd := exec.Command("cully-hook")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var err error
	if stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if stdout, err = cmd.StdoutPipe(); err != nil {
		t.Fatal(err)
	}
	stderr = &bytes.Buffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done = make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return stdin, stdout, stderr, done
}

// wait fails the test if the hook has not exited long after any deadline
// of its own (this bounds a hang, it times nothing).
func wait(t *testing.T, done chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(30 * time.Second):
		t.Fatal("cully-hook hung")
		return nil
	}
}

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtures, "capture-sequence", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A host that writes the payload and leaves stdin open: the hook answers
// as soon as it holds the whole object.
func TestHookStdinLeftOpen(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	in, out, _, done := startHook(t, env)
	if _, err := in.Write(fixture(t, "007-PostToolUse-Read.json")); err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, out)
	if err := wait(t, done); err != nil {
		t.Fatalf("exit: %v", err)
	}
	if n := len(journal(t, env["CULLY_HOME"])); n != 1 {
		t.Fatalf("want the call recorded, journal has %d records", n)
	}
	in.Close()
}

// A stdin that never ends and never completes a payload: the hook gives up
// within its own deadline, exits 0 and records why.
func TestHookStdinNeverEnds(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	in, out, stderr, done := startHook(t, env)
	if _, err := in.Write([]byte(`{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Bash"`)); err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, out)
	if err := wait(t, done); err != nil {
		t.Fatalf("exit: %v (stderr %q)", err, stderr)
	}
	b, _ := os.ReadFile(filepath.Join(env["CULLY_HOME"], "errors.log"))
	if !strings.Contains(string(b), "stdin stayed silent") {
		t.Fatalf("errors.log: %q", b)
	}
	in.Close()
}

// A host that closed its end of stdout before the answer: no SIGPIPE
// death, exit 0, the call still recorded.
func TestHookStdoutClosed(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	pre, fail := fixture(t, "010-PreToolUse-Bash.json"), fixture(t, "012-PostToolUseFailure-Bash.json")
	for i := 0; i < 2; i++ { // two failures: the third run gets an answer
		runBin(t, "cully-hook", env, pre)
		runBin(t, "cully-hook", env, fail)
	}
	in, out, stderr, done := startHook(t, env)
	out.Close()
	in.Write(pre)
	in.Close()
	if err := wait(t, done); err != nil {
		t.Fatalf("exit: %v (stderr %q): the answer's write must not kill the hook", err, stderr)
	}
	evs := journal(t, env["CULLY_HOME"])
	if len(evs) != 5 || len(evs[4].Signals) == 0 {
		t.Fatalf("want 5 records, the last one answered: %+v", evs)
	}
}
