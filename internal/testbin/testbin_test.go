package testbin

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A checkout's cached binaries unused for a week go at the next build of
// any checkout; the ones in use stay.
func TestPruneStale(t *testing.T) {
	root := t.TempDir()
	now := time.Now()
	for name, age := range map[string]time.Duration{"old": 8 * 24 * time.Hour, "recent": time.Hour} {
		d := filepath.Join(root, name)
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "cully"), []byte("bin"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(d, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
	}
	pruneStale(root, now)
	if _, err := os.Stat(filepath.Join(root, "old")); !os.IsNotExist(err) {
		t.Errorf("a week-old checkout's binaries stayed: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "recent", "cully")); err != nil {
		t.Errorf("binaries in use were removed: %v", err)
	}
}
