//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"cully/engine"
	"cully/store"
)

// capturedSession is the session of the captured fixtures.
const capturedSession = "0e9b095a-15ce-4954-9bab-4ee72ac1d24e"

// runGuarded is runBin with a guard against a binary that never returns
// (a reader blocked on a FIFO): the guard fails the test, it measures
// nothing.
func runGuarded(t *testing.T, bin string, env map[string]string, stdin []byte, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + env["HOME"]}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Dir = env["PWD"]
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%s %v hangs", bin, args)
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %s: %v", bin, err)
	}
	return result{out.String(), errb.String(), code}
}

// treeBytes is every path under dir with the bytes of its regular files.
func treeBytes(dir string) string {
	var b strings.Builder
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		fmt.Fprintf(&b, "%s %v\n", p, fi.Mode().Type())
		if fi.Mode().IsRegular() {
			c, _ := os.ReadFile(p)
			b.Write(c)
			b.WriteByte('\n')
		}
		return nil
	})
	return b.String()
}

// Symlinks planted in place of any file of the state dir (or of sessions/
// itself) are never followed by the hook, status, a rebuild or doctor:
// nothing outside the state dir changes, and the hook still exits 0.
func TestPlantedSymlinksNeverFollowed(t *testing.T) {
	t.Parallel()
	pre, post := fixture(t, "005-PreToolUse-Read.json"), fixture(t, "007-PostToolUse-Read.json")
	for _, name := range []string{"journal.jsonl", "journal.lock", "errors.log", "recording.failed", "sessions",
		"sessions/" + capturedSession + ".state", "sessions/" + capturedSession + ".json", "sessions/" + capturedSession + ".lock"} {
		t.Run(filepath.Base(name), func(t *testing.T) {
			t.Parallel()
			env := testEnv(t)
			home := env["CULLY_HOME"]
			if r := runGuarded(t, "cully-hook", env, pre); r.code != 0 {
				t.Fatal(r)
			}
			cully(t, env, nil, "status", "--rebuild")
			outside := filepath.Join(env["PWD"], "outside")
			target := filepath.Join(home, name)
			if name == "sessions" {
				os.Rename(target, outside) // the real sessions, moved out: a follower would write them there
			} else {
				st, _ := os.ReadFile(filepath.Join(home, "sessions", capturedSession+".state"))
				os.Remove(target)
				os.WriteFile(outside, st, 0o600) // decodes as the session's state
			}
			if err := os.Symlink(outside, target); err != nil {
				t.Fatal(err)
			}
			before := treeBytes(outside)
			for _, p := range [][]byte{pre, post, pre, post} {
				if r := runGuarded(t, "cully-hook", env, p); r.code != 0 || r.stdout != "" && !json.Valid([]byte(r.stdout)) {
					t.Fatalf("hook: %+v", r)
				}
			}
			runGuarded(t, "cully", env, nil, "status")
			runGuarded(t, "cully", env, nil, "status", "--rebuild")
			runGuarded(t, "cully", env, nil, "doctor")
			if fi, err := os.Lstat(target); err == nil && fi.Mode()&os.ModeSymlink != 0 {
				// The link is still there: the hook must have said why it could not use it.
				logged, _ := os.ReadFile(filepath.Join(home, "errors.log"))
				r := runGuarded(t, "cully-hook", env, pre)
				switch name {
				case "errors.log": // nothing to log yet: make an error
					r = runGuarded(t, "cully-hook", env, []byte("{not json"))
				case "recording.failed": // the hook touches it only when a record fails: doctor says
					r = runGuarded(t, "cully", env, nil, "doctor")
					r.stderr += r.stdout
				}
				if !strings.Contains(string(logged)+r.stderr, "is a symlink: refusing it") {
					t.Errorf("the refusal is recorded: errors.log %q stderr %q", logged, r.stderr)
				}
			}
			if after := treeBytes(outside); after != before {
				t.Fatalf("written through the planted %s link:\nbefore %s\nafter  %s", name, before, after)
			}
			ents, _ := os.ReadDir(env["PWD"])
			for _, e := range ents {
				if e.Name() != "state" && e.Name() != "outside" {
					t.Errorf("created outside CULLY_HOME: %s", e.Name())
				}
			}
		})
	}
}

// A state dir owned by another user is refused with a clear error, and the
// hook exits 0 having written nothing in it.
func TestHookRefusesAnotherUsersStateDir(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	if os.Geteuid() == 0 {
		os.Mkdir(env["CULLY_HOME"], 0o755)
		if err := os.Chown(env["CULLY_HOME"], 65534, 65534); err != nil {
			t.Skip("cannot give the state dir away:", err)
		}
	} else {
		env["CULLY_HOME"] = "/" // root's: refused before anything is tried
	}
	env["TMPDIR"] = t.TempDir() // where the hook notes that the session was told
	before := treeBytes(env["CULLY_HOME"])
	r := runGuarded(t, "cully-hook", env, fixture(t, "010-PreToolUse-Bash.json"))
	if r.code != 0 || !strings.Contains(r.stdout, "cully: recording is off for this session: its state dir is refused") || !strings.Contains(r.stdout, "is owned by uid") {
		t.Fatalf("the hook must exit 0 and tell the agent why: %+v", r)
	}
	if !strings.Contains(r.stderr, "is owned by uid") || !strings.Contains(r.stderr, "refusing it") {
		t.Errorf("stderr should say why: %q", r.stderr)
	}
	if r := runGuarded(t, "cully-hook", env, fixture(t, "010-PreToolUse-Bash.json")); r.code != 0 || r.stdout != "" {
		t.Errorf("the agent is told once a session: %+v", r)
	}
	if os.Geteuid() == 0 {
		if after := treeBytes(env["CULLY_HOME"]); after != before {
			t.Errorf("wrote into another user's state dir:\n%s", after)
		}
	}
	if r := runGuarded(t, "cully", env, nil, "status"); r.code == 0 || !strings.Contains(r.stderr, "is owned by uid") {
		t.Errorf("status: %+v", r)
	}
}

// A FIFO where the journal (or errors.log) belongs is refused by the hook
// and every reader, without hanging on it.
func TestFIFOsRefusedWithoutHanging(t *testing.T) {
	t.Parallel()
	pre := fixture(t, "005-PreToolUse-Read.json")
	t.Run("journal", func(t *testing.T) {
		env := testEnv(t)
		runGuarded(t, "cully-hook", env, pre)
		j := filepath.Join(env["CULLY_HOME"], "journal.jsonl")
		os.Remove(j)
		if err := syscall.Mkfifo(j, 0o600); err != nil {
			t.Skip(err)
		}
		if r := runGuarded(t, "cully-hook", env, pre); r.code != 0 || r.stdout != "" {
			t.Fatalf("hook: %+v", r)
		}
		logged, _ := os.ReadFile(filepath.Join(env["CULLY_HOME"], "errors.log"))
		if !strings.Contains(string(logged), "journal.jsonl is a FIFO, not a regular file: refusing it") {
			t.Errorf("errors.log: %s", logged)
		}
		for _, args := range [][]string{{"status"}, {"status", "--rebuild"}, {"status", "--json"}} {
			if r := runGuarded(t, "cully", env, nil, args...); r.code == 0 || !strings.Contains(r.stderr, "is a FIFO") {
				t.Errorf("%v: %+v", args, r)
			}
		}
		if r := runGuarded(t, "cully", env, nil, "doctor"); r.code == 0 || !strings.Contains(r.stdout, "FAIL  journal: ") || !strings.Contains(r.stdout, "is a FIFO") {
			t.Errorf("doctor: %+v", r)
		}
	})
	t.Run("errors.log", func(t *testing.T) {
		env := testEnv(t)
		runGuarded(t, "cully-hook", env, pre)
		if err := syscall.Mkfifo(filepath.Join(env["CULLY_HOME"], "errors.log"), 0o600); err != nil {
			t.Skip(err)
		}
		// Nowhere to log: the error goes to stderr, and the hook exits 0.
		if r := runGuarded(t, "cully-hook", env, []byte("{not json")); r.code != 0 || !strings.Contains(r.stderr, "is a FIFO") {
			t.Fatalf("hook: %+v", r)
		}
		if r := runGuarded(t, "cully", env, nil, "status"); r.code != 0 {
			t.Errorf("status reads past a FIFO errors.log: %+v", r)
		}
		runGuarded(t, "cully", env, nil, "doctor")
	})
	t.Run("recording.failed", func(t *testing.T) {
		env := testEnv(t)
		runGuarded(t, "cully-hook", env, pre)
		counter := filepath.Join(env["CULLY_HOME"], "recording.failed")
		os.Remove(counter)
		if err := syscall.Mkfifo(counter, 0o600); err != nil {
			t.Skip(err)
		}
		if r := runGuarded(t, "cully-hook", env, pre); r.code != 0 || r.stderr != "" {
			t.Fatalf("hook: %+v", r)
		}
		// A record that fails cannot be counted there: the hook still says
		// so on stderr, and exits 0 without waiting on the FIFO.
		fi, _ := os.Stat(filepath.Join(env["CULLY_HOME"], "journal.jsonl"))
		if r := hookUnderFileLimit(t, env, fi.Size()/1024, pre); r.code != 0 || !strings.Contains(r.stderr, "recording failed") {
			t.Fatalf("hook under a failing append: %+v", r)
		}
		if r := runGuarded(t, "cully", env, nil, "status", "--json"); r.code != 0 || !strings.Contains(r.stdout, `"state": "unknown"`) || !strings.Contains(r.stdout, "is a FIFO") {
			t.Errorf("status --json: %+v", r)
		}
		if r := runGuarded(t, "cully", env, nil, "doctor"); !strings.Contains(r.stdout, "note  recording: cannot make recording.failed in advance (") || !strings.Contains(r.stdout, "recording.failed is a FIFO") {
			t.Errorf("doctor: %+v", r)
		}
	})
}

// setMtime sets a file's mtime to any second, past what os.Chtimes can
// express (it goes through UnixNano). It reports whether the file system
// kept it.
func setMtime(t *testing.T, p string, at time.Time) bool {
	t.Helper()
	ts := []unix.Timespec{{Sec: at.Unix()}, {Sec: at.Unix()}}
	if err := unix.UtimesNanoAt(unix.AT_FDCWD, p, ts, 0); err != nil {
		return false
	}
	fi, err := os.Stat(p)
	return err == nil && fi.ModTime().Equal(at)
}

// A target whose mtime no reader could parse back (year 10000) or that the
// read rules cannot compare (2300, past UnixNano) is recorded without its
// mtime and with a note, and every reader reads the record back.
func TestOutOfRangeMtimesRecordedAndReadBack(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	dirs := []string{env["PWD"]}
	if shm, err := os.MkdirTemp("/dev/shm", "cully-mtime-"); err == nil { // tmpfs keeps year 10000; ext4 stops at 2446
		defer os.RemoveAll(shm)
		dirs = append(dirs, shm)
	}
	recorded := 0
	for _, year := range []int{10000, 2300} {
		at := time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC)
		var file string
		for _, d := range dirs {
			p := filepath.Join(d, fmt.Sprintf("f%d.go", year))
			os.WriteFile(p, []byte("package f\n"), 0o644)
			if setMtime(t, p, at) {
				file = p
				break
			}
		}
		if file == "" {
			t.Logf("no file system here keeps an mtime of year %d: not tested", year)
			continue
		}
		for _, hook := range []string{"PreToolUse", "PostToolUse"} {
			p := fmt.Sprintf(`{"session_id":"mt","cwd":%q,"hook_event_name":%q,"tool_name":"Read","tool_input":{"file_path":%q},"tool_response":{},"tool_use_id":"t%d"}`,
				env["PWD"], hook, file, year)
			if r := runGuarded(t, "cully-hook", env, []byte(p)); r.code != 0 || r.stderr != "" {
				t.Fatalf("%d %s: %+v", year, hook, r)
			}
			recorded++
		}
	}
	if recorded == 0 {
		t.Skip("no out-of-range mtime could be set")
	}
	evs := journal(t, env["CULLY_HOME"]) // fails on a line encoding/json cannot read
	if len(evs) != recorded {
		t.Fatalf("journal has %d records, want %d", len(evs), recorded)
	}
	for _, ev := range evs {
		if ev.Mtime != nil || ev.Note != "mtime-out-of-range" || ev.Size == nil {
			t.Errorf("%s %s: mtime %v note %q size %v", ev.Hook, ev.Target, ev.Mtime, ev.Note, ev.Size)
		}
	}
	var rep statusReport
	r := runGuarded(t, "cully", env, nil, "status", "--json", "--rebuild", "--session", "mt")
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("status: %v %+v", err, r)
	}
	if rep.Journal.Lines != recorded || rep.Journal.Corrupt != 0 || rep.Counts.ByClass[engine.ClassRead] != recorded/2 {
		t.Errorf("status reads every record: %+v %+v", rep.Journal, rep.Counts)
	}
	h := store.Home{Dir: env["CULLY_HOME"]}
	if _, err := h.ReadState("mt", nil); err != nil {
		t.Errorf("the state reads back: %v", err)
	}
}
