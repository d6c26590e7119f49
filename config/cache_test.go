package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

func TestCached(t *testing.T) {
	src := world(t, "[rules]\nexplore_reads = 30\nchecks = [\"./v\"]\n", "[rules]\nunverified_edits = 5\nloop_failure = 2\n")
	ld, parsed, err := Cached(src, false)
	if !parsed || err != nil || ld.Project.State != NotAllowed || len(ld.Problems) != 1 {
		t.Fatalf("first load parses: %+v %v %v", ld, parsed, err)
	}
	if _, err := os.Stat(CachePath(src)); err != nil {
		t.Fatal("no cache entry:", err)
	}
	ld, parsed, _ = Cached(src, false)
	if parsed || ld.Config.ExploreReads != 30 || len(ld.Config.Checks) != 1 || ld.Config.UnverifiedEdits != 12 || ld.Project.State != NotAllowed || len(ld.Problems) != 0 {
		t.Fatalf("second load is the cache's: %+v %v", ld, parsed)
	}
	if _, parsed, _ := Cached(src, true); !parsed {
		t.Fatal("fresh parses")
	}

	allow(t, src) // drops the cache
	ld, parsed, _ = Cached(src, false)
	if !parsed || ld.Config.UnverifiedEdits != 5 || len(ld.Problems) != 1 || ld.Problems[0].Line != 3 {
		t.Fatalf("after allow: %+v %v", ld, parsed)
	}
	if ld, parsed, _ = Cached(src, false); parsed || ld.Config.UnverifiedEdits != 5 || ld.Project.State != InEffect {
		t.Fatalf("cached after allow: %+v %v", ld, parsed)
	}

	// An edit changes size or mtime: parsed again, and no longer allowed.
	os.WriteFile(src.ProjectPath(), []byte("[rules]\nunverified_edits = 4\n"), 0o644)
	if ld, parsed, _ = Cached(src, false); !parsed || ld.Config.UnverifiedEdits != 12 || ld.Project.State != Changed {
		t.Fatalf("after an edit: %+v %v", ld, parsed)
	}
	later := time.Now().Add(time.Hour)
	os.Chtimes(src.User, later, later)
	if _, parsed, _ = Cached(src, false); !parsed {
		t.Fatal("a touched user file is parsed again")
	}
	os.Remove(src.ProjectPath())
	if ld, parsed, _ = Cached(src, false); !parsed || ld.Project.State != Absent {
		t.Fatalf("a removed project file: %+v %v", ld, parsed)
	}
	if _, parsed, _ = Cached(src, false); parsed {
		t.Fatal("an absent project file is cached too")
	}

	// Another user file (CULLY_CONFIG) has its own entry.
	other := src
	other.User = filepath.Join(t.TempDir(), "other.toml")
	os.WriteFile(other.User, []byte("[rules]\nexplore_reads = 25\n"), 0o644)
	if ld, parsed, _ := Cached(other, false); !parsed || ld.Config.ExploreReads != 25 || CachePath(other) == CachePath(src) {
		t.Fatalf("other user file: %+v", ld)
	}

	// A damaged entry is a miss, never a failure.
	os.WriteFile(CachePath(src), []byte("{\"v\":1,"), 0o600)
	if ld, parsed, _ = Cached(src, false); !parsed || ld.Config.ExploreReads != 30 {
		t.Fatalf("damaged entry: %+v %v", ld, parsed)
	}

	if _, _, err := Cached(Sources{User: src.User}, false); err != ErrNoStateDir {
		t.Fatalf("no state dir: %v", err)
	}
}

func TestReportIsBounded(t *testing.T) {
	ld := Loaded{Problems: make([]Problem, MaxProblems), More: 1000}
	if r := ld.Report(5); len(r) != 6 || r[5].Error() != "and 1015 more config problem(s) like these (`cully doctor` lists the first ones)" {
		t.Fatalf("%d %v", len(r), r[len(r)-1])
	}
	if r := (Loaded{Problems: make([]Problem, 2)}).Report(5); len(r) != 2 {
		t.Fatal(r)
	}
}

// What a hook call pays for its configuration: the cached path (a stat of
// each file and one small read) against loading the files.
func BenchmarkConfig(b *testing.B) {
	dir := b.TempDir()
	src := Sources{User: filepath.Join(dir, "config.toml"), ProjectDir: filepath.Join(dir, "proj"), StateDir: filepath.Join(dir, "state")}
	os.MkdirAll(src.ProjectDir, 0o755)
	os.WriteFile(src.User, []byte("[rules]\nexplore_reads = 30\nchecks = [\"./verify.sh\"]\nread_only = [\"mytool\"]\n"), 0o600)
	doc := []byte("# project thresholds\n[rules]\nunverified_edits = 8\nloop_failures = 4\n")
	os.WriteFile(src.ProjectPath(), doc, 0o644)
	Allow(src.StateDir, src.ProjectPath(), doc, "-", now)
	b.Run("cached", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, parsed, _ := Cached(src, false); parsed && i > 0 {
				b.Fatal("parsed")
			}
		}
	})
	b.Run("load", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			Load(src)
		}
	})
}

// With neither file the defaults come without a cache entry, and equal
// what Load says, also when a file is a dangling symlink.
func TestCachedWithoutFiles(t *testing.T) {
	dir := t.TempDir()
	src := Sources{User: filepath.Join(dir, "none.toml"), ProjectDir: filepath.Join(dir, "proj"), StateDir: filepath.Join(dir, "state")}
	for _, fresh := range []bool{false, true} {
		ld, parsed, err := Cached(src, fresh)
		if parsed || err != nil || !reflect.DeepEqual(ld, Load(src)) {
			t.Fatalf("fresh=%v: %+v %v %v, want %+v", fresh, ld, parsed, err, Load(src))
		}
	}
	if _, err := os.Stat(filepath.Join(src.StateDir, CacheDir)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a cache was written for no files: %v", err)
	}
	os.MkdirAll(src.ProjectDir, 0o755)
	os.Symlink(filepath.Join(dir, "gone"), src.ProjectPath())
	os.Symlink(filepath.Join(dir, "gone too"), src.User)
	if ld, _, _ := Cached(src, true); !reflect.DeepEqual(ld, Load(src)) || ld.Project.State != Absent {
		t.Fatalf("dangling symlinks: %+v, want %+v", ld, Load(src))
	}
}

// The tell switches survive the cache: a cached load says what a parse says.
func TestCachedTellSwitches(t *testing.T) {
	src := world(t, "[rules]\nunverified_tell = 12\nunverified_tell_since = \"pass\"\nfix_in_test_tell = true\ncommit_tell = true\nreported_tell = true\n", "")
	first, parsed, err := Cached(src, false)
	if !parsed || err != nil || len(first.Problems) != 0 {
		t.Fatalf("parse: %+v %v %v", first, parsed, err)
	}
	second, parsed, _ := Cached(src, false)
	if parsed {
		t.Fatal("second load is the cache's")
	}
	for _, ld := range []Loaded{first, second} {
		c := ld.Config
		if c.UnverifiedTell != 12 || c.UnverifiedTellSince != "pass" || !c.FixInTestTell || !c.CommitTell || !c.ReportedTell {
			t.Errorf("tell switches: %+v", c)
		}
	}
	bad := world(t, "[rules]\nunverified_tell_since = \"sometimes\"\n", "")
	if ld, _, _ := Cached(bad, false); ld.Config.UnverifiedTellSince != "check" || len(ld.Problems) != 1 {
		t.Errorf("a bad value: %q, problems %v", ld.Config.UnverifiedTellSince, ld.Problems)
	}
}
