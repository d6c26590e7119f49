package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"cully/engine"
)

// failAppends makes every journal append fail with err until the test ends.
func failAppends(t *testing.T, err error) {
	t.Helper()
	failAppend = err
	t.Cleanup(func() { failAppend = nil })
}

var errNoSpace = &fs.PathError{Op: "write", Path: "journal.jsonl", Err: syscall.ENOSPC}

// A record that does not reach the journal is counted in recording.failed,
// in place (the file never grows), with the first failure's time kept and
// the last reason; Record's error says recording failed. A record that
// reaches the journal after it makes the report "recovered", and only
// then can it be cleared.
func TestRecordingCountsLostRecords(t *testing.T) {
	h := Home{Dir: t.TempDir()}
	cfg := engine.DefaultConfig()
	if _, err := h.Record(testEvent("s", 0), &cfg); err != nil {
		t.Fatal(err)
	}
	counter := filepath.Join(h.Dir, RecordingName)
	if fi, err := os.Stat(counter); err != nil || fi.Size() != recordingSize || fi.Mode().Perm() != 0o600 {
		t.Fatalf("a session's first call makes the counter whole, 0600: %v %v", fi, err)
	}
	if r, err := h.ReadRecording(); err != nil || r.NotRecorded != 0 || r.Failing() && !r.Full() || r.Missing {
		t.Fatalf("healthy: %+v %v", r, err)
	}

	failAppends(t, errNoSpace)
	_, err := h.Record(testEvent("s", 1), &cfg)
	var nr *NotRecordedError
	if !errors.As(err, &nr) || nr.Kind != RecNoSpace || nr.Counted != 1 || !errors.Is(err, syscall.ENOSPC) ||
		!strings.Contains(nr.Reason, "no space left on device") || !strings.Contains(nr.Fix, "free space on the disk holding "+h.Dir) {
		t.Fatalf("Record's error: %#v", err)
	}
	first, _ := h.ReadRecording()
	if _, err := h.Record(testEvent("t", 2), &cfg); !errors.As(err, &nr) || nr.Counted != 2 {
		t.Fatalf("a new session's lost record counts too: %v", err)
	}
	r, err := h.ReadRecording()
	if err != nil || r.NotRecorded != 2 || !r.First.Equal(first.First) || r.Last.Before(r.First) || r.Kind != RecNoSpace || r.Recovered || !r.Failing() {
		t.Fatalf("after two lost records: %+v %v", r, err)
	}
	at := func(t time.Time) string { return t.UTC().Format(time.RFC3339) }
	if want := "recording failed: 2 calls not recorded since " + at(r.First) + ": no space left on device (write journal.jsonl)"; r.Headline(at) != want {
		t.Errorf("headline %q, want %q", r.Headline(at), want)
	}
	if fi, _ := os.Stat(counter); fi.Size() != recordingSize {
		t.Fatalf("the counter grew: %d bytes", fi.Size())
	}
	if ok, _ := h.ClearRecording(r); ok {
		t.Fatal("cleared while recording still fails")
	}

	failAppend = nil
	if _, err := h.Record(testEvent("s", 3), &cfg); err != nil {
		t.Fatal(err)
	}
	r, _ = h.ReadRecording()
	if !r.Recovered || r.NotRecorded != 2 || r.Failing() && !r.Full() {
		t.Fatalf("after a recorded call: %+v", r)
	}
	// A failure between the read and the clear is not lost to it.
	failAppends(t, errNoSpace)
	h.Record(testEvent("s", 4), &cfg)
	if ok, _ := h.ClearRecording(r); ok {
		t.Fatal("a clear of what was shown took a failure that came after it")
	}
	failAppend = nil
	h.Record(testEvent("s", 5), &cfg)
	r, _ = h.ReadRecording()
	if ok, err := h.ClearRecording(r); !ok || err != nil {
		t.Fatalf("clear: %v %v", ok, err)
	}
	if r, _ := h.ReadRecording(); r.NotRecorded != 0 || r.Recovered {
		t.Fatalf("after clearing: %+v", r)
	}
	if fi, _ := os.Stat(counter); fi.Size() != recordingSize {
		t.Fatalf("clearing changed the counter's size: %d", fi.Size())
	}
}

// Nothing is counted in a state dir that fails its trust checks: the
// error says so, and nothing is written there.
func TestRecordingNotCountedInRefusedStateDir(t *testing.T) {
	h := Home{Dir: t.TempDir()}
	if err := h.Ensure(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(h.Dir, 0o777); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(h.Dir, 0o700)
	cfg := engine.DefaultConfig()
	_, err := h.Record(testEvent("s", 0), &cfg)
	var nr *NotRecordedError
	if !errors.Is(err, ErrUnsafe) || errors.As(err, &nr) {
		t.Fatalf("want the refusal itself: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(h.Dir, RecordingName)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a counter was written into a refused state dir: %v", err)
	}
}

// A lost record's reason and fix, by cause.
func TestRecordingExplains(t *testing.T) {
	dir := "/home/dev/.local/state/cully"
	for _, c := range []struct {
		err          error
		kind, reason string
		fix          string
	}{
		{&fs.PathError{Op: "write", Path: dir + "/journal.jsonl", Err: syscall.ENOSPC}, RecNoSpace, "no space left on device (write journal.jsonl)", "free space on the disk holding " + dir},
		{&fs.PathError{Op: "write", Path: dir + "/journal.jsonl", Err: syscall.EDQUOT}, RecQuota, "disk quota exceeded (write journal.jsonl)", "quota"},
		{&fs.PathError{Op: "write", Path: dir + "/journal.jsonl", Err: syscall.EFBIG}, RecFileSize, "file too large (write journal.jsonl)", "ulimit -f"},
		{&fs.PathError{Op: "open", Path: dir + "/sessions/s.state", Err: syscall.EACCES}, RecPermission, "permission denied (open sessions/s.state)", "fix the permissions of " + dir},
		{&fs.PathError{Op: "open", Path: dir + "/journal.jsonl", Err: syscall.EROFS}, RecReadOnly, "read-only file system (open journal.jsonl)", "read-only"},
		{errors.New("lock " + dir + "/journal.lock: " + ErrLockTimeout.Error()), RecOther, "lock " + dir + "/journal.lock: lock not acquired before the deadline", "cully doctor"},
		{fmtErr("lock %s: %w", dir+"/sessions/s.state", ErrLockTimeout), RecLocked, "another process held a session's lock past the deadline", "CULLY_LOCK_TIMEOUT"},
		{fmtErr("open journal: %w", unsafeErr(dir+"/journal.jsonl", "is a symlink")), RecRefused, "open journal: " + dir + "/journal.jsonl is a symlink: refusing it", "remove what was planted in " + dir},
	} {
		kind, reason := explain(dir, c.err)
		fix := Recording{Dir: dir, Kind: kind}.Fix()
		if kind != c.kind || reason != c.reason || !strings.Contains(fix, c.fix) {
			t.Errorf("%v: %s %q %q", c.err, kind, reason, fix)
		}
	}
}

// The counter's text: written at its fixed size, read back the same; a
// counter that is not cully's is an error, never a count of zero.
func TestRecordingCodec(t *testing.T) {
	dir := t.TempDir()
	r := Recording{NotRecorded: 7, First: time.Unix(100, 5).UTC(), Last: time.Unix(200, 0).UTC(), Kind: RecNoSpace,
		Reason: strings.Repeat("é\nx", 300), mark: journalMark{Rotated: 3, Size: 12345}}
	b := encodeRecording(r)
	if len(b) != recordingSize {
		t.Fatalf("%d bytes", len(b))
	}
	p := filepath.Join(dir, RecordingName)
	os.WriteFile(p, b, 0o600)
	f, _ := openFile(p, os.O_RDONLY, 0)
	got, err := readRecording(f)
	f.Close()
	if err != nil || got.NotRecorded != 7 || !got.First.Equal(r.First) || !got.Last.Equal(r.Last) || got.mark != r.mark || got.Kind != r.Kind ||
		!strings.HasPrefix(strings.Join(strings.Fields(r.Reason), " "), got.Reason) || len(got.Reason) < 100 {
		t.Fatalf("read back %+v, %v", got, err)
	}
	if n := len(encodeRecording(Recording{})); n != recordingSize {
		t.Fatalf("a clear counter is %d bytes", n)
	}
	os.WriteFile(p, []byte("something else\n"), 0o600)
	h := Home{Dir: dir}
	if _, err := h.ReadRecording(); err == nil {
		t.Fatal("a counter that is not cully's read as one")
	}
}

func fmtErr(format string, args ...any) error { return fmt.Errorf(format, args...) }
