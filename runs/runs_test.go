package runs

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"cully/store"
)

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// world is a git repository with a few committed files, a state dir, and
// a user's edit made before the run (dirty.txt).
type world struct {
	t    *testing.T
	h    store.Home
	root string
	run  string
	n    int
}

func newWorld(t *testing.T, withGit bool) *world {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	base := t.TempDir()
	w := &world{t: t, h: store.Home{Dir: filepath.Join(base, "state")}, root: filepath.Join(base, "repo"), run: "run-1"}
	if err := os.MkdirAll(filepath.Join(w.root, "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	w.write("a.txt", "a\n")
	w.write("b.txt", "b\n")
	w.write("pkg/c.go", "package pkg\n")
	w.write("dirty.txt", "committed\n")
	w.write(".gitignore", "*.log\n")
	if withGit {
		w.sh("git init -q && git add -A && git -c user.email=t@e -c user.name=t -c maintenance.auto=false commit -qm init")
	}
	w.write("dirty.txt", "the user's own edit, before the run\n")
	return w
}

func (w *world) write(p, s string) {
	w.t.Helper()
	full := filepath.Join(w.root, p)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

func (w *world) read(p string) string {
	w.t.Helper()
	b, err := os.ReadFile(filepath.Join(w.root, p))
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

func (w *world) exists(p string) bool {
	_, err := os.Lstat(filepath.Join(w.root, p))
	return err == nil
}

func (w *world) sh(script string) {
	w.t.Helper()
	c := exec.Command("sh", "-c", script)
	c.Dir = w.root
	c.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
	if out, err := c.CombinedOutput(); err != nil {
		w.t.Fatalf("%s: %v\n%s", script, err, out)
	}
}

func (w *world) take(reason string) *Snapshot {
	w.t.Helper()
	w.n++
	s, err := Take(w.h, Request{Session: "s1", Run: w.run, Task: 1, Reason: reason, Calls: w.n * 10, Dir: w.root, Now: t0.Add(time.Duration(w.n) * time.Minute)})
	if err != nil {
		w.t.Fatalf("snapshot (%s): %v", reason, err)
	}
	return s
}

func (w *world) rollback(to int, dry bool) (*Plan, error) {
	w.n++
	return Rollback(w.h, RollbackRequest{Request: Request{Session: "s1", Run: w.run, Task: 1, Reason: "rollback", Now: t0.Add(time.Duration(w.n) * time.Minute)}, To: to, DryRun: dry})
}

// userRepo is the user's index, byte for byte, and the names of the
// files of their object store.
func (w *world) userRepo() (string, string) {
	w.t.Helper()
	b, err := os.ReadFile(filepath.Join(w.root, ".git", "index"))
	if err != nil {
		w.t.Fatal(err)
	}
	var names []string
	filepath.WalkDir(filepath.Join(w.root, ".git", "objects"), func(p string, d os.DirEntry, err error) error {
		names = append(names, p)
		return nil
	})
	return string(b), strings.Join(names, "\n")
}

// gitStatus is the user's repository as git reports it: a snapshot or a
// rollback must leave the index (and so this) exactly as the files make it.
func (w *world) gitStatus() string {
	w.t.Helper()
	c := exec.Command("git", "status", "--porcelain=v1", "-uall")
	c.Dir = w.root
	out, err := c.Output()
	if err != nil {
		w.t.Fatal(err)
	}
	return string(out)
}

// Every way a file changes is found from the work tree: an edit, a file
// written by a heredoc, sed -i, mv, rm, chmod; an ignored file, the user's
// edit made before the run and the files the run did not touch are not
// the run's.
func TestSnapshotFindsEveryChange(t *testing.T) {
	t.Parallel()
	w := newWorld(t, true)
	index, objects := w.userRepo()
	base := w.take("baseline")
	if base.Step != 0 || len(base.Files) != 0 || base.State.Tree != base.State.Baseline || base.RunID != w.run {
		t.Fatalf("baseline: %+v", base)
	}
	w.write("a.txt", "a, edited\n")
	w.sh(`cat > new.txt <<'EOF'
made by a heredoc
EOF
sed -i.bak 's/b/B/' b.txt && rm b.txt.bak
mv pkg/c.go pkg/moved.go
rm dirty.txt.nope 2>/dev/null; echo log > build.log
chmod +x a.txt`)
	s := w.take("calls")
	want := []string{"a.txt", "b.txt", "new.txt", "pkg/c.go", "pkg/moved.go"}
	if s.Step != 1 || !reflect.DeepEqual(s.Files, want) {
		t.Fatalf("step %d files_modified %q, want %q", s.Step, s.Files, want)
	}
	if i, o := w.userRepo(); i != index || o != objects {
		t.Fatal("a snapshot wrote to the user's index or object store")
	}
	w.sh("rm new.txt")
	if s := w.take("calls"); !reflect.DeepEqual(s.Files, []string{"a.txt", "b.txt", "pkg/c.go", "pkg/moved.go"}) {
		t.Fatalf("a file created then removed is no change: %q", s.Files)
	}
	if st := w.gitStatus(); !strings.Contains(st, " M a.txt") || strings.Contains(st, "M  ") {
		t.Fatalf("the user's index changed:\n%s", st)
	}
}

// The file is in the seed's format, exactly: five members in its order.
func TestSnapshotFileFormat(t *testing.T) {
	t.Parallel()
	w := newWorld(t, true)
	w.take("baseline")
	w.write("a.txt", "changed\n")
	s := w.take("calls")
	b, err := os.ReadFile(s.Path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	keys := []string{`"run_id": "run-1"`, `"step": 1`, `"timestamp": "2026-11-30T12:02:00Z"`, `"state_snapshot": "{\"v\":1,`, `"files_modified": [`}
	last := -1
	for _, k := range keys {
		i := strings.Index(text, k)
		if i < 0 || i < last {
			t.Fatalf("%s missing or out of order in\n%s", k, text)
		}
		last = i
	}
	if strings.Count(text, "\n  \"") != 5 || filepath.Base(s.Path) != "snapshot-000001.json" {
		t.Fatalf("not exactly five members, or misnamed (%s):\n%s", s.Path, text)
	}
	fi, _ := os.Stat(s.Path)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("snapshot file mode %v, want 0600", fi.Mode().Perm())
	}
}

// A rollback restores only the run's files as they were at the snapshot,
// removes a file created since, keeps the user's own edit and every other
// file, and can itself be rolled back.
func TestRollbackAndUndo(t *testing.T) {
	t.Parallel()
	w := newWorld(t, true)
	w.take("baseline")
	w.call("c1", func() { w.write("a.txt", "a, run 1\n") })
	w.take("calls")
	w.call("c2", func() {
		w.write("a.txt", "a, run 2\n")
		w.write("pkg/new/deep.go", "package deep\n")
		w.sh("rm b.txt && echo ignored > x.log")
		w.write("untouched-later.txt", "x") // created after snapshot 1 too: removed
	})
	statusBefore := w.gitStatus()

	plan, err := w.rollback(1, true)
	if err != nil || plan.Undo != -1 || !reflect.DeepEqual(plan.Restore, []string{"a.txt", "b.txt"}) ||
		!reflect.DeepEqual(plan.Remove, []string{"pkg/new/deep.go", "untouched-later.txt"}) {
		t.Fatalf("dry run: %+v, %v", plan, err)
	}
	if w.read("a.txt") != "a, run 2\n" || len(mustList(t, w)) != 2 {
		t.Fatal("a dry run changed something")
	}

	plan, err = w.rollback(1, false)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Undo != 2 || w.read("a.txt") != "a, run 1\n" || w.read("b.txt") != "b\n" || w.exists("pkg/new/deep.go") || w.exists("pkg/new") ||
		w.exists("untouched-later.txt") || w.read("dirty.txt") != "the user's own edit, before the run\n" || w.read("x.log") != "ignored\n" || w.read("pkg/c.go") != "package pkg\n" {
		t.Fatalf("after the rollback (plan %+v): a=%q b=%q dirty=%q", plan, w.read("a.txt"), w.read("b.txt"), w.read("dirty.txt"))
	}

	if _, err := w.rollback(plan.Undo, false); err != nil {
		t.Fatal(err)
	}
	if w.read("a.txt") != "a, run 2\n" || w.exists("b.txt") || w.read("pkg/new/deep.go") != "package deep\n" || w.read("untouched-later.txt") != "x" {
		t.Fatal("the undo did not bring the state before the rollback back")
	}
	if st := w.gitStatus(); st != statusBefore {
		t.Fatalf("git sees another state after rollback and undo:\n%s\nwant\n%s", st, statusBefore)
	}
}

func mustList(t *testing.T, w *world) []Snapshot {
	ss, err := List(w.h, w.run)
	if err != nil {
		t.Fatal(err)
	}
	return ss
}

// A file replaced by a directory holding a file no snapshot has (an
// ignored one) cannot be restored without deleting it: the rollback fails
// whole, changes nothing, and names the path.
func TestRollbackRefusesAndChangesNothing(t *testing.T) {
	t.Parallel()
	w := newWorld(t, true)
	w.take("baseline")
	w.call("c1", func() {
		w.write("a.txt", "a, run\n")
		w.sh("rm b.txt && mkdir b.txt && echo cache > b.txt/cache.log")
	})
	_, err := w.rollback(0, false)
	var re *RollbackError
	if !errors.As(err, &re) || len(re.Problems) != 1 || re.Problems[0].Path != "b.txt" || !strings.Contains(re.Problems[0].Why, "b.txt/cache.log") || len(re.Applied) != 0 {
		t.Fatalf("err %v (%+v)", err, re)
	}
	if w.read("a.txt") != "a, run\n" || w.read("b.txt/cache.log") != "cache\n" {
		t.Fatal("a refused rollback changed files")
	}
	if !reflect.DeepEqual(re.Plan.Modified, []string{"a.txt", "b.txt"}) || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("modified %q, error %v", re.Plan.Modified, err)
	}
	// A directory that holds only what the run created is no obstacle.
	w.call("c2", func() { w.sh("rm b.txt/cache.log && echo x > b.txt/made.go") })
	if _, err := w.rollback(0, false); err != nil || w.read("b.txt") != "b\n" || w.read("a.txt") != "a\n" {
		t.Fatalf("err %v, b.txt %q", err, w.read("b.txt"))
	}
}

// A failure the checks cannot foresee, midway: what was changed is put
// back as it was.
func TestRollbackFailureMidwayPutsBack(t *testing.T) {
	// Not parallel: it sets the package's failAfter, which every other test reads
	// (the parallel ones start after the serial ones end).
	w := newWorld(t, true)
	w.take("baseline")
	w.call("c1", func() {
		w.write("a.txt", "a, run\n")
		w.write("b.txt", "b, run\n")
		w.write("c.txt", "created\n")
	})
	failAfter.Store(2)
	defer failAfter.Store(0)
	_, err := w.rollback(0, false)
	var re *RollbackError
	if !errors.As(err, &re) || len(re.Applied) != 2 || !re.Reverted {
		t.Fatalf("err %v (%+v)", err, re)
	}
	if w.read("a.txt") != "a, run\n" || w.read("b.txt") != "b, run\n" || w.read("c.txt") != "created\n" {
		t.Fatalf("not put back: a=%q b=%q c=%q", w.read("a.txt"), w.read("b.txt"), w.read("c.txt"))
	}
}

// A folder this user cannot write fails the rollback before anything is
// changed (root writes anywhere: skipped there).
func TestRollbackReadOnlyFolder(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		t.Skip("root may write a read-only folder")
	}
	w := newWorld(t, true)
	w.take("baseline")
	w.call("c1", func() {
		w.write("a.txt", "a, run\n")
		w.write("pkg/c.go", "package pkg // run\n")
	})
	if err := os.Chmod(filepath.Join(w.root, "pkg"), 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(filepath.Join(w.root, "pkg"), 0o755)
	_, err := w.rollback(0, false)
	var re *RollbackError
	if !errors.As(err, &re) || len(re.Problems) != 1 || re.Problems[0].Path != "pkg/c.go" || w.read("a.txt") != "a, run\n" {
		t.Fatalf("err %v (%+v), a=%q", err, re, w.read("a.txt"))
	}
}

// Outside a repository the project folder itself is snapshotted.
func TestSnapshotOutsideGit(t *testing.T) {
	t.Parallel()
	w := newWorld(t, false)
	w.take("baseline")
	w.call("c1", func() {
		w.write("a.txt", "changed\n")
		w.write("made.txt", "new\n")
	})
	if s := w.take("calls"); !reflect.DeepEqual(s.Files, []string{"a.txt", "made.txt"}) {
		t.Fatalf("files_modified %q", s.Files)
	}
	if _, err := w.rollback(0, false); err != nil || w.read("a.txt") != "a\n" || w.exists("made.txt") {
		t.Fatalf("err %v", err)
	}
}

// A file too large to copy is listed as not captured, never rolled back.
func TestLargeFileNotCaptured(t *testing.T) {
	// Not parallel: it sets the package's MaxFileBytes, which every other test reads
	// (the parallel ones start after the serial ones end).
	w := newWorld(t, true)
	old := MaxFileBytes
	MaxFileBytes = 100
	defer func() { MaxFileBytes = old }()
	w.take("baseline")
	w.write("big.bin", strings.Repeat("x", 200))
	s := w.take("calls")
	if len(s.Files) != 0 || !reflect.DeepEqual(s.State.NotCaptured, []string{"big.bin"}) {
		t.Fatalf("files %q, not captured %q", s.Files, s.State.NotCaptured)
	}
	if _, err := w.rollback(0, false); err != nil || !w.exists("big.bin") {
		t.Fatalf("err %v; a file no snapshot holds was removed", err)
	}
}

// stop --revert keeps what the run committed and reverts the rest.
func TestRevertKeepsCommitted(t *testing.T) {
	t.Parallel()
	w := newWorld(t, true)
	w.take("baseline")
	w.call("c1", func() {
		w.write("a.txt", "a, committed by the run\n")
		w.write("b.txt", "b, not committed\n")
		w.sh("git add a.txt && git -c user.email=t@e -c user.name=t -c maintenance.auto=false commit -qm run")
	})
	w.n++
	plan, err := Rollback(w.h, RollbackRequest{Request: Request{Session: "s1", Run: w.run, Reason: "stop", Now: t0}, To: 0, Uncommitted: true})
	if err != nil || !reflect.DeepEqual(plan.Kept, []string{"a.txt"}) || !reflect.DeepEqual(plan.Restore, []string{"b.txt"}) {
		t.Fatalf("plan %+v, err %v", plan, err)
	}
	if w.read("a.txt") != "a, committed by the run\n" || w.read("b.txt") != "b\n" {
		t.Fatal("wrong files reverted")
	}
}

// A state dir inside the work tree is never snapshotted.
func TestStateDirInsideTreeExcluded(t *testing.T) {
	t.Parallel()
	w := newWorld(t, true)
	w.h = store.Home{Dir: filepath.Join(w.root, ".state")}
	w.take("baseline")
	w.write("a.txt", "x\n")
	if s := w.take("calls"); !reflect.DeepEqual(s.Files, []string{"a.txt"}) {
		t.Fatalf("files_modified %q", s.Files)
	}
}

// A snapshot with no baseline says why it cannot tell the run's changes.
func TestNoBaseline(t *testing.T) {
	t.Parallel()
	w := newWorld(t, true)
	_, err := Take(w.h, Request{Run: w.run, Reason: "calls", Dir: w.root, Now: t0})
	if !errors.Is(err, ErrNoBaseline) {
		t.Fatalf("err %v", err)
	}
}

// A run whose work tree is gone is neither snapshotted nor rolled back
// (a rollback would create the folder again).
func TestWorkTreeGone(t *testing.T) {
	t.Parallel()
	w := newWorld(t, true)
	w.take("baseline")
	if err := os.Rename(w.root, w.root+".moved"); err != nil {
		t.Fatal(err)
	}
	if _, err := Take(w.h, Request{Run: w.run, Reason: "calls", Now: t0}); err == nil || !strings.Contains(err.Error(), "is not there any more") {
		t.Fatalf("snapshot: %v", err)
	}
	if _, err := w.rollback(0, false); err == nil || w.exists(".") {
		t.Fatalf("rollback: %v", err)
	}
}

// Files git does not track are copied into the snapshot's store, so their
// total is bounded: outside a repository a folder of large files is not
// snapshotted (a clear error) instead of filling the state dir.
func TestUntrackedBytesBounded(t *testing.T) {
	// Not parallel: it sets the package's maxUntrackedBytes, which every other test reads
	// (the parallel ones start after the serial ones end).
	w := newWorld(t, false)
	old := maxUntrackedBytes
	maxUntrackedBytes = 300
	defer func() { maxUntrackedBytes = old }()
	w.write("one.bin", strings.Repeat("x", 200))
	w.write("two.bin", strings.Repeat("y", 200))
	w.n++
	_, err := Take(w.h, Request{Session: "s1", Run: w.run, Task: 1, Reason: "baseline", Calls: 0, Dir: w.root, Now: t0})
	if err == nil || !strings.Contains(err.Error(), "MiB of new files") {
		t.Fatalf("err %v, want the bound", err)
	}
}

// A git killed mid-write leaves the run's index.lock behind; once it is
// older than any live git holds it, the run's next snapshot and rollback
// clear it. A fresh one is a live git's: left alone.
func TestStaleIndexLockIsCleared(t *testing.T) {
	t.Parallel()
	w := newWorld(t, true)
	w.take("baseline")
	w.call("c1", func() { w.write("a.txt", "a, run 1\n") })
	lock := filepath.Join(w.h.RunDir(w.run), "index.lock")
	if _, err := os.Stat(filepath.Join(w.h.RunDir(w.run), "index")); err != nil {
		t.Fatalf("the run's index: %v", err)
	}
	if err := os.WriteFile(lock, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-2 * staleIndexLock)
	if err := os.Chtimes(lock, old, old); err != nil {
		t.Fatal(err)
	}
	w.take("calls")
	if _, err := w.rollback(0, false); err != nil {
		t.Fatalf("a rollback over a stale index.lock: %v", err)
	}
	if w.read("a.txt") != "a\n" {
		t.Fatalf("a.txt = %q after the rollback", w.read("a.txt"))
	}
	if _, err := os.Stat(lock); !os.IsNotExist(err) {
		t.Fatalf("the stale lock is still there: %v", err)
	}
	// A live git's lock (fresh) is not taken.
	if err := os.WriteFile(lock, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(lock); err != nil {
		t.Fatal(err)
	}
	(git{dir: t.TempDir(), index: filepath.Join(w.h.RunDir(w.run), "index")}).clearStaleIndexLock()
	if _, err := os.Stat(lock); err != nil {
		t.Fatalf("a fresh lock was removed: %v", err)
	}
}
