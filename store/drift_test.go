package store

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"cully/engine"
)

// markSession leaves what a hook killed mid-record leaves in the session's
// state file: the mark of a record in flight.
func markSession(t *testing.T, h Home, id string) {
	t.Helper()
	h.Ensure()
	s, err := openState(h.StatePath(id), testLockWait, true)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.setMark(true); err != nil {
		t.Fatal(err)
	}
}

// markOf is the mark byte of a session's state file.
func markOf(h Home, id string) string {
	b, _ := os.ReadFile(h.StatePath(id))
	if len(b) <= stateMarkAt {
		return ""
	}
	return string(b[stateMarkAt])
}

// dieAfterAppend is a hook killed between its journal append and its state
// save: the record is in the journal, the mark is left, the new body is
// torn where the save was writing it, no header points at it.
func dieAfterAppend(t *testing.T, h Home, ev *engine.Event, cfg *engine.Config) {
	t.Helper()
	st, err := h.ReadState(ev.Session, nil)
	if err != nil {
		st = engine.NewState(ev.Session)
	}
	ev.Signals = engine.Apply(st, ev, cfg)
	if err := h.Append(AppendEvent(nil, ev)); err != nil {
		t.Fatal(err)
	}
	markSession(t, h, ev.Session)
	s, err := openState(h.StatePath(ev.Session), testLockWait, true)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	torn := []byte(fmt.Sprintf(`{"v":%d,"sess`, engine.StateVersion))
	off, _, _ := s.place(4096)
	if _, err := s.f.WriteAt(torn, int64(off)); err != nil {
		t.Fatal(err)
	}
}

// A hook killed between its journal append and its state save leaves the
// state behind the journal; the session's next call catches it up, even
// across a rotation and with other sessions' records in between.
func TestStateBehindJournalIsCaughtUp(t *testing.T) {
	cfg := engine.DefaultConfig()
	for _, rotate := range []int64{0, 1500} {
		t.Run(fmt.Sprint("rotate ", rotate), func(t *testing.T) {
			h := Home{Dir: t.TempDir(), RotateBytes: rotate, LockWait: testLockWait}
			i := 0
			rec := func(s string) {
				i++
				if _, err := h.Record(testEvent(s, i), &cfg); err != nil {
					t.Fatal(err)
				}
			}
			for range 5 {
				rec("s")
				rec("other")
			}
			i++
			dieAfterAppend(t, h, testEvent("s", i), &cfg)
			for range 10 {
				rec("other")
			}
			i++
			dieAfterAppend(t, h, testEvent("s", i), &cfg) // twice in a row
			rec("s")
			assertNoDrift(t, h, &cfg)
			if m := markOf(h, "s"); m != "." {
				t.Errorf("the mark is cleared once the state has caught up: %q", m)
			}
			if rotate > 0 {
				if files, _ := h.JournalFiles(); len(files) < 3 {
					t.Errorf("the journal should have rotated: %v", files)
				}
			}
		})
	}
	t.Run("first call died", func(t *testing.T) {
		h := Home{Dir: t.TempDir(), LockWait: testLockWait}
		h.Ensure()
		dieAfterAppend(t, h, testEvent("new", 1), &cfg)
		if _, err := h.Record(testEvent("new", 2), &cfg); err != nil {
			t.Fatal(err)
		}
		assertNoDrift(t, h, &cfg)
	})
	t.Run("died before appending", func(t *testing.T) {
		h := Home{Dir: t.TempDir(), LockWait: testLockWait}
		h.Record(testEvent("s", 1), &cfg)
		markSession(t, h, "s")
		h.Record(testEvent("s", 2), &cfg)
		assertNoDrift(t, h, &cfg)
	})
	t.Run("journal replaced", func(t *testing.T) {
		h := Home{Dir: t.TempDir(), LockWait: testLockWait}
		h.Record(testEvent("s", 1), &cfg)
		os.Remove(h.Journal())
		h.Record(testEvent("x", 2), &cfg)
		markSession(t, h, "s")
		h.Record(testEvent("s", 3), &cfg)
		assertNoDrift(t, h, &cfg) // the state's position is gone: the session is replayed from what is left
		if b, _ := h.ReadErrorsLog(); !strings.Contains(string(b), "catch up") {
			t.Errorf("a lost position is logged: %s", b)
		}
	})
}

// A state written in place by an older cully, or torn by anything, is
// rebuilt and never removed before its replacement is in place.
func TestCorruptStateRebuiltInPlace(t *testing.T) {
	cfg := engine.DefaultConfig()
	h := recorded(t, &cfg, 3)
	os.WriteFile(h.StatePath("s"), []byte(fmt.Sprintf(`{"v":%d,"session":"s","started":"bad`, engine.StateVersion)), 0o600)
	h.Record(testEvent("s", 3), &cfg)
	assertNoDrift(t, h, &cfg)
	m, _ := filepath.Glob(h.StatePath("s") + ".corrupt-*")
	if len(m) != 1 {
		t.Errorf("the corrupt state is set aside: %v", m)
	}
}

// A torn last line is closed so that it never becomes a record, even when
// it was cut just before its newline: every reader, whenever it reads,
// agrees which lines are records.
func TestTornLineNeverBecomesARecord(t *testing.T) {
	h := Home{Dir: t.TempDir(), LockWait: testLockWait}
	h.Ensure()
	whole := AppendEvent(nil, testEvent("s", 1)) // a whole record, missing only its newline
	os.WriteFile(h.Journal(), whole, 0o600)
	h.Append(AppendEvent(nil, testEvent("s", 2)))
	st, _ := h.ReadAll(func(*engine.Event) error { return nil })
	if st.Lines != 1 || st.Corrupt != 1 {
		t.Fatalf("the torn line must read as corrupt: %+v", st)
	}
}

// Rebuild run while hooks record loses nothing: afterwards every state is
// the journal's replay.
func TestRebuildDuringLiveRecords(t *testing.T) {
	cfg := engine.DefaultConfig()
	h := Home{Dir: t.TempDir(), RotateBytes: 16 << 10}
	var wg sync.WaitGroup
	var n atomic.Int64
	stop := make(chan struct{})
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 150; i++ {
				if _, err := h.Record(testEvent(fmt.Sprint("s", w%3), int(n.Add(1))), &cfg); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	rebuilds := 0
	var rb sync.WaitGroup
	rb.Add(1)
	go func() {
		defer rb.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := h.Rebuild("", &cfg); err != nil {
				t.Error(err)
			}
			rebuilds++
		}
	}()
	wg.Wait()
	close(stop)
	rb.Wait()
	if rebuilds == 0 {
		t.Fatal("no rebuild ran")
	}
	assertNoDrift(t, h, &cfg)
}

// A hook killed anywhere in the save of its state leaves a whole state in
// the file; the next call finishes the job.
func TestKilledMidSave(t *testing.T) {
	cfg := engine.DefaultConfig()
	for _, stage := range []string{"body written", "header written"} {
		t.Run(stage, func(t *testing.T) {
			h := recorded(t, &cfg, 3)
			// That hook: mark set, record appended, then killed in the save.
			s, err := openState(h.StatePath("s"), testLockWait, true)
			if err != nil {
				t.Fatal(err)
			}
			st, err := readLocked(s, "s")
			if err != nil {
				t.Fatal(err)
			}
			ev := testEvent("s", 3)
			ev.Signals = engine.Apply(st, ev, &cfg)
			rec := AppendEvent(nil, ev)
			size, _ := h.JournalSize()
			s.setMark(true)
			h.Append(rec)
			body := appendStateFile(nil, st, &journalPos{At: size, N: int64(len(rec)) + 1, Sum: lineSum(rec, []byte{'\n'})})
			if stage == "body written" {
				off, _, _ := s.place(len(body))
				s.f.WriteAt(body, int64(off))
			} else if err := s.save(body); err != nil {
				t.Fatal(err)
			}
			s.Close()
			// A reader meanwhile sees the dead hook's record too (caught up
			// in memory), and writes nothing: the mark stays for the next
			// call to catch up and clear.
			before, _ := os.ReadFile(h.StatePath("s"))
			if got, err := h.ReadState("s", &cfg); err != nil || got.Events != 4 {
				t.Fatalf("a whole state with every record is there all along: %v %v", got, err)
			}
			if after, _ := os.ReadFile(h.StatePath("s")); string(after) != string(before) {
				t.Error("a reader wrote to the state file")
			}
			h.Record(testEvent("s", 4), &cfg)
			h.Record(testEvent("s", 5), &cfg)
			assertNoDrift(t, h, &cfg)
			if m := markOf(h, "s"); m != "." {
				t.Errorf("the mark is cleared: %q", m)
			}
			if b, _ := h.ReadErrorsLog(); len(b) > 0 {
				t.Errorf("finishing a save is not an error: %s", b)
			}
		})
	}
}

// A power cut can keep a state's new header but not its body: the state
// before it is read and caught up, and nothing is lost.
func TestNewestBodyLost(t *testing.T) {
	cfg := engine.DefaultConfig()
	h := recorded(t, &cfg, 6)
	s, err := openState(h.StatePath("s"), testLockWait, true)
	if err != nil {
		t.Fatal(err)
	}
	cur := s.hdr[s.newest]
	s.f.WriteAt(make([]byte, cur.n), int64(cur.off)) // the new body never reached the disk
	s.setMark(true)                                  // nor the mark's clearing
	s.Close()
	if _, err := h.Record(testEvent("s", 6), &cfg); err != nil {
		t.Fatal(err)
	}
	assertNoDrift(t, h, &cfg)
	if st, _ := h.ReadState("s", nil); st.Events != 7 {
		t.Errorf("every call is in the state: %d events", st.Events)
	}
	if b, _ := h.ReadErrorsLog(); !strings.Contains(string(b), "read the state before it") {
		t.Errorf("the fallback is logged: %s", b)
	}
	// Both slots hold a good state again: losing the newest once more
	// loses nothing either.
	s, err = openState(h.StatePath("s"), testLockWait, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, slot := range s.bodies() {
		b, err := s.body(slot)
		if err == nil {
			_, _, err = decodeChecked(b, "s", s.f.path)
		}
		if slot < 0 || err != nil {
			t.Errorf("slot %d after the fallback: %v", slot, err)
		}
	}
	s.Close()
}

// Bodies move up while a state grows and come back to the start once they
// fit before the current one: the file stays within a few bodies' size.
func TestStateFileStaysSmall(t *testing.T) {
	cfg := engine.DefaultConfig()
	h := Home{Dir: t.TempDir(), LockWait: testLockWait}
	var biggest int64
	for i := range 300 {
		ev := testEvent("s", i)
		ev.Target = fmt.Sprintf("file%03d.go", i) // the state grows with every file read
		if _, err := h.Record(ev, &cfg); err != nil {
			t.Fatal(err)
		}
		s, err := openState(h.StatePath("s"), testLockWait, false)
		if err != nil {
			t.Fatal(err)
		}
		n := int64(s.hdr[s.newest].n)
		biggest = max(biggest, n)
		if s.size > 3*biggest+stateBodyAt+128 {
			t.Fatalf("call %d: a %d-byte file for bodies of at most %d bytes", i, s.size, biggest)
		}
		s.Close()
	}
	assertNoDrift(t, h, &cfg)
}

// A session recorded by the layout before this one (a .json state, a .lock
// with the mark) is read, caught up and moved to the new layout: nothing
// recorded by the old hook is lost, and the old files are removed.
func TestLegacyStateMigrates(t *testing.T) {
	cfg := engine.DefaultConfig()
	h := Home{Dir: t.TempDir(), LockWait: testLockWait}
	h.Ensure()
	st := engine.NewState("s")
	var pos *journalPos
	for i := range 3 {
		ev := testEvent("s", i)
		ev.Signals = engine.Apply(st, ev, &cfg)
		rec := AppendEvent(nil, ev)
		size, _ := h.JournalSize()
		h.Append(rec)
		pos = &journalPos{At: size, N: int64(len(rec)) + 1, Sum: lineSum(rec, []byte{'\n'})}
	}
	base := filepath.Join(h.SessionsDir(), "s")
	os.WriteFile(base+".json", appendJournalPos(AppendState(nil, st), pos), 0o600) // that layout's bodies were all JSON
	os.WriteFile(base+".json.spare", []byte("{}"), 0o600)
	os.WriteFile(base+".lock", []byte("."), 0o600)
	// The old hook recorded one more call after that state was written.
	ev := testEvent("s", 3)
	engine.Apply(engine.NewState("x"), ev, &cfg)
	h.Append(AppendEvent(nil, ev))

	if got, err := h.ReadState("s", nil); err != nil || got.Events != 3 {
		t.Fatalf("the old layout is readable: %v %v", got, err)
	}
	if ss, _ := h.Sessions(); len(ss) != 1 || ss[0].ID != "s" {
		t.Fatalf("the old layout's session is listed: %v", ss)
	}
	if _, err := h.Record(testEvent("s", 4), &cfg); err != nil {
		t.Fatal(err)
	}
	assertNoDrift(t, h, &cfg)
	if got, _ := h.ReadState("s", nil); got.Events != 5 {
		t.Errorf("the old hook's last call is caught up: %d events", got.Events)
	}
	for _, ext := range []string{".json", ".json.spare", ".lock"} {
		if _, err := os.Lstat(base + ext); err == nil {
			t.Errorf("%s is removed", ext)
		}
	}
	if ss, _ := h.Sessions(); len(ss) != 1 {
		t.Errorf("one session: %v", ss)
	}
}

// A session idle while others wrote more than a hook should read is not
// caught up by its hook: the state stays as it was (the dead hook's record
// behind), the error log says to rebuild, and a rebuild folds it in.
func TestCatchUpIsBounded(t *testing.T) {
	defer func(n int64) { rebuildLimit = n }(rebuildLimit)
	rebuildLimit = 4 << 10
	cfg := engine.DefaultConfig()
	h := Home{Dir: t.TempDir(), LockWait: testLockWait}
	h.Record(testEvent("s", 0), &cfg)
	dieAfterAppend(t, h, testEvent("s", 1), &cfg)
	for i := range 40 {
		h.Record(testEvent("busy", i), &cfg)
	}
	if _, err := h.Record(testEvent("s", 2), &cfg); err != nil {
		t.Fatal(err)
	}
	if st, _ := h.ReadState("s", nil); st.Events != 2 {
		t.Errorf("the state stays as it was, plus its own call: %d events", st.Events)
	}
	if b, _ := h.ReadErrorsLog(); !strings.Contains(string(b), "cully status --rebuild") {
		t.Errorf("errors.log: %s", b)
	}
	if _, err := h.Rebuild("", &cfg); err != nil {
		t.Fatal(err)
	}
	assertNoDrift(t, h, &cfg)

	// A state from before states carried a position is kept as it is too.
	st, _ := h.ReadState("s", nil)
	if err := h.SaveState(st); err != nil {
		t.Fatal(err)
	}
	dieAfterAppend(t, h, testEvent("s", 3), &cfg)
	h.Record(testEvent("s", 4), &cfg)
	if got, _ := h.ReadState("s", nil); got.Events != st.Events+1 {
		t.Errorf("a state without a position, past the limit: %d events, want %d", got.Events, st.Events+1)
	}
}

// recorded is a state dir where session "s" has recorded n calls.
func recorded(t *testing.T, cfg *engine.Config, n int) Home {
	t.Helper()
	h := Home{Dir: t.TempDir(), LockWait: testLockWait}
	for i := range n {
		if _, err := h.Record(testEvent("s", i), cfg); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

// testLockWait is the lock wait of the store's tests: they test what many
// writers do, not deadlines, and a loaded 2-core machine under the race
// detector can queue a writer past the 2 s default.
const testLockWait = 60 * 1e9 // ns

// A hook that fell back past a damaged newest body and was killed while
// writing the new one still leaves a state to read: the new body goes
// clear of the one good body and into the damaged one's slot, never over
// the good one. (Found by TestKilledHooksNeverLeaveStateBehindTheJournal:
// with the damaged body at the front of the file, the new one used to be
// placed after it, on the good one, under the good one's header; and the
// half-written body over the damaged one's tail, two halves of the same
// shape, decoded as a state: the body's sum now covers all of it.)
func TestFallbackSaveKilledLeavesAState(t *testing.T) {
	cfg := engine.DefaultConfig()
	for front := range 2 { // the damaged newest body at the file's front, then behind the good one
		h := Home{Dir: t.TempDir(), LockWait: testLockWait}
		n := 0
		for i := 0; ; i++ {
			if _, err := h.Record(testEvent("s", i), &cfg); err != nil {
				t.Fatal(err)
			}
			n++
			s, err := openState(h.StatePath("s"), testLockWait, false)
			if err != nil {
				t.Fatal(err)
			}
			atFront := s.hdr[s.newest].off == stateBodyAt
			s.Close()
			if i >= 3 && atFront == (front == 0) {
				break
			}
		}
		s, err := openState(h.StatePath("s"), testLockWait, true)
		if err != nil {
			t.Fatal(err)
		}
		cur := s.hdr[s.newest]
		s.f.WriteAt([]byte("\x00garbage"), int64(cur.off+cur.n/2)) // damage the newest body
		st, pos, _, older, err := s.state("s")
		if err != nil || older == nil {
			t.Fatalf("the body before the damaged one is read: %v %v", older, err)
		}
		s.fellBack = true // as loadForUpdate sets it
		s.setMark(true)   // as every update does before its journal append
		body := appendStateFile(nil, st, pos)
		body = append(body, make([]byte, 512)...) // a body a little larger than the last, as a growing session writes
		off, slot, _ := s.place(len(body))
		if slot != s.newest {
			t.Errorf("front %d: the new body goes into the damaged body's slot %d, not %d", front, s.newest, slot)
		}
		s.f.WriteAt(body[:len(body)/2], int64(off)) // killed mid-write: half the body, no header
		s.Close()
		if got, err := h.ReadState("s", nil); err != nil || got.Events != n {
			t.Errorf("front %d: a state with all %d calls is still there to read: %v", front, n, err)
		}
	}
}

// Both copies of a state damaged (no crash makes this; damage does): a
// reader gets the session replayed from the journal, with every call.
func TestBothStatesDamagedReadFromTheJournal(t *testing.T) {
	cfg := engine.DefaultConfig()
	h := recorded(t, &cfg, 6)
	s, err := openState(h.StatePath("s"), testLockWait, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, hd := range s.hdr {
		if hd.n > 0 {
			s.f.WriteAt([]byte("\x00garbage"), int64(hd.off+hd.n/2))
		}
	}
	s.Close()
	st, err := h.ReadState("s", nil)
	if err != nil || st.Events != 6 {
		t.Fatalf("read %v, %v: want every call, from the journal", st, err)
	}
}
