package runs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// rollbackReq rolls back with a request's options.
func (w *world) rollbackReq(r RollbackRequest) (*Plan, error) {
	w.n++
	r.Request = Request{Session: "s1", Run: w.run, Task: 1, Reason: "rollback", Now: t0.Add(time.Duration(w.n) * time.Minute)}
	return Rollback(w.h, r)
}

// In a repository with `* text=auto`, a rollback gives back a CRLF file's
// bytes as they were: no line-ending conversion on the way in or out.
func TestRollbackKeepsCRLF(t *testing.T) {
	t.Parallel()
	w := newWorld(t, false)
	w.write(".gitattributes", "* text=auto\n")
	w.write("win.txt", "one\r\ntwo\r\n")
	w.sh("git init -q && git add -A && git -c user.email=t@e -c user.name=t -c maintenance.auto=false commit -qm init")
	w.write("crlf-new.txt", "untracked\r\nfile\r\n")
	w.take("baseline")
	w.call("c1", func() {
		w.write("win.txt", "agent\n")
		w.write("crlf-new.txt", "agent\n")
	})
	if _, err := w.rollback(0, false); err != nil {
		t.Fatal(err)
	}
	if got := w.read("win.txt"); got != "one\r\ntwo\r\n" {
		t.Fatalf("win.txt %q, want its CRLF bytes back", got)
	}
	if got := w.read("crlf-new.txt"); got != "untracked\r\nfile\r\n" {
		t.Fatalf("crlf-new.txt %q, want its CRLF bytes back", got)
	}
}

// The same when git trusts the user's index: the files are older than it,
// so the user's entry for win.txt (its blob converted to LF by text=auto)
// matches the file's size and times, and a run's index seeded from it
// would hold LF for a CRLF file (torture seed 306, on a slow machine).
func TestRollbackKeepsCRLFOfAnIndexedFile(t *testing.T) {
	t.Parallel()
	w := newWorld(t, false)
	w.write(".gitattributes", "* text=auto\n")
	w.write("win.txt", "one\r\ntwo\r\n")
	old := time.Now().Add(-time.Hour)
	for _, f := range []string{".gitattributes", "win.txt", "a.txt", "b.txt", "pkg/c.go", "dirty.txt", ".gitignore"} {
		if err := os.Chtimes(filepath.Join(w.root, f), old, old); err != nil {
			t.Fatal(err)
		}
	}
	w.sh("git init -q && git add -A && git -c user.email=t@e -c user.name=t -c maintenance.auto=false commit -qm init")
	w.take("baseline")
	w.call("c1", func() { w.write("win.txt", "agent\n") })
	if _, err := w.rollback(0, false); err != nil {
		t.Fatal(err)
	}
	if got := w.read("win.txt"); got != "one\r\ntwo\r\n" {
		t.Fatalf("win.txt %q, want its CRLF bytes back", got)
	}
}

// A folder replaced by a link does not break the run: the next snapshot
// records the link, and a rollback gives back the folder.
func TestFolderReplacedByLink(t *testing.T) {
	t.Parallel()
	w := newWorld(t, true)
	w.take("baseline")
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "c.go"), []byte("elsewhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w.call("c1", func() { w.sh("rm -r pkg && ln -s " + outside + " pkg") })
	s := w.take("calls")
	if !contains(s.Files, "pkg") || !contains(s.Files, "pkg/c.go") {
		t.Fatalf("files_modified %q, want the link and the folder's file", s.Files)
	}
	w.call("c2", func() { w.write("a.txt", "more\n") })
	w.take("calls") // a later snapshot works too
	if _, err := w.rollback(0, false); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(filepath.Join(w.root, "pkg")); err != nil || !fi.IsDir() {
		t.Fatalf("pkg is not a folder again: %v", err)
	}
	if got := w.read("pkg/c.go"); got != "package pkg\n" {
		t.Fatalf("pkg/c.go %q", got)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "c.go")); string(b) != "elsewhere\n" {
		t.Fatal("the rollback wrote through the link")
	}
}

// Files ignored before the run stay out of it when the run edits
// .gitignore: a rollback never deletes them as "created since".
func TestIgnoredBeforeRunNeverCreatedSince(t *testing.T) {
	t.Parallel()
	w := newWorld(t, false)
	w.write(".gitignore", ".env\nnode_modules/\n*.log\n")
	w.sh("git init -q && git add -A && git -c user.email=t@e -c user.name=t -c maintenance.auto=false commit -qm init")
	w.write(".env", "TOKEN=local\n")
	w.write("node_modules/x/index.js", "module.exports = 1\n")
	w.write("old.log", "log\n")
	w.take("baseline")
	w.call("c1", func() { w.write(".gitignore", "# the agent's edit\n") })
	s := w.take("calls")
	if !equal(s.Files, []string{".gitignore"}) {
		t.Fatalf("files_modified %q, want only .gitignore", s.Files)
	}
	p, err := w.rollback(0, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Remove) != 0 {
		t.Fatalf("removed %q", p.Remove)
	}
	for _, f := range []string{".env", "node_modules/x/index.js", "old.log"} {
		if !w.exists(f) {
			t.Fatalf("%s was deleted", f)
		}
	}
	if got := w.read(".gitignore"); got != ".env\nnode_modules/\n*.log\n" {
		t.Fatalf(".gitignore %q", got)
	}
}

// A file that grows past the size cap after a snapshot held it is never
// overwritten or removed: the rollback changes nothing and names it; with
// Force it rolls back the rest and leaves that file.
func TestGrownPastCapNeverDestroyed(t *testing.T) {
	// Not parallel: it sets the package's MaxFileBytes, which every other test reads
	// (the parallel ones start after the serial ones end).
	w := newWorld(t, true)
	old := MaxFileBytes
	MaxFileBytes = 1000
	defer func() { MaxFileBytes = old }()
	w.take("baseline")
	w.call("c1", func() { w.write("data.bin", "small\n") })
	w.take("calls")
	big := strings.Repeat("B", 5000)
	w.call("c2", func() {
		w.write("data.bin", big)
		w.write("a.txt", "agent\n")
	})
	_, err := w.rollback(1, false)
	var re *RollbackError
	if !errors.As(err, &re) || len(re.Problems) != 1 || re.Problems[0].Path != "data.bin" || len(re.Applied) != 0 {
		t.Fatalf("err %v, want a refusal naming data.bin with nothing changed", err)
	}
	if w.read("data.bin") != big || w.read("a.txt") != "agent\n" {
		t.Fatal("the refused rollback changed files")
	}
	p, err := w.rollbackReq(RollbackRequest{To: 1, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if w.read("data.bin") != big || w.read("a.txt") != "a\n" {
		t.Fatalf("forced: data.bin kept %v, a.txt %q", w.read("data.bin") == big, w.read("a.txt"))
	}
	if len(p.Left) != 1 || p.Left[0].Path != "data.bin" || contains(p.Restore, "data.bin") || contains(p.Remove, "data.bin") {
		t.Fatalf("plan %+v", p)
	}
	// The undo of the forced rollback brings a.txt back; data.bin is untouched throughout.
	if _, err := w.rollback(p.Undo, false); err != nil {
		t.Fatal(err)
	}
	if w.read("data.bin") != big || w.read("a.txt") != "agent\n" {
		t.Fatal("the undo did not restore the state before")
	}
}

// A file the user wrote during the run while git ignored it, which the
// agent's edit of .gitignore then shows, is the user's: the rollback of
// that edit leaves it (no snapshot ever held it). A file the agent moved
// into place keeps its old time, and is still the agent's to undo.
func TestUnignoredFileOfTheUserNeverRemoved(t *testing.T) {
	t.Parallel()
	w := newWorld(t, true)
	w.take("baseline")
	w.call("c1", func() { w.write("b.txt", "agent\n") })
	past := time.Now().Add(-time.Minute)
	w.write("debug.log", "the user's log\n") // ignored: *.log
	if err := os.Chtimes(filepath.Join(w.root, "debug.log"), past, past); err != nil {
		t.Fatal(err)
	}
	w.call("c2", func() { w.write(".gitignore", "# the agent's edit\n") })
	w.call("c3", func() {
		if err := os.Rename(filepath.Join(w.root, "a.txt"), filepath.Join(w.root, "moved.txt")); err != nil {
			t.Fatal(err)
		}
	})
	p, err := w.rollback(0, false)
	if err != nil {
		t.Fatal(err)
	}
	if w.read("debug.log") != "the user's log\n" {
		t.Fatalf("the user's debug.log: %q (plan %+v)", w.read("debug.log"), p)
	}
	if w.read(".gitignore") != "*.log\n" || w.read("b.txt") != "b\n" || w.read("a.txt") != "a\n" || w.exists("moved.txt") {
		t.Fatalf("the agent's changes not undone: .gitignore %q, b.txt %q, a.txt %q, moved.txt there %v",
			w.read(".gitignore"), w.read("b.txt"), w.read("a.txt"), w.exists("moved.txt"))
	}
	left := false
	for _, k := range p.Left {
		left = left || k.Path == "debug.log"
	}
	if !left {
		t.Fatalf("debug.log not reported as left: %+v", p.Left)
	}
}

// A file the agent grew past the cap, then deleted by someone else while no
// capture held it, stays deleted through the agent's rollback: no tree
// shows the deletion (neither held the file), so the marks see it on the
// disk. Deleted between two calls, or after the last one.
func TestSkippedFileDeletedByAnotherStaysDeleted(t *testing.T) {
	// Not parallel: it sets the package's MaxFileBytes (see TestGrownPastCapNeverDestroyed).
	old := MaxFileBytes
	MaxFileBytes = 1000
	defer func() { MaxFileBytes = old }()
	for _, between := range []bool{true, false} {
		w := newWorld(t, true)
		w.take("baseline")
		w.call("c1", func() { w.write("notes.txt", "small\n") })
		w.take("calls") // step 1: notes.txt as the agent first wrote it
		w.call("c2", func() {
			w.write("notes.txt", strings.Repeat("N", 5000)) // past the cap: skipped from now on
			w.write("a.txt", "agent\n")
		})
		if err := os.Remove(filepath.Join(w.root, "notes.txt")); err != nil { // another session's rm
			t.Fatal(err)
		}
		if between {
			w.call("c3", func() { w.write("b.txt", "agent\n") })
		}
		p, err := w.rollback(1, false)
		if err != nil {
			t.Fatalf("between calls %v: %v", between, err)
		}
		if w.exists("notes.txt") || !contains(p.Outside, "notes.txt") {
			t.Errorf("between calls %v: notes.txt exists %v after the rollback, outside %q: another session's deletion was undone",
				between, w.exists("notes.txt"), p.Outside)
		}
		if w.read("a.txt") != "a\n" || w.read("b.txt") != "b\n" {
			t.Errorf("between calls %v: the agent's edits not undone: a.txt %q, b.txt %q", between, w.read("a.txt"), w.read("b.txt"))
		}
	}
}

// An untracked secret is never copied into the store, and a rollback
// leaves it where it is.
func TestSecretsNotStored(t *testing.T) {
	t.Parallel()
	w := newWorld(t, true)
	w.write(".env", "API_KEY=sk-live-0123456789abcdefghijklmn\n")
	w.write("notes.txt", "token: ghp_0123456789abcdefghijklmnopqrstuvwxyzAB\n")
	w.write("id_ed25519", "-----BEGIN OPENSSH PRIVATE KEY-----\nxxx\n-----END OPENSSH PRIVATE KEY-----\n")
	base := w.take("baseline")
	for _, f := range []string{".env", "notes.txt", "id_ed25519"} {
		if !contains(base.State.NotCaptured, f) {
			t.Errorf("%s captured (not captured: %q)", f, base.State.NotCaptured)
		}
	}
	for _, k := range base.State.Skipped {
		if k.Why != whySecret {
			t.Errorf("%s: %s", k.Path, k.Why)
		}
	}
	w.write("server.pem", "cert\n")
	w.take("calls")
	// No object of the store holds a secret's bytes.
	objects := filepath.Join(w.h.StoreDir(storeKey(w.realRoot())), "git", "objects")
	n := 0
	_ = filepath.WalkDir(objects, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return nil
	})
	g := git{dir: filepath.Join(w.h.StoreDir(storeKey(w.realRoot())), "git"), root: w.root}
	for _, secret := range []string{".env", "notes.txt", "id_ed25519", "server.pem"} {
		b, _ := os.ReadFile(filepath.Join(w.root, secret))
		id, err := g.out(b, "hash-object", "--stdin")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := g.out(nil, "cat-file", "-e", strings.TrimSpace(string(id))); err == nil {
			t.Errorf("the store holds %s", secret)
		}
	}
	if n == 0 {
		t.Fatal("no object in the store at all: the test looks in the wrong place")
	}
	w.write("a.txt", "agent\n")
	if _, err := w.rollback(0, false); err != nil {
		t.Fatal(err)
	}
	if !w.exists(".env") || !w.exists("server.pem") {
		t.Fatal("a rollback removed a secret it never held")
	}
}

// The store's files are this user's only.
func TestStoreFilesPrivate(t *testing.T) {
	t.Parallel()
	w := newWorld(t, true)
	w.write("new.txt", "untracked content\n")
	w.take("baseline")
	w.write("a.txt", "edited\n")
	w.take("calls")
	for _, d := range []string{w.h.StoresDir(), w.h.RunsDir()} {
		_ = filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			fi, _ := os.Lstat(p)
			if e.IsDir() && fi.Mode().Perm()&0o077 != 0 || !e.IsDir() && fi.Mode().Perm()&0o077 != 0 {
				t.Errorf("%s is %v", p, fi.Mode().Perm())
			}
			return nil
		})
	}
}

// A project folder in a system folder is refused.
func TestSystemFolderRefused(t *testing.T) {
	t.Parallel()
	w := newWorld(t, false)
	_, err := Take(w.h, Request{Session: "s1", Run: w.run, Reason: "baseline", Dir: "/etc", Now: t0})
	if err == nil || !strings.Contains(err.Error(), "system folder") {
		t.Fatalf("err %v", err)
	}
	if _, err := os.Stat(w.h.StoresDir()); err == nil {
		entries, _ := os.ReadDir(w.h.StoresDir())
		if len(entries) > 0 {
			t.Fatal("a store was made for /etc")
		}
	}
}

// A token in a file's name is redacted in files_modified.
func TestTokenInFileNameRedacted(t *testing.T) {
	t.Parallel()
	w := newWorld(t, true)
	w.take("baseline")
	name := "dump-ghp_0123456789abcdefghijklmnopqrstuvwxyzAB.txt"
	w.call("c1", func() { w.write(name, "x\n") })
	s := w.take("calls")
	raw, _ := os.ReadFile(s.Path)
	if strings.Contains(string(raw), "ghp_0123456789") {
		t.Fatalf("the snapshot file holds the token:\n%s", raw)
	}
	if _, err := w.rollback(0, false); err != nil {
		t.Fatal(err)
	}
	if w.exists(name) {
		t.Fatal("the file made by the run is still there after the rollback")
	}
}

// Content already held is never stored again: a second run of the same
// work tree, with an unchanged large untracked file, adds nothing.
func TestStoreSharedAcrossRuns(t *testing.T) {
	t.Parallel()
	w := newWorld(t, true)
	w.write("data.bin", strings.Repeat("0123456789", 200_000)) // 2 MB, untracked
	w.take("baseline")
	size1 := dirSize(t, w.h.StoresDir())
	for i := 2; i <= 4; i++ {
		w.run = "run-" + string(rune('0'+i))
		w.n = 0
		w.take("baseline")
	}
	if grown := dirSize(t, w.h.StoresDir()) - size1; grown > 64<<10 {
		t.Fatalf("three more runs grew the store by %d bytes", grown)
	}
}

func (w *world) realRoot() string {
	r, err := filepath.EvalSymlinks(w.root)
	if err != nil {
		w.t.Fatal(err)
	}
	return r
}

func dirSize(t *testing.T, d string) int64 {
	var n int64
	_ = filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			if fi, err := e.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The first baseline of a repository starts from the user's own index
// (only read): a file staged and then changed again is held as it is in
// the work tree, and a repository in the middle of a conflicted merge is
// snapshotted too.
func TestBaselineFromTheUsersIndex(t *testing.T) {
	t.Parallel()
	w := newWorld(t, true)
	w.write("a.txt", "staged\n")
	w.sh("git add a.txt")
	w.write("a.txt", "staged, then changed again\n")
	index, _ := w.userRepo()
	w.take("baseline")
	w.call("c1", func() { w.write("a.txt", "agent\n") })
	if _, err := w.rollback(0, false); err != nil {
		t.Fatal(err)
	}
	if got := w.read("a.txt"); got != "staged, then changed again\n" {
		t.Fatalf("a.txt %q", got)
	}
	if i, _ := w.userRepo(); i != index {
		t.Fatal("the user's index changed")
	}

	m := newWorld(t, true)
	m.sh(`git checkout -qb side && echo side > a.txt && git -c user.email=t@e -c user.name=t commit -qam side &&
git checkout -q - && echo main > a.txt && git -c user.email=t@e -c user.name=t commit -qam main &&
(git merge -q side >/dev/null 2>&1 || true)`)
	if !strings.Contains(m.gitStatus(), "UU a.txt") {
		t.Fatalf("no conflict to test with:\n%s", m.gitStatus())
	}
	conflicted := m.read("a.txt")
	m.take("baseline")
	m.call("c1", func() { m.write("a.txt", "resolved by the agent\n") })
	if _, err := m.rollback(0, false); err != nil {
		t.Fatal(err)
	}
	if m.read("a.txt") != conflicted {
		t.Fatalf("a.txt %q, want the conflicted file back", m.read("a.txt"))
	}
	if !strings.Contains(m.gitStatus(), "UU a.txt") {
		t.Fatalf("the user's merge state changed:\n%s", m.gitStatus())
	}
}
