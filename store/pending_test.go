package store

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"cully/engine"
)

// journalIDs reads the journal files alone (not pending/) and returns the
// tool-use ids of its records in journal order.
func journalIDs(t *testing.T, h Home) []string {
	t.Helper()
	files, err := h.JournalFiles()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, f := range files {
		if _, _, err := ReadFile(f, 0, func(ev *engine.Event) error {
			ids = append(ids, ev.ToolUseID)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	return ids
}

// holdLock holds the journal lock as another process would (its own open
// file description), until release is called.
func holdLock(t *testing.T, h Home) (release func()) {
	t.Helper()
	lk, err := Acquire(h.JournalLock(), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	return func() { lk.Unlock() }
}

// Many writers of many sessions, while a lock holder takes the journal lock
// for longer than a writer waits, again and again, and readers read all
// along: every acknowledged record ends in the journal exactly once, each
// session's records in the order they were made, no reader ever sees a
// record twice, and every session's state is its records' replay.
func TestHostileLockHolderLosesNothing(t *testing.T) {
	cfg := engine.DefaultConfig()
	h := Home{Dir: t.TempDir(), LockWait: testLockWait, RotateBytes: 40 << 10}
	if err := h.Ensure(); err != nil {
		t.Fatal(err)
	}
	const sessions, calls = 8, 60
	stop := make(chan struct{})
	var bg sync.WaitGroup
	bg.Add(1)
	go func() { // the lock holder: past a writer's wait, then a gap
		defer bg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			release := holdLock(t, h)
			time.Sleep(time.Duration(20+rand.IntN(100)) * time.Millisecond)
			release()
			time.Sleep(time.Duration(rand.IntN(15)) * time.Millisecond)
		}
	}()
	var reads, dupReads atomic.Int64
	bg.Add(1)
	go func() { // a reader, all along
		defer bg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			seen := map[string]bool{}
			h.ReadAll(func(ev *engine.Event) error {
				if seen[ev.ToolUseID] {
					dupReads.Add(1)
				}
				seen[ev.ToolUseID] = true
				return nil
			})
			reads.Add(1)
		}
	}()
	var (
		mu      sync.Mutex
		acked   = map[string]bool{}
		pending atomic.Int64
		writers sync.WaitGroup
	)
	for s := range sessions {
		writers.Add(1)
		go func() {
			defer writers.Done()
			id := fmt.Sprintf("s%d", s)
			for i := range calls {
				ev := testEvent(id, i)
				ev.ToolUseID = fmt.Sprintf("%s-%03d", id, i)
				r, err := h.RecordCall(ev, &cfg, nil)
				if err != nil {
					t.Errorf("%s: %v", ev.ToolUseID, err)
					continue
				}
				if r.Pending {
					pending.Add(1)
				}
				mu.Lock()
				acked[ev.ToolUseID] = true
				mu.Unlock()
				time.Sleep(time.Duration(rand.IntN(3)) * time.Millisecond)
			}
		}()
	}
	writers.Wait()
	close(stop)
	bg.Wait()
	if pending.Load() == 0 {
		t.Fatal("no record went to pending/: the holder never outlasted a writer's wait")
	}
	if dupReads.Load() > 0 {
		t.Errorf("%d records read twice in one read (of %d reads)", dupReads.Load(), reads.Load())
	}
	// Everything is readable now, pending or not; then appends with the
	// lock free fold the rest into the journal, a fold's share (foldMax
	// segments) each: as many as the backlog needs, and no more.
	all := 0
	h.ReadAll(func(*engine.Event) error { all++; return nil })
	if all != len(acked) {
		t.Errorf("ReadAll sees %d records, %d were acknowledged", all, len(acked))
	}
	backlog := 0
	if ents, err := os.ReadDir(h.PendingDir()); err == nil {
		for _, e := range ents {
			if isSegment(e.Name()) {
				backlog++
			}
		}
	}
	appends := 0
	for appends == 0 || appends <= backlog/foldMax {
		id := fmt.Sprintf("last-%03d", appends)
		if _, err := h.Record(&engine.Event{V: 1, Time: time.Unix(5000, 0).UTC(), Session: "last", Kind: engine.KindPostTool, ToolUseID: id}, &cfg); err != nil {
			t.Fatal(err)
		}
		appends++
	}
	if _, err := os.Lstat(h.PendingDir()); err == nil {
		ents, _ := os.ReadDir(h.PendingDir())
		t.Errorf("pending/ still holds %d entries after %d free appends (a backlog of %d segments, %d a fold)", len(ents), appends, backlog, foldMax)
	}
	count := map[string]int{}
	last := map[string]string{}
	for _, id := range journalIDs(t, h) {
		count[id]++
		s, _, _ := strings.Cut(id, "-")
		if id <= last[s] {
			t.Errorf("%s after %s: a session's records out of order", id, last[s])
		}
		last[s] = id
	}
	for id := range acked {
		if count[id] != 1 {
			t.Errorf("acknowledged %s is in the journal %d times", id, count[id])
		}
	}
	if len(count) != len(acked)+appends {
		t.Errorf("the journal holds %d ids, %d acknowledged (+%d)", len(count), len(acked), appends)
	}
	assertNoDrift(t, h, &cfg)
	t.Logf("%d records, %d through pending/, %d reads", len(acked), pending.Load(), reads.Load())
}

// A fold cut short (the writer killed after renaming the segments for the
// fold, before or in the middle of its write) loses nothing and doubles
// nothing: the next append keeps what reached the journal and writes the
// rest.
func TestInterruptedFoldRecovered(t *testing.T) {
	for _, cut := range []string{"before-write", "mid-record", "after-first", "all-written"} {
		t.Run(cut, func(t *testing.T) {
			h := Home{Dir: t.TempDir(), LockWait: testLockWait}
			if err := h.Ensure(); err != nil {
				t.Fatal(err)
			}
			ev := func(id string) []byte {
				e := testEvent("s", 0)
				e.ToolUseID = id
				return AppendEvent(nil, e)
			}
			if err := h.Append(ev("a")); err != nil {
				t.Fatal(err)
			}
			release := holdLock(t, h)
			for _, id := range []string{"b", "c"} {
				if err := h.Append(ev(id)); err != nil {
					t.Fatal(err)
				}
			}
			release()
			// The writer that took the lock renames the segments, then dies.
			f, err := openFile(h.Journal(), os.O_RDWR|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			segs, _ := h.takePending(f)
			if len(segs) != 2 {
				t.Fatalf("%d segments pending, want 2", len(segs))
			}
			h.markFolds(segs, f.size)
			var data []byte
			for _, s := range segs {
				data = append(data, s.data...)
			}
			switch cut {
			case "mid-record":
				data = data[:len(segs[0].data)/2]
			case "after-first":
				data = data[:len(segs[0].data)+5]
			case "before-write":
				data = nil
			}
			if _, err := f.Write(data); err != nil {
				t.Fatal(err)
			}
			f.Close()
			if err := h.Append(ev("d")); err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(journalIDs(t, h), " "); got != "a b c d" {
				t.Errorf("journal holds %q, want a b c d", got)
			}
			if _, err := os.Lstat(h.PendingDir()); err == nil {
				t.Error("pending/ left behind")
			}
		})
	}
}

// A segment's temporary file (a writer killed before its rename) is never
// read: the record was never acknowledged.
func TestUnrenamedSegmentIgnored(t *testing.T) {
	h := Home{Dir: t.TempDir(), LockWait: testLockWait}
	if err := h.Ensure(); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(h.PendingDir(), 0o700)
	e := testEvent("s", 0)
	rec := AppendEvent(nil, e)
	name := fmt.Sprintf("%020d-1-1+s.jsonl.tmp", time.Now().UnixNano())
	if err := os.WriteFile(filepath.Join(h.PendingDir(), name), rec[:len(rec)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	n := 0
	st, err := h.ReadAll(func(*engine.Event) error { n++; return nil })
	if err != nil || n != 0 || st.Corrupt != 0 {
		t.Fatalf("read %d records, %+v, %v", n, st, err)
	}
	if err := h.Append(rec); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(h.Journal())
	if bytes.Count(b, []byte("\n")) != 1 {
		t.Errorf("journal: %q", b)
	}
}

// While the lock is held the hook's record is pending and says so; the
// wait it pays is the bounded one, and once a segment has waited longer
// than that, a try only.
func TestRecordPendingWhileLocked(t *testing.T) {
	othersHold(t) // holdLock's holder is this process, which plays another
	cfg := engine.DefaultConfig()
	h := Home{Dir: t.TempDir(), LockWait: testLockWait, Durable: true}
	if err := h.Ensure(); err != nil {
		t.Fatal(err)
	}
	release := holdLock(t, h)
	r, err := h.RecordCall(testEvent("s", 0), &cfg, nil)
	if err != nil || !r.Pending {
		t.Fatalf("%+v %v", r, err)
	}
	if !h.NoticeDue("s") {
		t.Fatal("no notice given yet")
	}
	h.NoticeGiven("s")
	if h.NoticeDue("s") {
		t.Fatal("the notice is given once")
	}
	p := h.PendingRecords()
	if p.Segments != 1 || p.Oldest.IsZero() {
		t.Fatalf("%+v", p)
	}
	rec, err := h.ReadRecording()
	if err != nil || !rec.Blocked() || !rec.Failing() {
		t.Fatalf("recording reads %+v, %v", rec, err)
	}
	st, err := h.ReadState("s", nil)
	if err != nil || st.Events != 1 {
		t.Fatalf("state %+v, %v", st, err)
	}
	release()
	if _, err := h.Record(testEvent("s", 1), &cfg); err != nil {
		t.Fatal(err)
	}
	if rec, _ := h.ReadRecording(); rec.Blocked() {
		t.Errorf("still blocked: %+v", rec)
	}
	if h.NoticeDue("s") {
		t.Error("told of a lock nobody holds")
	}
	release = holdLock(t, h)
	defer release()
	if r, err := h.RecordCall(testEvent("s", 2), &cfg, nil); err != nil || !r.Pending {
		t.Fatalf("%+v %v", r, err)
	}
	if !h.NoticeDue("s") {
		t.Error("a later block is told again")
	}
	release()
	if _, err := h.Record(testEvent("s", 3), &cfg); err != nil {
		t.Fatal(err)
	}
	assertNoDrift(t, h, &cfg)
}

// BenchmarkRecordLockHeld is one record's time inside the process with the
// journal lock free, held by another for a whole spell (records already
// waiting: the lock is only tried), and at the first call of a spell (the
// bounded wait, JournalWait, then the segment).
func BenchmarkRecordLockHeld(b *testing.B) {
	cfg := engine.DefaultConfig()
	for _, mode := range []string{"free", "held-spell", "held-first"} {
		b.Run(mode, func(b *testing.B) {
			h := Home{Dir: b.TempDir(), LockWait: testLockWait}
			if err := h.Ensure(); err != nil {
				b.Fatal(err)
			}
			if mode != "free" {
				lk, err := Acquire(h.JournalLock(), time.Minute)
				if err != nil {
					b.Fatal(err)
				}
				defer lk.Unlock()
			}
			if mode == "held-spell" { // a segment older than the wait
				h.RecordCall(testEvent("s", 0), &cfg, nil)
				time.Sleep(JournalWait)
			}
			i := 0
			for b.Loop() {
				if mode == "held-first" {
					b.StopTimer()
					os.RemoveAll(h.PendingDir())
					b.StartTimer()
				}
				i++
				r, err := h.RecordCall(testEvent("s", i), &cfg, nil)
				if err != nil || r.Pending != (mode != "free") {
					b.Fatalf("%+v %v", r, err)
				}
			}
		})
	}
}
