//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// holdJournalLock holds $CULLY_HOME/journal.lock as a repository command
// would: with flock(1) where it is installed (`flock -x journal.lock sleep
// 600`), else from this process on a descriptor of its own. release ends
// the holder.
func holdJournalLock(t *testing.T, home string) (pid int, release func()) {
	t.Helper()
	return holdFileLock(t, filepath.Join(home, "journal.lock"))
}

// holdFileLock holds a flock on lock as holdJournalLock does.
func holdFileLock(t *testing.T, lock string) (pid int, release func()) {
	t.Helper()
	if path, err := exec.LookPath("flock"); err == nil {
		cmd := exec.Command(path, "-x", lock, "sleep", "600")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // flock and its sleep, ended together
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Held once flock has it: a try from here fails.
		for {
			f, err := os.Open(lock)
			if err == nil {
				err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
				f.Close()
				if err == unix.EWOULDBLOCK {
					break
				}
			}
			time.Sleep(time.Millisecond) // a poll, not a timing
		}
		stop := func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() }
		t.Cleanup(stop)
		return cmd.Process.Pid, stop
	}
	f, err := os.OpenFile(lock, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return 0, func() { f.Close() }
}

func readPayload(session string, i int) []byte {
	return fmt.Appendf(nil, `{"session_id":%q,"hook_event_name":"PostToolUse","tool_name":"Read","tool_use_id":"%s-%02d","tool_input":{"file_path":"a.go"},"tool_response":{"type":"text"},"cwd":"/p"}`, session, session, i)
}

// A journal lock held by another process (the issue's `flock -x
// journal.lock sleep`) neither silences nor slows the hook into its
// host's timeout: every call exits 0 with its answer, its record waits in
// pending/, the agent is told once a session, status and doctor say who
// holds the lock and how to end it; once the holder ends, the next call
// folds every waiting record into the journal, each exactly once.
func TestJournalLockHeldLosesNothing(t *testing.T) {
	env := testEnv(t)
	home := env["CULLY_HOME"]
	if r := runGuarded(t, "cully-hook", env, readPayload("a", 0)); r.code != 0 {
		t.Fatal(r)
	}
	pid, release := holdJournalLock(t, home)
	// Two sessions, their calls in parallel as a host's parallel tool
	// calls are, each session's in order.
	var wg sync.WaitGroup
	answers := map[string][]string{}
	var mu sync.Mutex
	for _, s := range []string{"a", "b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 1; i <= 5; i++ {
				r := runGuarded(t, "cully-hook", env, readPayload(s, i))
				if r.code != 0 || r.stdout != "" && !json.Valid([]byte(r.stdout)) {
					t.Errorf("%s-%d: %+v", s, i, r)
				}
				mu.Lock()
				answers[s] = append(answers[s], r.stdout)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for s, outs := range answers {
		told := 0
		for _, o := range outs {
			if strings.Contains(o, "cully: recording is blocked: another process holds "+filepath.Join(home, "journal.lock")) {
				told++
			}
		}
		if told != 1 {
			t.Errorf("session %s told %d times that recording is blocked, want once: %q", s, told, outs)
		}
	}
	ents, _ := os.ReadDir(filepath.Join(home, "pending"))
	if len(ents) < 10 {
		t.Errorf("pending/ holds %d entries, want the 10 records and more", len(ents))
	}

	r := cully(t, env, nil, "status", "--session", "a")
	if !strings.Contains(r.stdout, "recording blocked: 10 calls wait in pending/ since ") {
		t.Errorf("status: %+v", r)
	}
	// Both hold it: flock(1), and the sleep that shares its descriptor.
	if pid != 0 && (!strings.Contains(r.stdout, fmt.Sprintf("(none lost): journal.lock is held by pid %d (", pid)) || !strings.Contains(r.stdout, "flock -x") ||
		!strings.Contains(r.stdout, "(sleep 600)\n") || !strings.Contains(r.stdout, fmt.Sprintf("fix: end them (kill %d ", pid))) {
		t.Errorf("status names the holder and the fix: %s", r.stdout)
	}
	var rep struct {
		Recording recordingReport `json:"recording"`
	}
	r = cully(t, env, nil, "status", "--session", "a", "--json")
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || rep.Recording.State != "failing" || !strings.Contains(rep.Recording.Message, "recording blocked") ||
		rep.Recording.Waiting != 10 || pid != 0 && !strings.Contains(rep.Recording.Holder, "flock -x") {
		t.Errorf("status --json: %v %+v", err, rep.Recording)
	}
	if r := cully(t, env, nil, "doctor"); r.code == 0 || !strings.Contains(r.stdout, "FAIL  recording blocked: ") {
		t.Errorf("doctor: %+v", r)
	}

	release()
	if r := runGuarded(t, "cully-hook", env, readPayload("b", 6)); r.code != 0 || strings.Contains(r.stdout, "blocked") {
		t.Fatal(r)
	}
	if _, err := os.Lstat(filepath.Join(home, "pending")); err == nil {
		t.Error("pending/ left after the lock was free again")
	}
	count := map[string]int{}
	var order []string
	for _, ev := range journal(t, home) {
		count[ev.ToolUseID]++
		order = append(order, ev.ToolUseID)
	}
	for _, s := range []string{"a", "b"} {
		last := ""
		for _, id := range order {
			if strings.HasPrefix(id, s+"-") {
				if id <= last {
					t.Errorf("%s after %s in the journal", id, last)
				}
				last = id
			}
		}
	}
	want := 1 + 10 + 1
	if len(count) != want {
		t.Errorf("the journal holds %d records, want %d: %v", len(count), want, order)
	}
	for id, n := range count {
		if n != 1 {
			t.Errorf("%s is in the journal %d times", id, n)
		}
	}
	r = cully(t, env, nil, "status", "--session", "a", "--json")
	rep.Recording = recordingReport{}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || rep.Recording.State != "ok" || rep.Recording.Waiting != 0 || rep.Recording.Holder != "" {
		t.Errorf("status once the lock is free: %v %+v", err, rep.Recording)
	}
	r = cully(t, env, nil, "status", "--session", "b")
	if !strings.Contains(r.stdout, "calls    6:") {
		t.Errorf("session b's state holds its 6 calls: %s", r.stdout)
	}
}

// A state dir a repository command made group-writable (`chmod g+w
// $CULLY_HOME`) switches recording off, never the agent: every call exits
// 0, nothing is written there, the agent is told once a session with the
// fix, and status and doctor say it with the exact command; `chmod 700`
// puts everything back.
func TestStateDirMadeGroupWritable(t *testing.T) {
	env := testEnv(t)
	env["TMPDIR"] = t.TempDir()
	home := env["CULLY_HOME"]
	if r := runGuarded(t, "cully-hook", env, readPayload("a", 0)); r.code != 0 {
		t.Fatal(r)
	}
	if err := os.Chmod(home, 0o770); err != nil {
		t.Fatal(err)
	}
	before := treeBytes(home)
	fix := "chmod 700 " + home
	told := 0
	for i := 1; i <= 3; i++ {
		for _, s := range []string{"a", "b"} {
			r := runGuarded(t, "cully-hook", env, readPayload(s, i))
			if r.code != 0 || r.stdout != "" && !json.Valid([]byte(r.stdout)) {
				t.Fatalf("%+v", r)
			}
			if strings.Contains(r.stdout, "recording is off for this session") {
				told++
				if !strings.Contains(r.stdout, "the fix: "+fix) {
					t.Errorf("the agent is told the fix: %s", r.stdout)
				}
			}
		}
	}
	if told != 2 {
		t.Errorf("told %d times, want once for each of the 2 sessions", told)
	}
	if after := treeBytes(home); after != before {
		t.Errorf("wrote into the refused state dir:\n%s", after)
	}
	if r := cully(t, env, nil, "status"); r.code == 0 || !strings.Contains(r.stderr, "is writable by group or others (-rwxrwx---): refusing it (fix: "+fix+")") {
		t.Errorf("status: %+v", r)
	}
	if r := cully(t, env, nil, "doctor"); r.code == 0 || !strings.Contains(r.stdout, "FAIL  state dir refused: "+home+" is writable by group or others") ||
		!strings.Contains(r.stdout, "fix: "+fix+"\n") {
		t.Errorf("doctor: %+v", r)
	}
	if err := os.Chmod(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if r := runGuarded(t, "cully-hook", env, readPayload("a", 4)); r.code != 0 || r.stdout != "" {
		t.Fatal(r)
	}
	if n := len(journal(t, home)); n != 2 {
		t.Errorf("the journal holds %d records, want the 2 made while the dir was private", n)
	}
}

// The panel, in a real terminal, says on its red line that calls wait on a
// journal lock another process holds, with the fix.
func TestPanelSaysWhenRecordingBlocked(t *testing.T) {
	env := testEnv(t)
	home := env["CULLY_HOME"]
	if r := runGuarded(t, "cully-hook", env, readPayload("a", 0)); r.code != 0 {
		t.Fatal(r)
	}
	holdJournalLock(t, home)
	for i := 1; i <= 2; i++ {
		if r := runGuarded(t, "cully-hook", env, readPayload("a", i)); r.code != 0 {
			t.Fatal(r)
		}
	}
	pane := newTmux(t, 250, 20, map[string]string{"CULLY_HOME": home, "HOME": env["HOME"]}, "panel")
	pane.waitFor("⚠ recording blocked: 2 calls wait in pending/ since ", 10*time.Second)
	if scr := pane.screen(); !strings.Contains(scr, "(none lost): journal.lock is held by pid ") {
		t.Errorf("the recording line:\n%s", scr)
	}
	pane.send("q")
}

// A session's own lock held by another process (`flock -x
// $CULLY_HOME/sessions/<id>.state sleep 600`) neither silences the session
// nor costs each call the whole lock wait: every call exits 0 and is
// recorded, the agent is told once, status and doctor name the holder in
// red with the fix, a stop still refuses the agent's next call, and once
// the holder ends the next call catches the state up, each record once.
func TestSessionLockHeldLosesNothing(t *testing.T) {
	env := testEnv(t)
	home := env["CULLY_HOME"]
	if r := runGuarded(t, "cully-hook", env, readPayload("a", 0)); r.code != 0 {
		t.Fatal(r)
	}
	state := filepath.Join(home, "sessions", "a.state")
	pid, release := holdFileLock(t, state)
	told := 0
	for i := 1; i <= 5; i++ {
		r := runGuarded(t, "cully-hook", env, readPayload("a", i))
		if r.code != 0 || r.stdout != "" && !json.Valid([]byte(r.stdout)) {
			t.Fatalf("call %d: %+v", i, r)
		}
		if strings.Contains(r.stdout, "cully: another process holds "+state) {
			told++
		}
	}
	if told != 1 {
		t.Errorf("told %d times that the session's lock is held, want once", told)
	}
	r := cully(t, env, nil, "status", "--session", "a")
	if !strings.Contains(r.stdout, "calls    6:") || !strings.Contains(r.stdout, "recording without a session's lock: sessions/a.state is held by ") {
		t.Errorf("status: %s", r.stdout)
	}
	if pid != 0 && (!strings.Contains(r.stdout, fmt.Sprintf("is held by pid %d (", pid)) || !strings.Contains(r.stdout, fmt.Sprintf("fix: end it (kill %d ", pid))) {
		t.Errorf("status names the holder and the fix: %s", r.stdout)
	}
	var rep struct {
		Recording recordingReport `json:"recording"`
	}
	r = cully(t, env, nil, "status", "--session", "a", "--json")
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || rep.Recording.State != "failing" || !strings.Contains(rep.Recording.Message, "without a session's lock") {
		t.Errorf("status --json: %v %+v", err, rep.Recording)
	}
	if r := cully(t, env, nil, "doctor"); r.code == 0 || !strings.Contains(r.stdout, "FAIL  recording without a session's lock") {
		t.Errorf("doctor: %+v", r)
	}

	// The brake holds: a stop recorded while the lock is held refuses the
	// agent's next call.
	if r := cully(t, env, nil, "stop", "--session", "a", "--yes"); !strings.Contains(r.stdout, "is stopped") {
		t.Errorf("stop: %+v", r)
	}
	pre := []byte(`{"session_id":"a","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"a-07","tool_input":{"command":"make"},"cwd":"/p"}`)
	if r := runGuarded(t, "cully-hook", env, pre); r.code != 0 || !denied(r.stdout) {
		t.Errorf("the call after a stop is not refused while the lock is held: %+v", r)
	}

	release()
	if r := runGuarded(t, "cully-hook", env, readPayload("a", 8)); r.code != 0 || strings.Contains(r.stdout, "another process holds") {
		t.Fatal(r)
	}
	if _, err := os.Lstat(state + ".behind"); err == nil {
		t.Error("the marker outlived the catch-up")
	}
	count := map[string]int{}
	for _, ev := range journal(t, home) {
		count[ev.ToolUseID]++
	}
	for id, n := range count {
		if n != 1 && id != "" { // cully's own records (the stop's pause, its snapshot) carry no call id
			t.Errorf("%s is in the journal %d times", id, n)
		}
	}
	if count["a-01"]+count["a-05"]+count["a-07"]+count["a-08"] != 4 {
		t.Errorf("records missing from the journal: %v", count)
	}
	r = cully(t, env, nil, "status", "--session", "a", "--json")
	rep.Recording = recordingReport{}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || rep.Recording.State != "ok" {
		t.Errorf("status once the lock is free: %v %+v", err, rep.Recording)
	}
	calls := func() string {
		out := cully(t, env, nil, "status", "--session", "a").stdout
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "calls ") {
				return l
			}
		}
		t.Fatalf("no calls line: %s", out)
		return ""
	}
	caught := calls()
	if r := cully(t, env, nil, "status", "--rebuild", "--session", "a"); r.code != 0 {
		t.Fatal(r)
	}
	if rebuilt := calls(); rebuilt != caught || !strings.HasPrefix(caught, "calls    7:") {
		t.Errorf("the caught-up state says %q, a rebuild %q", caught, rebuilt)
	}
}
