package runs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// call runs fn as an agent's tool call: a pre mark, the change, a post
// mark, as the hook does around a call that may change files.
func (w *world) call(id string, fn func()) {
	w.t.Helper()
	w.mark("pre", id, "")
	fn()
	w.mark("post", id, "")
}

func (w *world) mark(kind, id, destructive string) *MarkResult {
	w.t.Helper()
	w.n++
	res, err := TakeMark(w.h, MarkRequest{Session: "s1", Run: w.run, Task: 1, Kind: kind, Call: id, Dir: w.root, Destructive: destructive, Now: t0.Add(time.Duration(w.n) * time.Second)})
	if err != nil {
		w.t.Fatalf("mark %s %s: %v", kind, id, err)
	}
	return res
}

// The first pre mark of a run takes its baseline: the state before the
// agent's first change, however late the prompt's own baseline is.
func TestFirstPreMarkTakesBaseline(t *testing.T) {
	t.Parallel()
	w := newWorld(t, true)
	res := w.mark("pre", "c1", "")
	if !res.Baseline {
		t.Fatal("the first pre mark took no baseline")
	}
	w.write("a.txt", "agent\n")
	w.mark("post", "c1", "")
	// The prompt's baseline, arriving late, is no baseline any more.
	s, err := Take(w.h, Request{Session: "s1", Run: w.run, Task: 1, Reason: "baseline", Dir: w.root, Now: t0.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if s.Step != 1 || !equal(s.Files, []string{"a.txt"}) {
		t.Fatalf("the late baseline: step %d files %q", s.Step, s.Files)
	}
	if _, err := w.rollback(0, false); err != nil {
		t.Fatal(err)
	}
	if got := w.read("a.txt"); got != "a\n" {
		t.Fatalf("a.txt %q, want the state before the agent's first change", got)
	}
}

// A rollback reverts what the agent's calls changed and leaves what the
// user changed between calls: a file only the user touched, and a file the
// user changed after the agent did. A file the user changed before the
// agent goes back to the user's version. The undo restores it all.
func TestRollbackRevertsOnlyTheAgents(t *testing.T) {
	t.Parallel()
	w := newWorld(t, true)
	w.mark("pre", "c0", "")
	w.mark("post", "c0", "")
	w.write("b.txt", "the user's, before the agent\n")
	w.call("c1", func() {
		w.write("a.txt", "agent\n")
		w.write("b.txt", "agent over the user's\n")
		w.write("new.txt", "agent made\n")
		w.write("pkg/c.go", "agent\n")
	})
	w.write("user.txt", "made by the user meanwhile\n")
	w.write("pkg/c.go", "the user's fix of the agent's edit\n")
	w.write("dirty.txt", "the user again\n")
	w.call("c2", func() { w.sh("rm a.txt") })
	before := w.snapshotTree()
	p, err := w.rollback(0, false)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"a.txt":     "a\n",
		"b.txt":     "the user's, before the agent\n",
		"user.txt":  "made by the user meanwhile\n",
		"pkg/c.go":  "the user's fix of the agent's edit\n",
		"dirty.txt": "the user again\n",
	}
	for f, c := range want {
		if got := w.read(f); got != c {
			t.Errorf("%s = %q, want %q", f, got, c)
		}
	}
	if w.exists("new.txt") {
		t.Error("new.txt, made by the agent, is still there")
	}
	for _, f := range []string{"user.txt", "pkg/c.go", "dirty.txt"} {
		if !contains(p.Outside, f) {
			t.Errorf("%s not listed as changed outside the agent's calls: %q", f, p.Outside)
		}
	}
	if _, err := w.rollback(p.Undo, false); err != nil {
		t.Fatal(err)
	}
	if after := w.snapshotTree(); after != before {
		t.Fatalf("the undo did not restore the state before:\n%s\nwant\n%s", after, before)
	}
}

// Another session's run in the same repository is another run: this
// run's rollback leaves its changes.
func TestOtherSessionsChangesLeft(t *testing.T) {
	t.Parallel()
	w := newWorld(t, true)
	w.call("c1", func() { w.write("a.txt", "mine\n") })
	other := &world{t: t, h: w.h, root: w.root, run: "run-2", n: w.n}
	other.call("o1", func() { other.write("b.txt", "the other session's\n") })
	w.call("c2", func() { w.write("pkg/c.go", "mine too\n") })
	if _, err := w.rollback(0, false); err != nil {
		t.Fatal(err)
	}
	if w.read("a.txt") != "a\n" || w.read("pkg/c.go") != "package pkg\n" {
		t.Fatal("this run's changes were not reverted")
	}
	if w.read("b.txt") != "the other session's\n" {
		t.Fatal("the other session's change was reverted")
	}
}

// A destructive command is snapshotted first, untracked files included:
// a rollback to that snapshot brings back what it threw away.
func TestDestructiveCommandUndoable(t *testing.T) {
	t.Parallel()
	w := newWorld(t, true)
	w.call("c1", func() {})
	w.write("scratch/notes.md", "uncommitted notes\n")
	w.write("a.txt", "uncommitted edit\n")
	res := w.mark("pre", "c2", "git reset --hard")
	if res.Snapshot == nil || res.Snapshot.State.Reason != "destructive" {
		t.Fatalf("no snapshot before the destructive command: %+v", res)
	}
	w.sh("git reset -q --hard && git clean -qfd")
	w.mark("post", "c2", "")
	if w.exists("scratch/notes.md") || w.read("a.txt") != "a\n" {
		t.Fatal("the command did not run as it should")
	}
	if _, err := w.rollback(res.Snapshot.Step, false); err != nil {
		t.Fatal(err)
	}
	if w.read("scratch/notes.md") != "uncommitted notes\n" || w.read("a.txt") != "uncommitted edit\n" {
		t.Fatalf("not recovered: notes %q, a.txt %q", w.read("scratch/notes.md"), w.read("a.txt"))
	}
}

// A call the user refused sends no post: once its mark is older than
// openFor, later changes are not taken for the agent's.
func TestOpenCallExpires(t *testing.T) {
	t.Parallel()
	w := newWorld(t, true)
	w.call("c1", func() {})
	w.mark("pre", "refused", "")
	w.n += int(openFor/time.Second) + 60
	w.write("b.txt", "the user's, long after\n")
	w.call("c2", func() { w.write("a.txt", "agent\n") })
	if _, err := w.rollback(0, false); err != nil {
		t.Fatal(err)
	}
	if w.read("b.txt") != "the user's, long after\n" || w.read("a.txt") != "a\n" {
		t.Fatalf("b.txt %q a.txt %q", w.read("b.txt"), w.read("a.txt"))
	}
}

// snapshotTree is the work tree's files and contents, for comparing.
func (w *world) snapshotTree() string {
	w.t.Helper()
	var b strings.Builder
	for _, f := range []string{"a.txt", "b.txt", "new.txt", "user.txt", "pkg/c.go", "dirty.txt", ".gitignore"} {
		b.WriteString(f + "=" + w.read(f) + "\n")
	}
	return b.String()
}

// A host with no hook before an edit (Cursor's afterFileEdit) gives only
// a post mark, naming the file: that file's change is the agent's, any
// other change in the same window is not.
func TestPostOnlyMarkNamesTheAgentsFiles(t *testing.T) {
	t.Parallel()
	w := newWorld(t, true)
	w.call("c0", func() {})
	w.write("b.txt", "the user's, meanwhile\n")
	w.write("a.txt", "the agent's edit\n")
	w.n++
	if _, err := TakeMark(w.h, MarkRequest{Session: "s1", Run: w.run, Kind: "post", Call: "e1", Dir: w.root, Paths: []string{"a.txt"}, Now: t0.Add(time.Duration(w.n) * time.Second)}); err != nil {
		t.Fatal(err)
	}
	p, err := w.rollback(0, false)
	if err != nil {
		t.Fatal(err)
	}
	if w.read("a.txt") != "a\n" || w.read("b.txt") != "the user's, meanwhile\n" || !contains(p.Outside, "b.txt") {
		t.Fatalf("a.txt %q b.txt %q outside %q", w.read("a.txt"), w.read("b.txt"), p.Outside)
	}
}

// A link the agent made where a folder was, then a folder again where the
// link is: the rollback and its undo go both ways (the undo once failed:
// it looked for the folder's file through the link).
func TestFolderAndLinkBothWays(t *testing.T) {
	t.Parallel()
	w := newWorld(t, true)
	w.call("c1", func() { w.sh("ln -s a.txt lnk") })
	s := w.take("calls")
	w.call("c2", func() { w.sh("rm lnk && mkdir lnk && echo inside > lnk/inner.txt") })
	p, err := w.rollback(s.Step, false)
	if err != nil {
		t.Fatal(err)
	}
	if target, err := os.Readlink(filepath.Join(w.root, "lnk")); err != nil || target != "a.txt" {
		t.Fatalf("lnk: %q %v", target, err)
	}
	if _, err := w.rollback(p.Undo, false); err != nil {
		t.Fatalf("the undo: %v", err)
	}
	if w.read("lnk/inner.txt") != "inside\n" {
		t.Fatalf("lnk/inner.txt %q", w.read("lnk/inner.txt"))
	}
}

// A file the user deleted and the agent's git stash brought back goes
// away again with a rollback: the agent's change is undone, the user's
// kept.
func TestAgentPutBackWhatTheUserRemoved(t *testing.T) {
	t.Parallel()
	w := newWorld(t, true)
	w.call("c0", func() {})
	w.sh("rm b.txt")
	w.call("c1", func() { w.sh("git checkout -- b.txt") })
	p, err := w.rollback(0, false)
	if err != nil {
		t.Fatal(err)
	}
	if w.exists("b.txt") || !contains(p.Remove, "b.txt") {
		t.Fatalf("b.txt is back: plan %+v", p)
	}
}

// Files not captured are written once, not again at every mark, and read
// back at every mark.
func TestMarksWriteSkippedOnce(t *testing.T) {
	// Not parallel: it sets the package's MaxFileBytes, which every other test reads
	// (the parallel ones start after the serial ones end).
	w := newWorld(t, true)
	old := MaxFileBytes
	MaxFileBytes = 100
	defer func() { MaxFileBytes = old }()
	w.write("big.bin", strings.Repeat("x", 200))
	for i := range 5 {
		w.call("c"+string(rune('0'+i)), func() { w.write("a.txt", strings.Repeat("a", i)) })
	}
	raw, err := os.ReadFile(filepath.Join(w.h.RunDir(w.run), marksFile))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(raw), "big.bin"); n != 1 {
		t.Fatalf("big.bin written %d times:\n%s", n, raw)
	}
	ms, err := readMarks(w.h.RunDir(w.run))
	if err != nil || len(ms) != 10 {
		t.Fatalf("%d marks, %v", len(ms), err)
	}
	for i, mk := range ms {
		if !equal(mk.Skipped, []string{"big.bin"}) {
			t.Fatalf("mark %d: skipped %q", i, mk.Skipped)
		}
	}
}

// A run whose first call is a destructive command: its baseline is the
// snapshot before it, and a rollback to it brings back what it removed.
func TestDestructiveFirstCall(t *testing.T) {
	t.Parallel()
	w := newWorld(t, true)
	w.write("scratch.txt", "untracked work\n")
	res := w.mark("pre", "c1", "git clean -f")
	if !res.Baseline || res.Snapshot == nil || res.Snapshot.Step != 0 {
		t.Fatalf("%+v", res)
	}
	w.sh("git clean -qf")
	w.mark("post", "c1", "")
	if _, err := w.rollback(0, false); err != nil {
		t.Fatal(err)
	}
	if w.read("scratch.txt") != "untracked work\n" {
		t.Fatal("not recovered")
	}
}

// A file the user wrote while an agent's edit of .gitignore hid it from the
// run's captures comes into view when a rollback
// puts .gitignore back. The rollback did not write it: its undo keeps it
// (torture seed 304 found the undo deleting it).
func TestUndoKeepsAFileTheRollbackUnhid(t *testing.T) {
	t.Parallel()
	w := newWorld(t, true)
	w.call("c0", func() { w.write("a.txt", "agent\n") })
	w.call("c1", func() { w.write(".gitignore", "*.log\n*.txt\n") })
	w.write("debug.txt", "the user's notes\n") // ignored now: no capture sees it
	p, err := w.rollback(0, false)
	if err != nil {
		t.Fatal(err)
	}
	if w.read(".gitignore") != "*.log\n" || w.read("debug.txt") != "the user's notes\n" {
		t.Fatal("the rollback did not put .gitignore back, or touched debug.log")
	}
	before := w.snapshotTree()
	if _, err := w.rollback(p.Undo, false); err != nil {
		t.Fatal(err)
	}
	if w.read("debug.txt") != "the user's notes\n" {
		t.Fatal("the undo removed debug.txt, a file the user wrote that no call or rollback touched")
	}
	if w.read(".gitignore") != "*.log\n*.txt\n" || w.read("a.txt") != "agent\n" {
		t.Fatalf("the undo did not restore the agent's work (tree before it:\n%s)", before)
	}
}

// The last mark's skipped list, read from the file's end: none before any
// mark; past a torn last line; through a SameSkipped run longer than the
// tail read; the list of the last mark that has one of its own.
func TestLastSkipped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, ok := lastSkipped(dir); ok {
		t.Fatal("a run with no marks has a last mark")
	}
	writeMarks(t, dir, 2000, true) // about 150 KiB: past the 16 KiB tail
	f, err := os.OpenFile(filepath.Join(dir, marksFile), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"kind":"post","call":"toolu_x","tr`) // torn by a full disk
	f.Close()
	if s, ok := lastSkipped(dir); !ok || len(s) != 1 || s[0] != "big.bin" {
		t.Fatalf("got %q %v, want [big.bin]", s, ok)
	}
	dir = t.TempDir()
	writeMarks(t, dir, 2000, true)
	if err := appendMark(dir, "", Mark{Kind: "pre", Call: "c", Tree: "t"}); err != nil {
		t.Fatal(err)
	}
	if s, ok := lastSkipped(dir); !ok || len(s) != 0 {
		t.Fatalf("after a mark that skips nothing: %q %v", s, ok)
	}
}
