package runs

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cully/store"
)

// benchRepo is a committed repository of n source-like files (4 KiB on
// average, 20 to a folder) and a state dir, for the figures in
// docs/run-control.md: go test -bench . -run XXX ./runs/
func benchRepo(b *testing.B, n int) (store.Home, string) {
	b.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("needs git")
	}
	base := b.TempDir()
	root := filepath.Join(base, "repo")
	line := strings.Repeat("x", 63) + "\n"
	for i := 0; i < n; i++ {
		p := filepath.Join(root, fmt.Sprintf("pkg%03d", i/20), fmt.Sprintf("file%04d.go", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.Repeat(line, 32+i%64)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	c := exec.Command("sh", "-c", "git init -q && git add -A && git -c user.email=b@e -c user.name=b commit -qm init")
	c.Dir = root
	if out, err := c.CombinedOutput(); err != nil {
		b.Fatalf("%v %s", err, out)
	}
	return store.Home{Dir: filepath.Join(base, "state")}, root
}

func touchFiles(b *testing.B, root string, k, round int) {
	for j := 0; j < k; j++ {
		p := filepath.Join(root, fmt.Sprintf("pkg%03d", j), fmt.Sprintf("file%04d.go", j*20))
		if err := os.WriteFile(p, []byte(fmt.Sprintf("package p // round %d\n", round)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

// The baseline of a run: every file hashed once (the user's objects are
// borrowed, so only the trees and untracked files are written).
func BenchmarkBaseline2000(b *testing.B) {
	h, root := benchRepo(b, 2000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Take(h, Request{Run: fmt.Sprintf("r%d", i), Reason: "baseline", Dir: root, Now: time.Now()}); err != nil {
			b.Fatal(err)
		}
	}
}

// A snapshot after 5 files changed: git finds them by their metadata.
func BenchmarkSnapshot2000(b *testing.B) {
	h, root := benchRepo(b, 2000)
	if _, err := Take(h, Request{Run: "r", Reason: "baseline", Dir: root, Now: time.Now()}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		touchFiles(b, root, 5, i)
		b.StartTimer()
		if _, err := Take(h, Request{Run: "r", Reason: "calls", Now: time.Now()}); err != nil {
			b.Fatal(err)
		}
	}
}

// A rollback of 5 files to the baseline, its own snapshot included.
func BenchmarkRollback2000(b *testing.B) {
	h, root := benchRepo(b, 2000)
	if _, err := Take(h, Request{Run: "r", Reason: "baseline", Dir: root, Now: time.Now()}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		touchFiles(b, root, 5, i)
		b.StartTimer()
		p, err := Rollback(h, RollbackRequest{Request: Request{Run: "r", Reason: "rollback", Now: time.Now()}, To: 0})
		if err != nil || len(p.Restore) != 5 {
			b.Fatalf("%v %+v", err, p)
		}
	}
}

// BenchmarkLastSkipped reads the last mark's skipped list from a run of
// 5,000 marks (a long session's), as every mark does before it is
// appended: with a list that has stood unchanged since the first mark (the
// whole file read), and with none (the last line settles it).
func BenchmarkLastSkipped(b *testing.B) {
	for _, c := range []struct {
		name string
		big  bool
	}{{"unchanged-since-the-first", true}, {"none", false}} {
		b.Run(c.name, func(b *testing.B) {
			dir := b.TempDir()
			writeMarks(b, dir, 5000, c.big)
			want := 0
			if c.big {
				want = 1
			}
			for b.Loop() {
				if s, ok := lastSkipped(dir); !ok || len(s) != want {
					b.Fatalf("got %q %v", s, ok)
				}
			}
		})
	}
}

// writeMarks writes n marks; with big, the first skips big.bin and every
// later one says the same (SameSkipped).
func writeMarks(tb testing.TB, dir string, n int, big bool) {
	tb.Helper()
	var buf []byte
	for i := range n {
		mk := Mark{Kind: "pre", Call: fmt.Sprintf("toolu_%d", i), Tree: strings.Repeat("a", 40), At: int64(i)}
		if big {
			mk.SameSkipped = i > 0
			if i == 0 {
				mk.Skipped = []string{"big.bin"}
			}
		}
		line, err := json.Marshal(mk)
		if err != nil {
			tb.Fatal(err)
		}
		buf = append(append(buf, line...), '\n')
	}
	if err := os.WriteFile(filepath.Join(dir, marksFile), buf, 0o600); err != nil {
		tb.Fatal(err)
	}
}
