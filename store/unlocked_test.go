package store

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"cully/engine"
)

// holdSession holds a session's lock as another process would (its own
// open file description on the state file), until release is called.
func holdSession(t *testing.T, h Home, id string) (release func()) {
	t.Helper()
	othersHold(t)
	lk, err := Acquire(h.StatePath(id), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	return func() { lk.Unlock() }
}

// othersHold makes this process's own lock holders count as another
// process's for the test (heldByOther skips its own pid).
func othersHold(t *testing.T) {
	old := heldByOtherFn
	heldByOtherFn = func(path string) bool { // held at all: a try of a shared lock fails
		lk, err := lockFile(path, 0, true, os.O_RDONLY)
		if err == nil {
			lk.Unlock()
			return false
		}
		return true
	}
	t.Cleanup(func() { heldByOtherFn = old })
}

// A session's lock held by another process (`flock -x
// sessions/<id>.state sleep 600`) neither loses a call nor makes it wait
// the whole lock wait: each is recorded without the lock, readers see
// every one of them, the session is told once and status names the
// holder; once the holder ends, the next call catches the state up.
func TestSessionLockHeldLosesNothing(t *testing.T) {
	cfg := engine.DefaultConfig()
	h := Home{Dir: t.TempDir()}
	if err := h.Ensure(); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Record(testEvent("s", 0), &cfg); err != nil {
		t.Fatal(err)
	}
	release := holdSession(t, h, "s")
	for i := 1; i <= 5; i++ {
		r, err := h.RecordCall(testEvent("s", i), &cfg, nil)
		if err != nil || !r.Unlocked || r.Pending {
			t.Fatalf("call %d: %+v %v", i, r, err)
		}
		st, err := h.ReadState("s", nil)
		if err != nil || st.Events != i+1 {
			t.Fatalf("after call %d the state reads %d events, %v", i, st.Events, err)
		}
	}
	if n := len(journalIDs(t, h)); n != 6 {
		t.Fatalf("journal holds %d records, want 6", n)
	}
	if !h.Behind("s") {
		t.Fatal("no marker for the records made without the lock")
	}
	if !h.SessionNoticeDue("s") {
		t.Fatal("not told yet")
	}
	h.SessionNoticeGiven("s")
	if h.SessionNoticeDue("s") {
		t.Fatal("told twice")
	}
	rec, err := h.ReadRecording()
	if err != nil || len(rec.Held) != 1 || rec.Held[0].Session != "s" || !rec.Failing() {
		t.Fatalf("recording reads %+v, %v", rec, err)
	}
	if rec.Headline(func(time.Time) string { return "" }) == "" || rec.Fix() == "" {
		t.Fatalf("nothing said: %+v", rec)
	}
	// A rebuild meanwhile rebuilds the rest, and leaves this session to
	// its next locked call.
	h.LockWait = time.Millisecond
	if _, err := h.Rebuild("", &cfg); err != nil {
		t.Fatalf("a rebuild with a session's lock held: %v", err)
	}
	h.LockWait = 0
	// A session the holder does not hold records as ever.
	if r, err := h.RecordCall(testEvent("other", 0), &cfg, nil); err != nil || r.Unlocked {
		t.Fatalf("%+v %v", r, err)
	}
	release()
	if r, err := h.RecordCall(testEvent("s", 6), &cfg, nil); err != nil || r.Unlocked {
		t.Fatalf("%+v %v", r, err)
	}
	if h.Behind("s") {
		t.Fatal("the marker outlived the catch-up")
	}
	if rec, _ := h.ReadRecording(); len(rec.Held) != 0 {
		t.Fatalf("still held: %+v", rec.Held)
	}
	assertNoDrift(t, h, &cfg)
	// A later hold is told again.
	release = holdSession(t, h, "s")
	defer release()
	if r, err := h.RecordCall(testEvent("s", 7), &cfg, nil); err != nil || !r.Unlocked {
		t.Fatalf("%+v %v", r, err)
	}
	if !h.SessionNoticeDue("s") {
		t.Fatal("a later hold is not told")
	}
}

// Writers of one session that give up on its lock at once (a wait of a
// nanosecond) record without it while others hold it, so records made
// without the lock land before and after locked writers' positions, and
// some while the catch-up reads: once they are done, one more call leaves
// the state exactly the journal's replay, and every record is there once.
func TestUnlockedRecordsUnderContention(t *testing.T) {
	cfg := engine.DefaultConfig()
	h := Home{Dir: t.TempDir(), LockWait: time.Nanosecond}
	if err := h.Ensure(); err != nil {
		t.Fatal(err)
	}
	othersHold(t)
	const writers, each = 8, 40
	var (
		wg       sync.WaitGroup
		unlocked atomic.Int64
	)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				ev := testEvent("s", w*each+i)
				ev.ToolUseID = fmt.Sprintf("w%d-%d", w, i)
				r, err := h.RecordCall(ev, &cfg, nil)
				if err != nil {
					t.Error(err)
					return
				}
				if r.Unlocked {
					unlocked.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if unlocked.Load() == 0 {
		t.Fatal("no writer recorded without the lock: the test proves nothing")
	}
	if _, err := h.Record(testEvent("s", writers*each), &cfg); err != nil {
		t.Fatal(err)
	}
	ids := journalIDs(t, h)
	if len(ids) != writers*each+1 {
		t.Fatalf("journal holds %d records, want %d", len(ids), writers*each+1)
	}
	seen := map[string]bool{}
	for _, id := range ids[:len(ids)-1] {
		if seen[id] {
			t.Fatalf("record %q twice", id)
		}
		seen[id] = true
	}
	assertNoDrift(t, h, &cfg)
	t.Logf("%d of %d calls recorded without the lock", unlocked.Load(), writers*each)
}
