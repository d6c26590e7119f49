package store

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"cully/engine"
)

func rec(session string, i int) []byte {
	ev := engine.Event{V: 1, Time: time.Unix(int64(i), 0).UTC(), Agent: "claude", Session: session, Kind: engine.KindOther, Hook: fmt.Sprint("n", i)}
	b, _ := json.Marshal(ev)
	return b
}

func TestJournalTornAndCorruptLines(t *testing.T) {
	h := Home{Dir: t.TempDir(), LockWait: testLockWait}
	if err := h.Ensure(); err != nil {
		t.Fatal(err)
	}
	var body strings.Builder
	for i := 0; i < 5; i++ {
		body.Write(rec("s", i))
		body.WriteByte('\n')
	}
	body.WriteString("garbage\n{\"v\":99,\"kind\":\"other\"}\n{not json}\n\n")
	body.Write(rec("s", 5)[:20]) // torn last line
	os.WriteFile(h.Journal(), []byte(body.String()), 0o600)

	st, err := h.ReadAll(func(*engine.Event) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if st.Lines != 5 || st.Corrupt != 3 || st.Torn != 1 {
		t.Fatalf("stats %+v", st)
	}
	// The next append closes the torn line instead of gluing onto it.
	if err := h.Append(rec("s", 6)); err != nil {
		t.Fatal(err)
	}
	st, _ = h.ReadAll(func(*engine.Event) error { return nil })
	if st.Lines != 6 || st.Corrupt != 4 || st.Torn != 0 {
		t.Fatalf("after append: %+v", st)
	}
}

func TestJournalRotationLosesNothing(t *testing.T) {
	h := Home{Dir: t.TempDir(), RotateBytes: 2000}
	h.Ensure()
	for i := 0; i < 100; i++ {
		if err := h.Append(rec("s", i)); err != nil {
			t.Fatal(err)
		}
	}
	files, _ := h.JournalFiles()
	if len(files) < 5 {
		t.Fatalf("expected rotation, got %d files", len(files))
	}
	seen := 0
	st, err := h.ReadAll(func(ev *engine.Event) error {
		if ev.Hook != fmt.Sprint("n", seen) {
			return fmt.Errorf("record %d out of order: %s", seen, ev.Hook)
		}
		seen++
		return nil
	})
	if err != nil || seen != 100 || st.Corrupt != 0 {
		t.Fatalf("seen %d, stats %+v, err %v", seen, st, err)
	}
	for _, f := range files {
		fi, _ := os.Stat(f)
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v", f, fi.Mode())
		}
	}
}

func TestJournalConcurrentAppends(t *testing.T) {
	h := Home{Dir: t.TempDir(), RotateBytes: 64 << 10}
	h.Ensure()
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				if err := h.Append(rec(fmt.Sprint("w", w), i)); err != nil {
					t.Error(err)
				}
			}
		}(w)
	}
	wg.Wait()
	st, _ := h.ReadAll(func(*engine.Event) error { return nil })
	if st.Lines != 1600 || st.Corrupt != 0 || st.Torn != 0 {
		t.Fatalf("stats %+v", st)
	}
}

func TestSafeName(t *testing.T) {
	for _, id := range []string{"../../x", "..", ".", "/etc/passwd", "a/b", "x\x00y", strings.Repeat("a", 500), "", "é"} {
		n := SafeName(id)
		if strings.ContainsAny(n, "/\\\x00") || n == "." || n == ".." || strings.HasPrefix(n, ".") || len(n) > maxSafeName+8 {
			t.Errorf("SafeName(%q) = %q", id, n)
		}
	}
	if SafeName("0e9b095a-15ce-4954-9bab-4ee72ac1d24e") != "0e9b095a-15ce-4954-9bab-4ee72ac1d24e" {
		t.Error("a UUID should pass unchanged")
	}
	if SafeName("a/b") == SafeName("a_b") || SafeName("../x") == SafeName("..x") {
		t.Error("distinct ids must not collide")
	}
	dir := t.TempDir()
	h := Home{Dir: filepath.Join(dir, "home")}
	if got := h.StatePath("../../escape"); !strings.HasPrefix(got, h.SessionsDir()+"/") {
		t.Errorf("state path escapes: %s", got)
	}
}

func TestRecordAndRecoverCorruptState(t *testing.T) {
	h := Home{Dir: t.TempDir(), LockWait: testLockWait}
	cfg := engine.DefaultConfig()
	for i := 0; i < 3; i++ {
		ev := &engine.Event{V: 1, Time: time.Unix(int64(100+i), 0), Session: "s", Kind: engine.KindPostTool, Tool: "Read", Class: engine.ClassRead, Outcome: engine.OutcomeOK}
		if _, err := h.Record(ev, &cfg); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(h.StatePath("s"), []byte("{torn"), 0o600)
	ev := &engine.Event{V: 1, Time: time.Unix(200, 0), Session: "s", Kind: engine.KindPostTool, Tool: "Read", Class: engine.ClassRead, Outcome: engine.OutcomeOK}
	if _, err := h.Record(ev, &cfg); err != nil {
		t.Fatal(err)
	}
	st, err := h.ReadState("s", nil)
	if err != nil || st.Counts.ToolCalls != 4 {
		t.Fatalf("recovered state: %v %+v", err, st)
	}
	m, _ := filepath.Glob(h.StatePath("s") + ".corrupt-*")
	if len(m) != 1 {
		t.Errorf("the corrupt state should be set aside, found %v", m)
	}
	if b, _ := os.ReadFile(h.ErrorsLog()); !strings.Contains(string(b), "load state") {
		t.Errorf("errors.log: %s", b)
	}
}

func TestAcquireTimesOutAndReleases(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.lock")
	held, err := Acquire(p, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Acquire(p, 50*time.Millisecond); err == nil {
		t.Fatal("second lock should time out")
	}
	held.Unlock()
	// The abandoned waiter must not keep the lock once it gets it.
	deadline := time.Now().Add(2 * time.Second)
	for {
		l, err := Acquire(p, 100*time.Millisecond)
		if err == nil {
			l.Unlock()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("lock never became free: an abandoned waiter kept it")
		}
	}
}

// RecordWith hands its step the session's state as the last call left it,
// under the lock, before the rules: what the step sets on the event is in
// the journal and in the saved state, and a rebuild from the journal gives
// the same state.
func TestRecordWithCompletesFromTheState(t *testing.T) {
	h := Home{Dir: t.TempDir(), LockWait: testLockWait}
	cfg := engine.DefaultConfig()
	var seen []int64
	step := func(ev *engine.Event, st *engine.State) {
		var off int64
		if st.Transcript != nil {
			off = st.Transcript.Off
		}
		seen = append(seen, off)
		ev.Transcript = &engine.TranscriptPos{File: "f", Off: off + 100}
		zero := 0
		ev.Exit = &zero
	}
	for i := range 3 {
		if _, err := h.RecordWith(testEvent("s", i), &cfg, step); err != nil {
			t.Fatal(err)
		}
	}
	if fmt.Sprint(seen) != "[0 100 200]" {
		t.Errorf("the step saw positions %v, want [0 100 200]", seen)
	}
	st, err := h.ReadState("s", nil)
	if err != nil || st.Transcript == nil || st.Transcript.Off != 300 {
		t.Fatalf("saved state's position: %+v, %v", st, err)
	}
	assertNoDrift(t, h, &cfg)
}
