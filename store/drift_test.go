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

// markSession leaves what a hook killed mid-record leaves in the session
// lock file: the mark of a record in flight.
func markSession(t *testing.T, h Home, id string) {
	t.Helper()
	if err := os.WriteFile(h.StateLock(id), []byte("!"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// dieAfterAppend is a hook killed between its journal append and its state
// save: the record is in the journal, the mark is left, the spare is torn,
// the state is not written.
func dieAfterAppend(t *testing.T, h Home, ev *engine.Event, cfg *engine.Config) {
	t.Helper()
	st, err := h.LoadState(ev.Session)
	if err != nil {
		st = engine.NewState(ev.Session)
	}
	ev.Signals = engine.Apply(st, ev, cfg)
	if err := h.Append(AppendEvent(nil, ev)); err != nil {
		t.Fatal(err)
	}
	markSession(t, h, ev.Session)
	if err := os.WriteFile(h.stateSpare(ev.Session), []byte(fmt.Sprintf(`{"v":%d,"sess`, engine.StateVersion)), 0o600); err != nil {
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
			if b, _ := os.ReadFile(h.StateLock("s")); string(b) != "." {
				t.Errorf("the mark is cleared once the state has caught up: %q", b)
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
	h := Home{Dir: t.TempDir(), LockWait: testLockWait}
	for i := range 3 {
		h.Record(testEvent("s", i), &cfg)
	}
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

// A hook killed anywhere in the swap of its spare into place leaves a
// whole state at the state's path; the next call finishes the job.
func TestKilledMidSwap(t *testing.T) {
	cfg := engine.DefaultConfig()
	for _, stage := range []string{"linked", "renamed"} {
		t.Run(stage, func(t *testing.T) {
			h := Home{Dir: t.TempDir(), LockWait: testLockWait}
			for i := range 3 {
				h.Record(testEvent("s", i), &cfg)
			}
			// That hook: its record appended, its spare written whole.
			st, _, _, err := h.loadState("s")
			if err != nil {
				t.Fatal(err)
			}
			ev := testEvent("s", 3)
			ev.Signals = engine.Apply(st, ev, &cfg)
			rec := AppendEvent(nil, ev)
			size, _ := h.JournalSize()
			markSession(t, h, "s")
			h.Append(rec)
			os.WriteFile(h.stateSpare("s"), appendStateFile(nil, st, &journalPos{At: size, N: int64(len(rec)) + 1, Sum: lineSum(rec, []byte{'\n'})}), 0o600)
			os.Link(h.StatePath("s"), h.stateOld("s"))
			if stage == "renamed" {
				os.Rename(h.stateSpare("s"), h.StatePath("s"))
			}
			if got, err := h.ReadState("s"); err != nil || got.Events < 3 {
				t.Fatalf("a whole state is there all along: %v %v", got, err)
			}
			h.Record(testEvent("s", 4), &cfg)
			h.Record(testEvent("s", 5), &cfg)
			assertNoDrift(t, h, &cfg)
			if _, err := os.Lstat(h.stateOld("s")); err == nil {
				t.Error("the swap's second name is gone")
			}
			if b, _ := h.ReadErrorsLog(); len(b) > 0 {
				t.Errorf("finishing a swap is not an error: %s", b)
			}
		})
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
	if st, _ := h.LoadState("s"); st.Events != 2 {
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
	st, _ := h.LoadState("s")
	if err := h.SaveState(st); err != nil {
		t.Fatal(err)
	}
	dieAfterAppend(t, h, testEvent("s", 3), &cfg)
	h.Record(testEvent("s", 4), &cfg)
	if got, _ := h.LoadState("s"); got.Events != st.Events+1 {
		t.Errorf("a state without a position, past the limit: %d events, want %d", got.Events, st.Events+1)
	}
}

// Where names cannot be exchanged in one rename, the state is swapped in
// with links and renames: the same guarantees hold.
func TestSwapWithLinksAndRenames(t *testing.T) {
	noExchange = true
	defer func() { noExchange = false }()
	t.Run("behind", TestStateBehindJournalIsCaughtUp)
	t.Run("mid-swap", TestKilledMidSwap)
	t.Run("rebuild", TestRebuildDuringLiveRecords)
	t.Run("corrupt", TestCorruptStateRebuiltInPlace)
}

// testLockWait is the lock wait of the store's tests: they test what many
// writers do, not deadlines, and a loaded 2-core machine under the race
// detector can queue a writer past the 2 s default.
const testLockWait = 60 * 1e9 // ns
