//go:build unix

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"cully/store"
)

// demoTestEnv is a hermetic environment for `cully demo` whose temporary
// folder lands in a fresh TMPDIR, so a test can see that none is left.
func demoTestEnv(t *testing.T) (env map[string]string, tmp string) {
	env = testEnv(t)
	tmp = filepath.Join(env["PWD"], "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	env["TMPDIR"] = tmp
	return env, tmp
}

// assertEmpty fails when dir holds anything: the demo left its folder.
func assertEmpty(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		var left []string
		filepath.WalkDir(filepath.Join(dir, e.Name()), func(p string, _ os.DirEntry, _ error) error {
			left = append(left, strings.TrimPrefix(p, dir))
			return nil
		})
		t.Errorf("the demo left %s behind: %s", filepath.Join(dir, e.Name()), strings.Join(left, " "))
	}
}

// The demo in a real terminal explains itself: it opens on the session
// (never on an "unknown agent" header that was last active "never"),
// captions say what happens and what the agent was told, and it ends on a
// closing screen with the next step, which stays until q. Its folder is
// gone after.
func TestDemoInTmuxReachesClosingScreen(t *testing.T) {
	// It reads every caption off the screen while it stays (at --speed 2,
	// two thirds of a second and more) beside the other tests: a screen
	// read costs the control client's tmux server microseconds, so the
	// test reads it every 15 ms.
	t.Parallel()
	env, tmp := demoTestEnv(t)
	pane := newTmux(t, 56, 40, map[string]string{"HOME": env["HOME"], "TMPDIR": tmp}, "demo", "--speed", "2")
	var seen []string
	deadline := time.Now().Add(120 * time.Second)
	for {
		scr := pane.screen()
		seen = append(seen, scr)
		if strings.Contains(scr, "That was cully — next: `cully install`") {
			break
		}
		if time.Now().After(deadline) || strings.Contains(scr, "cully exited") {
			t.Fatalf("no closing screen:\n%s", scr)
		}
		time.Sleep(15 * time.Millisecond)
	}
	all := strings.Join(seen, "\n")
	for _, bad := range []string{"unknown agent", "last never", "No session recorded yet"} {
		if strings.Contains(all, bad) {
			t.Errorf("the demo showed %q on its way", bad)
		}
	}
	_, noGit := exec.LookPath("git")
	rc := noGit == nil
	captions := 0
	for _, st := range demoScript("/p", rc) {
		if st.say != "" {
			captions++
		}
	}
	wants := []string{fmt.Sprintf("Demo 1 of %d", captions), "A Claude Code session starts.", "what the agent was told:", "│ cully checkpoint c1 (failure-loop)"}
	if rc {
		wants = append(wants, "E Bash  rm -rf testdata", "↶ rolled back to step 0 · 1 file")
	}
	for _, want := range wants {
		if !strings.Contains(all, want) {
			t.Errorf("the demo never showed %q", want)
		}
	}
	end := pane.screen()
	undo := "one command brought them back"
	if !rc {
		undo = "needs git"
	}
	for _, want := range []string{"cully install", "cully panel --split", "q quits · esc shows the panel again", "told it 4 times", undo} {
		if !strings.Contains(squashSpace(end), squashSpace(want)) {
			t.Errorf("the closing screen misses %q:\n%s", want, end)
		}
	}
	// It stays until the user quits.
	time.Sleep(time.Second)
	if scr := pane.screen(); !strings.Contains(scr, "That was cully") || strings.Contains(scr, "cully exited") {
		t.Fatalf("the closing screen did not stay:\n%s", scr)
	}
	pane.send("q")
	if code := pane.exitCode(10 * time.Second); code != 0 {
		t.Errorf("q: exit %d", code)
	}
	assertEmpty(t, tmp)
}

// However the demo in the panel ends — q or Ctrl-C mid-session, SIGHUP
// (the terminal went away), SIGTERM — its temporary folder is removed.
func TestDemoInTmuxLeavesNoFolder(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		sig  syscall.Signal
		key  string
		code int
		say  string
	}{
		{name: "q", key: "q", code: 0},
		{name: "ctrl-c", key: "C-c", code: 0},
		{name: "SIGHUP", sig: syscall.SIGHUP, code: 1, say: "demo stopped (hangup); its temporary folder is removed"},
		{name: "SIGTERM", sig: syscall.SIGTERM, code: 1, say: "demo stopped (terminated); its temporary folder is removed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			env, tmp := demoTestEnv(t)
			pane := newTmux(t, 80, 30, map[string]string{"HOME": env["HOME"], "TMPDIR": tmp, "NO_COLOR": "1"}, "demo")
			pane.waitFor("The user asks for a fix", 20*time.Second)
			if ents, _ := os.ReadDir(tmp); len(ents) != 1 {
				t.Fatalf("want the demo's folder in TMPDIR while it runs, got %d entries", len(ents))
			}
			if c.key != "" {
				pane.send(c.key)
			} else if err := syscall.Kill(pane.pid(), c.sig); err != nil {
				t.Fatal(err)
			}
			if code := pane.exitCode(10 * time.Second); code != c.code {
				t.Errorf("exit %d, want %d", code, c.code)
			}
			if c.say != "" && !strings.Contains(squashSpace(pane.screen()), squashSpace(c.say)) {
				t.Errorf("want %q:\n%s", c.say, pane.screen())
			}
			assertEmpty(t, tmp)
		})
	}
}

// headlessDemo is `cully demo --headless` running with its stdout on a
// pipe.
type headlessDemo struct {
	cmd     *exec.Cmd
	out     *os.File // the pipe's read end
	stderr  *bytes.Buffer
	tmp     string
	release func() // lets the demo's hook calls go on
	exited  chan struct{}
}

// startHeadless starts the demo and holds its journal lock as soon as its
// state dir is known: the demo then waits inside a hook call, mid-session,
// until release.
func startHeadless(t *testing.T) *headlessDemo {
	t.Helper()
	env, tmp := demoTestEnv(t)
	d := &headlessDemo{cmd: exec.Command("cully", "demo", "--headless"), stderr: &bytes.Buffer{}, tmp: tmp, exited: make(chan struct{})}
	d.cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + env["HOME"], "TMPDIR=" + tmp, "CULLY_LOCK_TIMEOUT=60s"}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	d.out = r
	d.cmd.Stdout, d.cmd.Stderr = w, d.stderr
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	go func() { _ = d.cmd.Wait(); close(d.exited) }()
	t.Cleanup(func() { _ = d.cmd.Process.Kill(); <-d.exited })
	lines := bufio.NewReader(r)
	var state string
	for i := 0; i < 2; i++ {
		l, err := lines.ReadString('\n')
		if err != nil {
			t.Fatalf("read the demo's header: %v", err)
		}
		state, _ = strings.CutPrefix(strings.TrimSpace(l), "state dir: ")
	}
	if !strings.HasPrefix(state, tmp) {
		t.Fatalf("state dir %q is not in TMPDIR %s", state, tmp)
	}
	if err := os.MkdirAll(state, 0o700); err != nil {
		t.Fatal(err)
	}
	lk, err := store.Acquire(filepath.Join(state, "journal.lock"), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	d.release = func() { lk.Unlock() }
	t.Cleanup(d.release)
	// Holding it, the demo cannot finish: it is still running after a while.
	select {
	case <-d.exited:
		t.Fatalf("the demo finished while its journal was locked: the test proves nothing (stderr %q)", d.stderr)
	case <-time.After(300 * time.Millisecond):
	}
	return d
}

// wait waits at most limit for the demo to exit, and returns its code.
func (d *headlessDemo) wait(t *testing.T, limit time.Duration) int {
	t.Helper()
	select {
	case <-d.exited:
		return d.cmd.ProcessState.ExitCode()
	case <-time.After(limit):
		t.Fatalf("the demo did not exit within %v", limit)
		return 0
	}
}

// `cully demo --headless | head -1`: once the reader is gone the demo
// stops at its next line, says nothing and leaves no folder, instead of
// dying of SIGPIPE with its folder left behind.
func TestDemoHeadlessClosedPipe(t *testing.T) {
	t.Parallel()
	d := startHeadless(t)
	d.out.Close()
	d.release()
	start := time.Now()
	code := d.wait(t, 10*time.Second)
	t.Logf("exited %v after the pipe closed", time.Since(start))
	if code != 1 || d.stderr.Len() != 0 {
		t.Errorf("exit %d, stderr %q: want 1 and nothing said", code, d.stderr)
	}
	assertEmpty(t, d.tmp)
}

// SIGTERM and SIGHUP mid-session: the hook call in flight is stopped, the
// folder removed, and the demo says so in one line.
func TestDemoHeadlessSignals(t *testing.T) {
	t.Parallel()
	for sig, word := range map[syscall.Signal]string{syscall.SIGTERM: "terminated", syscall.SIGHUP: "hangup", syscall.SIGINT: "interrupt"} {
		t.Run(word, func(t *testing.T) {
			t.Parallel()
			d := startHeadless(t)
			defer d.out.Close()
			if err := d.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if code := d.wait(t, 10*time.Second); code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			if want := "cully: demo stopped (" + word + "); its temporary folder is removed\n"; d.stderr.String() != want {
				t.Errorf("stderr %q, want %q", d.stderr, want)
			}
			assertEmpty(t, d.tmp)
		})
	}
}
