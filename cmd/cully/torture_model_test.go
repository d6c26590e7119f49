//go:build linux

package main

import (
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The model of torture_test.go: the work tree as the test expects it, the
// log of who changed each path, the snapshots each session's run has (each
// with the moment it was taken), and the checks of every invariant.

// storeCap is the largest file a snapshot holds (runs.MaxFileBytes,
// docs/run-control.md: "files larger than 64 MiB ... not captured"). No
// environment variable or config setting lowers it, so the test makes a
// sparse file of storeCap+1 bytes to go past it.
const storeCap = 64 << 20

// entry is one path of the tree: a file (its permission bits and content),
// a symlink (its target) or a special file (a FIFO).
type entry struct {
	kind   byte // 'f' file, 'l' symlink, 'p' FIFO or other special file
	perm   fs.FileMode
	size   int64
	sum    [32]byte
	target string
	head   string // the content's first bytes, for messages
}

func (e *entry) String() string {
	if e == nil {
		return "absent"
	}
	switch e.kind {
	case 'l':
		return fmt.Sprintf("symlink -> %q", e.target)
	case 'p':
		return "special file (FIFO)"
	}
	h := e.head
	if len(h) > 32 {
		h = h[:32]
	}
	head := strconv.Quote(h)
	if int64(len(h)) < e.size {
		head += "…"
	}
	return fmt.Sprintf("file %04o %d B %s", e.perm, e.size, head)
}

// same compares two entries as run control keeps them: kind, content,
// link target and the executable bit. Git, and so a snapshot, holds no
// other permission bit: a rollback keeps a file's others as they are, and
// a file it brings back gets the defaults (docs/run-control.md).
func same(a, b *entry) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.kind == b.kind && a.perm&0o100 == b.perm&0o100 && a.sum == b.sum && a.target == b.target
}

// holdable: what a snapshot can hold, so a rollback can put back: a file
// up to the cap, a symlink, or nothing.
func holdable(e *entry) bool {
	return e == nil || e.kind == 'l' || e.kind == 'f' && e.size <= storeCap
}

// content is what invariant 5 follows: a file's bytes or a link's target,
// whatever path or mode they end up with.
func (e *entry) content() (string, bool) {
	switch {
	case e == nil || e.kind == 'p':
		return "", false
	case e.kind == 'l':
		return "link:" + e.target, true
	}
	return fmt.Sprintf("file:%x", e.sum), true
}

type fileTree map[string]*entry

func (t fileTree) clone() fileTree {
	c := make(fileTree, len(t))
	for k, v := range t {
		c[k] = v
	}
	return c
}

func (t fileTree) contents() map[string]bool {
	m := map[string]bool{}
	for _, e := range t {
		if c, ok := e.content(); ok {
			m[c] = true
		}
	}
	return m
}

// differ lists the paths whose entries differ, in order.
func differ(a, b fileTree) []string {
	var out []string
	for p, e := range a {
		if !same(e, b[p]) {
			out = append(out, p)
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// edit is one change of one path in the model's log.
type edit struct {
	path, who     string // who: a session's name ("A", "B") or "user"
	op            int
	before, after *entry
}

// step is a snapshot of a session's run: at is the log's length when it
// was taken, tree the tree then.
type snapStep struct {
	at   int
	tree fileTree
}

type statKey struct {
	dev, ino, size, mtime, ctime int64
}

// scan reads the repository's whole tree, .git aside: every file's mode and
// content, every symlink's target, every special file. Directories are
// not entries (git holds none), but every path below them is.
func (w *world) scan() fileTree {
	t := fileTree{}
	err := filepath.WalkDir(w.repo, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(w.repo, p)
		rel = filepath.ToSlash(rel)
		switch {
		case rel == ".":
			return nil
		case rel == ".git":
			return filepath.SkipDir
		case d.IsDir():
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		t[rel], err = w.readEntry(p, fi)
		return err
	})
	if err != nil {
		w.rt.Fatalf("scan the tree: %v", err)
	}
	return t
}

func (w *world) readEntry(p string, fi fs.FileInfo) (*entry, error) {
	e := &entry{perm: fi.Mode().Perm(), size: fi.Size()}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(p)
		e.kind, e.target, e.perm, e.size = 'l', target, 0, 0
		return e, err
	case !fi.Mode().IsRegular():
		e.kind, e.perm, e.size = 'p', 0, 0
		return e, nil
	}
	e.kind = 'f'
	st := fi.Sys().(*syscall.Stat_t)
	key := statKey{int64(st.Dev), int64(st.Ino), fi.Size(), st.Mtim.Nano(), st.Ctim.Nano()}
	if c, ok := w.sums[key]; ok && fi.Size() > 1<<20 {
		e.sum, e.head = c.sum, c.head
		return e, nil
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	var head [64]byte
	n, _ := io.ReadFull(f, head[:])
	h.Write(head[:n])
	if _, err := io.Copy(h, f); err != nil {
		return nil, err
	}
	h.Sum(e.sum[:0])
	e.head = string(head[:n])
	if fi.Size() > 1<<20 {
		w.sums[key] = e
	}
	return e, nil
}

// hashes maps each file below dir (all of it: no exception) to a digest of
// its mode and content, for invariant 4.
func hashes(dir string, skip func(rel string) bool) map[string]string {
	out := map[string]string{}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(dir, p)
		if err != nil {
			out[rel] = "unreadable: " + err.Error()
			return nil
		}
		if skip != nil && skip(rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil {
			out[rel] = err.Error()
			return nil
		}
		switch {
		case fi.IsDir():
			out[rel+"/"] = fi.Mode().String()
		case fi.Mode()&fs.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			out[rel] = "-> " + l
		default:
			b, _ := os.ReadFile(p)
			out[rel] = fmt.Sprintf("%v %x", fi.Mode(), sha256.Sum256(b))
		}
		return nil
	})
	return out
}

// outerState is what no rollback may change: the repository's .git (its
// index, HEAD, refs, config, logs and the names of its objects; the
// content of objects aside, as git writes them whole) and the sibling
// folder outside the repository.
func (w *world) outerState() map[string]string {
	st := map[string]string{}
	for k, v := range hashes(filepath.Join(w.repo, ".git"), func(rel string) bool { return strings.HasPrefix(rel, "objects"+string(filepath.Separator)) }) {
		st[".git/"+k] = v
	}
	_ = filepath.WalkDir(filepath.Join(w.repo, ".git", "objects"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(w.repo, p)
			st[rel] = "object"
		}
		return nil
	})
	for k, v := range hashes(w.outside, nil) {
		st["../outside/"+k] = v
	}
	return st
}

func mapDiff(a, b map[string]string) []string {
	var out []string
	for k, v := range a {
		if b[k] != v {
			out = append(out, fmt.Sprintf("%s: %q -> %q", k, v, b[k]))
		}
	}
	for k, v := range b {
		if _, ok := a[k]; !ok {
			out = append(out, fmt.Sprintf("%s: absent -> %q", k, v))
		}
	}
	sort.Strings(out)
	return out
}

// expect is what a rollback of session s to a step leaves: every path whose
// last change since that step was the session's own (its calls, its
// rollbacks) goes back to what it was after the last change of anyone
// else since the step, or at the step when nobody else changed it; every
// other path stays as it is. blocked lists the paths the rollback would
// have to change and cannot: their content now or then no snapshot can
// hold (past the size cap, a special file), or the two outcomes cannot
// both stand (a file where another path needs a folder).
func (w *world) expect(s *session, to int) (exp fileTree, blocked []string, why map[string]string) {
	st := s.steps[to]
	exp, why = w.cur.clone(), map[string]string{}
	byPath := map[string][]edit{}
	for _, e := range w.log[st.at:] {
		byPath[e.path] = append(byPath[e.path], e)
	}
	for p, es := range byPath {
		if byPath[p] = asSeen(s, es); len(byPath[p]) == 0 {
			delete(byPath, p) // changes the session cannot see: they cancel out
		}
	}
	for p := range w.cur {
		if byPath[p] == nil {
			why[p] = fmt.Sprintf("not changed since step %d", to)
		}
	}
	for p, es := range byPath {
		other := -1
		for i, e := range es {
			if e.who != s.name {
				other = i
			}
		}
		if other == len(es)-1 {
			why[p] = fmt.Sprintf("kept: last changed by %s (op %d)", who(es[other].who), es[other].op)
			continue
		}
		val := st.tree[p]
		why[p] = fmt.Sprintf("reverted to step %d: changed since by session %s (op %d)", to, s.name, es[other+1].op)
		if other >= 0 {
			val = es[other].after
			why[p] = fmt.Sprintf("reverted to %s's change of op %d: changed after it by session %s (op %d)", who(es[other].who), es[other].op, s.name, es[other+1].op)
		}
		if same(val, w.cur[p]) {
			continue
		}
		// What no snapshot can hold is outside cully's view: a path whose
		// content then was not held (a FIFO, a file past the cap) cannot be
		// put back and is left as it is, listed; a path not held now, where
		// nothing stood then, is left too (cully never removes what it
		// cannot give back, and cannot tell who made it). A path not held
		// now that the rollback would overwrite with held content blocks it.
		if !holdable(val) || !holdable(w.cur[p]) && val == nil {
			why[p] = "left: no snapshot holds it (" + why[p] + ")"
			continue
		}
		if !holdable(w.cur[p]) {
			blocked = append(blocked, p)
		}
		if val == nil {
			delete(exp, p)
		} else {
			exp[p] = val
		}
	}
	for p := range exp {
		for d := pathDir(p); d != ""; d = pathDir(d) {
			if exp[d] != nil && (!same(exp[d], w.cur[d]) || !same(exp[p], w.cur[p])) {
				blocked = append(blocked, p, d)
			}
		}
	}
	sort.Strings(blocked)
	return exp, slices.Compact(blocked), why
}

// asSeen is a path's edits as session s can tell them: s sees the tree
// only around its own calls and rollbacks, so the others' edits between
// two of its looks are one change (the first's before, the last's after),
// and none at all when they cancel out (a file stashed and popped back).
func asSeen(s *session, es []edit) []edit {
	gap := func(op int) int { // how many of s's looks came before op
		n := 0
		for _, o := range s.seen {
			if o < op {
				n++
			}
		}
		return n
	}
	var out []edit
	for i := 0; i < len(es); {
		e := es[i]
		if e.who == s.name {
			out = append(out, e)
			i++
			continue
		}
		j, g := i+1, gap(e.op)
		for j < len(es) && es[j].who != s.name && gap(es[j].op) == g {
			j++
		}
		merged := es[j-1]
		merged.before = e.before
		if !same(merged.before, merged.after) {
			out = append(out, merged)
		}
		i = j
	}
	return out
}

func who(name string) string {
	if name == "user" {
		return "the user"
	}
	return "session " + name
}

func pathDir(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

// The invariants (docs: torture_test.go), and the checks that are not
// among them: H, the tree changed where no operation changed it (a hook
// call, a background snapshot); S, a snapshot failed; D, a dry run
// disagreed with its rollback or changed something.
const (
	invReverted  = "1"
	invIntact    = "2"
	invUndo      = "3"
	invOuter     = "4"
	invNoLoss    = "5"
	invCannot    = "6"
	chkQuiet     = "H"
	chkSnapshot  = "S"
	chkDryRun    = "D"
	invariantAll = "1,2,3,4,5,6,H,S,D"
)

var invariantNames = map[string]string{
	invReverted: "the agent's changes since the target are reverted",
	invIntact:   "every other change is intact",
	invUndo:     "the undo restores the state before the rollback, byte for byte",
	invOuter:    "nothing outside the repository and nothing in .git changed",
	invNoLoss:   "no content is lost: what a rollback took out comes back with its undo",
	invCannot:   "a rollback that cannot restore something changes nothing and exits 1 naming the path",
	chkQuiet:    "the tree changes only by the operations",
	chkSnapshot: "snapshots succeed",
	chkDryRun:   "--dry-run changes nothing and lists what the rollback then restores and removes",
}

// violated fails the case for an enforced invariant. Each invariant is
// checked at a place of its own, and rapid's shrinker keeps a smaller case
// only when it fails from the same place, so a case shrinks to the
// smallest that breaks the same invariant. An invariant left out with
// CULLY_TORTURE_ONLY is logged, and the model follows the tree as it is.
func (w *world) violated(inv, format string, args ...any) {
	w.rt.Helper()
	what := "invariant"
	if inv == chkQuiet || inv == chkSnapshot || inv == chkDryRun {
		what = "check"
	}
	msg := fmt.Sprintf("%s %s (%s) broken at op %d: ", what, inv, invariantNames[inv], w.op) + fmt.Sprintf(format, args...)
	if !w.enforced[inv] {
		w.rt.Logf("NOT ENFORCED: %s", msg)
		return
	}
	if shrinking.failedAt.IsZero() {
		shrinking.failedAt = time.Now()
	}
	w.dumpOps()
	w.rt.Fatalf("%s", msg)
}

// dumpOps logs the case's operations, one a line, before a failure.
func (w *world) dumpOps() {
	w.rt.Logf("the case's operations:\n  %s", strings.Join(w.ops, "\n  "))
}

// describe says, path by path, what the tree has and what the model
// expected (and why).
func describe(paths []string, got, want fileTree, why map[string]string) string {
	var b strings.Builder
	for _, p := range paths {
		fmt.Fprintf(&b, "\n    %q: tree has %v; model expects %v", p, got[p], want[p])
		if r := why[p]; r != "" {
			b.WriteString(" (" + r + ")")
		}
	}
	return b.String()
}
