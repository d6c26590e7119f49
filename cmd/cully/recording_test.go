package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// hookUnderFileLimit runs the real cully-hook with a file size limit
// (ulimit -f) of blocks: every write past it fails with EFBIG, as a write
// on a full disk fails with ENOSPC, while a write over bytes a file
// already has goes through, as it does on a full ext4 disk. A Go program
// does not die of the SIGXFSZ that comes with it (the runtime takes the
// signal and does nothing), which the exit status checks.
func hookUnderFileLimit(t *testing.T, env map[string]string, blocks int64, payload []byte) result {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("no ulimit -f")
	}
	return runBin(t, "sh", env, payload, "-c", fmt.Sprintf(`ulimit -f %d && exec cully-hook "$@"`, blocks), "sh")
}

// A journal append that fails is never silent, even when errors.log
// cannot be written either: the hook exits 0 with its usual answer on
// stdout (none, for a call it could not record), says on stderr that
// recording failed and why, and counts the call in recording.failed, which
// it overwrites in place. cully status (text and --json), doctor and the
// panel then say so until a later call is recorded and a person has seen
// it: --json alone leaves it, status's text clears it.
func TestHookSaysWhenRecordingFails(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	home := env["CULLY_HOME"]
	raw, _ := os.ReadFile(filepath.Join(fixtures, "capture-sequence", "005-PreToolUse-Read.json"))
	for i := 0; ; i++ {
		if r := runBin(t, "cully-hook", env, raw); r.code != 0 || r.stdout != "" || r.stderr != "" {
			t.Fatalf("healthy call: %+v", r)
		}
		if fi, err := os.Stat(filepath.Join(home, "journal.jsonl")); err == nil && fi.Size() >= 2048 {
			break
		}
		if i > 50 {
			t.Fatal("the journal does not grow")
		}
	}
	if fi, err := os.Stat(filepath.Join(home, "recording.failed")); err != nil || fi.Size() != 512 {
		t.Fatalf("the session's first call should make the failure counter whole: %v", err)
	}
	journalPath := filepath.Join(home, "journal.jsonl")
	fi, _ := os.Stat(journalPath)
	records := len(journal(t, home))
	// The limit in bytes is at most the journal's size whether sh counts
	// in 512-byte blocks (POSIX) or in KiB (bash outside POSIX mode): no
	// byte of the record fits. errors.log is made larger than the limit,
	// so it cannot take the error either.
	blocks := fi.Size() / 1024
	pad := `{"ts":"2026-11-30T12:00:00Z","op":"test","error":"` + strings.Repeat("x", int(fi.Size())+2048) + `"}` + "\n"
	if err := os.WriteFile(filepath.Join(home, "errors.log"), []byte(pad), 0o600); err != nil {
		t.Fatal(err)
	}

	r := hookUnderFileLimit(t, env, blocks, raw)
	if r.code != 0 || r.stdout != "" {
		t.Fatalf("under a full disk the hook must exit 0 with its answer alone on stdout: %+v", r)
	}
	lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "cully hook: recording failed") || !strings.Contains(lines[0], "file too large") || len([]rune(lines[0])) > 200+len("cully hook: ") {
		t.Fatalf("want one stderr line saying recording failed and why, got %q", r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(home, "errors.log")); string(b) != pad {
		t.Fatal("errors.log should have been out of reach in this test")
	}
	if after, _ := os.Stat(journalPath); after.Size() != fi.Size() || len(journal(t, home)) != records {
		t.Fatalf("nothing of the record should reach the journal: %d bytes, was %d", after.Size(), fi.Size())
	}
	// A second lost call: counted, its first failure's time kept.
	if r := hookUnderFileLimit(t, env, blocks, raw); r.code != 0 || !strings.Contains(r.stderr, "recording failed") {
		t.Fatalf("second call: %+v", r)
	}
	if fi, _ := os.Stat(filepath.Join(home, "recording.failed")); fi.Size() != 512 {
		t.Fatalf("the counter must be overwritten in place, never grown: %d bytes", fi.Size())
	}

	const want = "recording failed: 2 calls not recorded since "
	st := cully(t, env, nil, "status")
	if st.code != 0 || !strings.HasPrefix(st.stdout, want) || !strings.Contains(st.stdout, "file too large") ||
		!strings.Contains(st.stdout, "fix: raise the file size limit (ulimit -f)") {
		t.Fatalf("status should open with the lost calls and the fix:\n%s%s", st.stdout, st.stderr)
	}
	rec := statusRecording(t, env)
	if rec.State != "failing" || rec.NotRecorded != 2 || rec.Kind != "file_size" || rec.Since == nil || rec.Last == nil ||
		rec.Since.After(*rec.Last) || !strings.HasPrefix(rec.Message, want) || rec.Fix == "" || rec.FreeBytes == nil {
		t.Fatalf("status --json recording: %+v", rec)
	}
	if time.Since(*rec.Since) > time.Hour {
		t.Errorf("the first failure's time is the wall clock's: %v", rec.Since)
	}
	doc := cully(t, env, nil, "doctor")
	if doc.code == 0 || !strings.Contains(doc.stdout, "FAIL  "+want) || !strings.Contains(doc.stdout, "fix: raise the file size limit") {
		t.Fatalf("doctor should fail on lost calls (exit %d):\n%s", doc.code, doc.stdout)
	}
	// Shown while failing, nothing is cleared.
	if rec := statusRecording(t, env); rec.State != "failing" || rec.NotRecorded != 2 {
		t.Fatalf("cleared while still failing: %+v", rec)
	}

	// Recording works again: the report says so, and stays for a script's
	// reads until status's text (or doctor) has shown it.
	if r := runBin(t, "cully-hook", env, raw); r.code != 0 || r.stderr != "" {
		t.Fatalf("healthy call after the failures: %+v", r)
	}
	for range 2 {
		if rec := statusRecording(t, env); rec.State != "recovered" || rec.NotRecorded != 2 || !strings.Contains(rec.Message, "recording works again") {
			t.Fatalf("after a recorded call: %+v", rec)
		}
	}
	st = cully(t, env, nil, "status")
	if !strings.HasPrefix(st.stdout, want) || !strings.Contains(st.stdout, "recording works again") || !strings.Contains(st.stdout, "(cleared now that you have seen it)") {
		t.Fatalf("status after recovery:\n%s", st.stdout)
	}
	if rec := statusRecording(t, env); rec.State != "ok" || rec.NotRecorded != 0 || rec.Message != "" {
		t.Fatalf("once shown after recovery the report clears: %+v", rec)
	}
	if st := cully(t, env, nil, "status"); strings.Contains(st.stdout, "recording failed") {
		t.Fatalf("cleared report shown again:\n%s", st.stdout)
	}
}

// The panel, in a real terminal, shows lost calls on its red line with the
// fix, from its first frame.
func TestPanelSaysWhenRecordingFails(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	home := env["CULLY_HOME"]
	raw, _ := os.ReadFile(filepath.Join(fixtures, "capture-sequence", "005-PreToolUse-Read.json"))
	for {
		runBin(t, "cully-hook", env, raw)
		if fi, err := os.Stat(filepath.Join(home, "journal.jsonl")); err == nil && fi.Size() >= 1024 {
			fi, _ := os.Stat(filepath.Join(home, "journal.jsonl"))
			if r := hookUnderFileLimit(t, env, fi.Size()/1024, raw); r.code != 0 || !strings.Contains(r.stderr, "recording failed") {
				t.Fatalf("the call under the limit: %+v", r)
			}
			break
		}
	}
	pane := newTmux(t, 200, 20, map[string]string{"CULLY_HOME": home, "HOME": env["HOME"]}, "panel")
	pane.waitFor("⚠ recording failed: 1 call not recorded since ", 10*time.Second)
	if scr := pane.screen(); !strings.Contains(scr, "file too large") || !strings.Contains(scr, "raise the file size limit") || !strings.Contains(scr, "cully doctor") {
		t.Errorf("the recording line:\n%s", scr)
	}
	pane.send("q")
}

func statusRecording(t *testing.T, env map[string]string) recordingReport {
	t.Helper()
	r := cully(t, env, nil, "status", "--json")
	var rep statusReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("status --json: %v\n%s%s", err, r.stdout, r.stderr)
	}
	return rep.Recording
}
