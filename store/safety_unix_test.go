//go:build unix

package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"cully/engine"
)

// noHang runs fn and fails the test if it does not return: a guard against
// a reader blocking on a FIFO, not a timing assertion.
func noHang(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("%s hangs", what)
	}
}

// A planted symlink in place of any file of the state dir is never
// followed: nothing is written through it, the call fails (or, for a state
// file, the link is replaced by a real file) and the outside file keeps
// its bytes.
func TestPlantedSymlinksNeverFollowed(t *testing.T) {
	cfg := engine.DefaultConfig()
	for _, name := range []string{"journal.jsonl", "journal.lock", "errors.log", "sessions", "sessions/s.state", "sessions/s.json", "sessions/s.lock", "journal-000001.jsonl"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			h := Home{Dir: filepath.Join(dir, "state")}
			if err := h.Ensure(); err != nil {
				t.Fatal(err)
			}
			outside := filepath.Join(dir, "outside")
			if name == "sessions" {
				os.Mkdir(outside, 0o700)
				os.Remove(h.SessionsDir())
			} else {
				// Something that decodes as a state, so a follower would overwrite it in place.
				os.WriteFile(outside, AppendState(nil, engine.NewState("s")), 0o600)
			}
			before := snapshotTree(t, outside)
			if err := os.Symlink(outside, filepath.Join(h.Dir, name)); err != nil {
				t.Fatal(err)
			}
			_, rerr := h.Record(testEvent("s", 0), &cfg)
			lerr := h.LogError("test", errors.New("x"), nil)
			h.Rebuild("", &cfg)
			h.ReadAll(func(*engine.Event) error { return nil })
			h.ScanTail(1<<20, func(*engine.Event) error { return nil })
			h.ReadState("s", nil)
			h.Sessions()
			if got := snapshotTree(t, outside); got != before {
				t.Fatalf("written through the planted link:\nbefore %q\nafter  %q", before, got)
			}
			switch name {
			case "journal.jsonl", "journal.lock", "sessions", "sessions/s.state":
				if !errors.Is(rerr, ErrUnsafe) || !strings.Contains(rerr.Error(), "symlink") {
					t.Errorf("Record: want a symlink refusal, got %v", rerr)
				}
			case "errors.log":
				if !errors.Is(lerr, ErrUnsafe) {
					t.Errorf("LogError: want a symlink refusal, got %v", lerr)
				}
			}
			if name == "sessions/s.json" || name == "sessions/s.lock" {
				// A link where the previous layout kept its files is never
				// read through: the session is recorded in its own file.
				if rerr != nil {
					t.Errorf("Record: %v", rerr)
				}
				if fi, err := os.Lstat(h.StatePath("s")); err != nil || !fi.Mode().IsRegular() {
					t.Errorf("state file: %v %v", fi, err)
				}
			}
		})
	}
}

func snapshotTree(t *testing.T, p string) string {
	var b strings.Builder
	filepath.Walk(p, func(path string, fi os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		b.WriteString(path + ":")
		if fi.Mode().IsRegular() {
			c, _ := os.ReadFile(path)
			b.Write(c)
		}
		b.WriteString("\n")
		return nil
	})
	return b.String()
}

// A FIFO (or anything not a regular file) where a file of the state dir
// belongs is refused by every writer and reader, without blocking on it.
func TestFIFOsRefusedWithoutHanging(t *testing.T) {
	cfg := engine.DefaultConfig()
	for _, name := range []string{"journal.jsonl", "journal.lock", "errors.log", "sessions/s.state", "sessions/s.json", "journal-000001.jsonl"} {
		t.Run(name, func(t *testing.T) {
			h := Home{Dir: filepath.Join(t.TempDir(), "state"), LockWait: 200 * time.Millisecond}
			if err := h.Ensure(); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(h.Dir, name)
			if err := syscall.Mkfifo(p, 0o600); err != nil {
				t.Skip("no FIFOs here:", err)
			}
			var rerr, aerr, lerr, jerr, terr, serr, eerr, taerr error
			noHang(t, "the store on a FIFO "+name, func() {
				_, rerr = h.Record(testEvent("s", 0), &cfg)
				aerr = h.Append([]byte(`{"v":1,"kind":"other"}`))
				lerr = h.LogError("test", errors.New("x"), nil)
				_, jerr = h.ReadAll(func(*engine.Event) error { return nil })
				_, _, terr = h.ScanTail(1<<20, func(*engine.Event) error { return nil })
				_, serr = h.JournalSize()
				_, eerr = h.ReadErrorsLog()
				_, taerr = h.ErrorsAfter(0)
				h.Rebuild("", &cfg)
				h.ReadState("s", nil)
				h.Sessions()
				ReadFile(p, 0, func(*engine.Event) error { return nil })
			})
			want := map[string][]error{
				"journal.jsonl":        {rerr, aerr, jerr, terr, serr},
				"journal.lock":         {rerr, aerr},
				"errors.log":           {lerr, eerr, taerr},
				"sessions/s.state":     {rerr},
				"journal-000001.jsonl": {jerr},
			}[name]
			for i, err := range want {
				if !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), "FIFO") {
					t.Errorf("call %d: want a FIFO refusal, got %v", i, err)
				}
			}
			if name == "sessions/s.json" {
				if rerr != nil {
					t.Errorf("a FIFO where the previous layout kept the state is not read: %v", rerr)
				}
				if fi, err := os.Lstat(h.StatePath("s")); err != nil || !fi.Mode().IsRegular() {
					t.Errorf("state file: %v %v", fi, err)
				}
			}
		})
	}
	// A follower that opened a FIFO itself is refused by ReadOpen.
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skip(err)
	}
	f, err := os.OpenFile(p, os.O_RDWR|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	noHang(t, "ReadOpen on a FIFO", func() {
		if _, _, err := ReadOpen(f, 0, func(*engine.Event) error { return nil }); !errors.Is(err, ErrUnsafe) {
			t.Errorf("ReadOpen on a FIFO: %v", err)
		}
	})
}

// A state dir someone else can write, or owns, or that is a symlink, is
// refused with a clear error before anything is written in it; a new one
// is created 0700.
func TestStateDirTrustBoundary(t *testing.T) {
	cfg := engine.DefaultConfig()
	check := func(t *testing.T, h Home, want string) {
		t.Helper()
		before := snapshotTree(t, h.Dir)
		_, err := h.Record(testEvent("s", 0), &cfg)
		if !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), want) {
			t.Fatalf("want a refusal saying %q, got %v", want, err)
		}
		if err := h.LogError("x", errors.New("y"), nil); !errors.Is(err, ErrUnsafe) {
			t.Errorf("LogError wrote into a refused dir: %v", err)
		}
		if _, err := h.ReadState("s", nil); !errors.Is(err, ErrUnsafe) {
			t.Errorf("ReadState: %v", err)
		}
		if got := snapshotTree(t, h.Dir); got != before {
			t.Errorf("wrote into a refused state dir:\n%s", got)
		}
	}
	t.Run("new dir is 0700", func(t *testing.T) {
		h := Home{Dir: filepath.Join(t.TempDir(), "a", "b")}
		if _, err := h.Record(testEvent("s", 0), &cfg); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{h.Dir, h.SessionsDir()} {
			if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o700 {
				t.Errorf("%s: %v", p, fi.Mode())
			}
		}
	})
	t.Run("mode 0777", func(t *testing.T) {
		h := Home{Dir: filepath.Join(t.TempDir(), "state")}
		os.Mkdir(h.Dir, 0o700)
		os.Chmod(h.Dir, 0o777)
		check(t, h, "writable by group or others")
	})
	t.Run("group-writable sessions", func(t *testing.T) {
		h := Home{Dir: filepath.Join(t.TempDir(), "state")}
		h.Ensure()
		os.Chmod(h.SessionsDir(), 0o770)
		check(t, h, "writable by group or others")
	})
	t.Run("symlinked state dir", func(t *testing.T) {
		dir := t.TempDir()
		os.Mkdir(filepath.Join(dir, "real"), 0o700)
		os.Symlink(filepath.Join(dir, "real"), filepath.Join(dir, "state"))
		check(t, Home{Dir: filepath.Join(dir, "state")}, "symlink")
	})
	t.Run("another user's", func(t *testing.T) {
		h := Home{Dir: filepath.Join(t.TempDir(), "state")}
		os.Mkdir(h.Dir, 0o755)
		if os.Geteuid() == 0 {
			if err := os.Chown(h.Dir, 65534, 65534); err != nil {
				t.Skip(err)
			}
		} else {
			h.Dir = "/" // root's, and not writable by us either way
		}
		check(t, h, "is owned by uid")
	})
}
