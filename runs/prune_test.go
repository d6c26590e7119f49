package runs

import (
	"crypto/rand"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Snapshots on the cadence pause at the store's cap; every snapshot
// pauses under the disk's floor; a rollback's own snapshot is held to the
// floor only, so a full store never blocks a rollback.
func TestSnapshotsPause(t *testing.T) {
	t.Parallel()
	w := newWorld(t, true)
	w.write("data.bin", strings.Repeat("0123456789abcdef", 64<<10)) // 1 MiB, untracked
	w.take("baseline")
	tiny := Policy{KeepRuns: 20, KeepFor: time.Hour, MaxBytes: 1 << 10, MinFree: 0, MaxFileBytes: MaxFileBytes}
	_, err := Take(w.h, Request{Session: "s1", Run: w.run, Task: 1, Reason: "calls", Dir: w.root, Now: t0.Add(time.Hour), Policy: &tiny})
	if !errors.Is(err, ErrPaused) || !strings.Contains(err.Error(), "over its cap") {
		t.Fatalf("over the cap: %v", err)
	}
	w.call("c1", func() { w.write("a.txt", "agent\n") })
	if _, err := Rollback(w.h, RollbackRequest{Request: Request{Session: "s1", Run: w.run, Reason: "rollback", Now: t0.Add(2 * time.Hour), Policy: &tiny}, To: 0}); err != nil {
		t.Fatalf("a rollback over the cap: %v", err)
	}
	if w.read("a.txt") != "a\n" {
		t.Fatal("not rolled back")
	}
	full := Policy{KeepRuns: 20, KeepFor: time.Hour, MaxBytes: 1 << 40, MinFree: 1 << 62, MaxFileBytes: MaxFileBytes}
	_, err = Take(w.h, Request{Session: "s1", Run: w.run, Task: 1, Reason: "manual", Dir: w.root, Now: t0.Add(3 * time.Hour), Policy: &full})
	if !errors.Is(err, ErrPaused) || !strings.Contains(err.Error(), "floor") {
		t.Fatalf("under the floor: %v", err)
	}
}

// A prune keeps the newest runs and the recent ones, never a pinned one,
// and removes the content only the removed runs held; the cap then takes
// the oldest runs but the newest.
func TestPrune(t *testing.T) {
	t.Parallel()
	w := newWorld(t, true)
	content := map[int]string{}
	for i := 1; i <= 4; i++ {
		w.run = "run-" + string(rune('0'+i))
		content[i] = randomText(1 << 20)
		w.write("big.bin", content[i]) // each run's own 1 MiB
		_, err := Take(w.h, Request{Session: "s1", Run: w.run, Task: i, Reason: "baseline", Dir: w.root, Now: t0.Add(time.Duration(i) * 24 * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
	}
	before := dirSize(t, w.h.StoresDir())
	p := Policy{KeepRuns: 2, KeepFor: 36 * time.Hour, MaxBytes: 1 << 40, MaxFileBytes: MaxFileBytes}
	out, err := Prune(w.h, p, t0.Add(5*24*time.Hour), "", "run-1")
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 || !equal(out[0].Removed, []string{"run-2"}) {
		t.Fatalf("pruned %+v, want run-2 only (run-1 pinned, run-3 and run-4 the newest)", out)
	}
	if _, err := ReadMeta(w.h, "run-2"); err == nil {
		t.Fatal("run-2's folder is still there")
	}
	after := dirSize(t, w.h.StoresDir())
	if before-after < 900<<10 {
		t.Fatalf("the store went from %d to %d bytes: run-2's content is still there", before, after)
	}
	// The kept runs' content is all still there.
	m, err := ReadMeta(w.h, "run-3")
	if err != nil {
		t.Fatal(err)
	}
	g := git{dir: filepath.Join(w.h.StoreDir(m.Store), gitDirName), root: w.root}
	if out, err := g.out(nil, "cat-file", "-p", m.Baseline+":big.bin"); err != nil || string(out) != content[3] {
		t.Fatalf("run-3's content is gone: %v", err)
	}
	// Over the cap: the oldest go, never the newest.
	p.MaxBytes = 1
	out, err = Prune(w.h, p, t0.Add(5*24*time.Hour), "")
	if err != nil {
		t.Fatal(err)
	}
	ss, _ := Stores(w.h)
	if len(ss) != 1 || ss[0].Runs != 1 || len(out[0].Removed) != 2 {
		t.Fatalf("after the cap: %+v, pruned %+v", ss, out)
	}
	if _, err := ReadMeta(w.h, "run-4"); err != nil {
		t.Fatalf("the newest run was removed: %v", err)
	}
}

// randomText is n bytes that do not compress.
func randomText(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return string(b)
}
