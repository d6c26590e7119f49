package runs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
)

// undoOf is the changes that put back the paths already changed: the same
// changes seen from the other side.
func undoOf(cs []change, applied []string, now string) []change {
	done := map[string]bool{}
	for _, p := range applied {
		done[p] = true
	}
	var back []change
	for _, c := range cs {
		if done[c.Path] {
			back = append(back, change{Path: c.Path, ModeA: c.ModeB, ModeB: c.ModeA, IDA: c.IDB, IDB: c.IDA, Tree: now})
		}
	}
	return back
}

// failAfter, when set by a test, makes apply fail after changing that
// many paths (a failure the preflight cannot foresee: a full disk, an
// immutable file).
var failAfter atomic.Int64

// apply makes each change's path as its tree has it (A side: the change's
// Tree, else tree): written from it, or removed where it has none. Content
// comes out of git byte for byte (the store's attributes turn every
// conversion off; checkout-index into a staging folder of the run), then
// is copied next to its path and renamed over it. It returns the paths it
// changed. best: go on past errors (when putting things back).
func apply(g git, dir, root, tree string, cs []change, best bool) ([]string, error) {
	var writes, removes []string
	for _, c := range cs {
		if c.inA() {
			writes = append(writes, c.Path)
		} else {
			removes = append(removes, c.Path)
		}
	}
	stage := filepath.Join(dir, stageDir)
	_ = os.RemoveAll(stage)
	defer os.RemoveAll(stage)
	// Each change's content comes from its own tree (Tree; tree when
	// unset), staged in a folder of that tree's.
	staged := map[string]string{}
	if len(writes) > 0 {
		if err := os.Mkdir(stage, 0o700); err != nil {
			return nil, err
		}
		byTree := map[string][]string{}
		var order []string
		for _, c := range cs {
			if !c.inA() {
				continue
			}
			t := c.Tree
			if t == "" {
				t = tree
			}
			if _, ok := byTree[t]; !ok {
				order = append(order, t)
			}
			byTree[t] = append(byTree[t], c.Path)
		}
		idx := filepath.Join(dir, "rollback.index")
		defer os.Remove(idx)
		gi := g.withIndex(idx)
		for i, t := range order {
			sub := filepath.Join(stage, strconv.Itoa(i))
			if err := os.Mkdir(sub, 0o700); err != nil {
				return nil, err
			}
			if _, err := gi.out(nil, "read-tree", t); err != nil {
				return nil, err
			}
			if _, err := gi.out(nulJoin(byTree[t]), "checkout-index", "-z", "--stdin", "-f", "--prefix="+sub+string(filepath.Separator)); err != nil {
				return nil, err
			}
			for _, p := range byTree[t] {
				staged[p] = filepath.Join(sub, filepath.FromSlash(p))
			}
		}
	}
	var done []string
	var firstErr error
	step := func(path string, err error) bool {
		if err == nil {
			done = append(done, path)
			if n := failAfter.Load(); n > 0 && int64(len(done)) >= n {
				err = &os.PathError{Op: "write", Path: filepath.Join(root, path), Err: errors.New("injected failure")}
				failAfter.Store(0)
			} else {
				return true
			}
		}
		if firstErr == nil {
			firstErr = err
		}
		return best
	}
	sort.Sort(sort.Reverse(sort.StringSlice(removes))) // deepest first
	for _, r := range removes {
		err := os.Remove(filepath.Join(root, filepath.FromSlash(r)))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if !step(r, err) {
			return done, firstErr
		}
	}
	for _, w := range writes {
		if !step(w, place(staged[w], filepath.Join(root, filepath.FromSlash(w)))) {
			return done, firstErr
		}
	}
	if len(removes) > 0 {
		pruneDirs(g, root, tree, removes)
	}
	return done, firstErr
}

// place puts the staged file or link at target: a directory in the way
// (emptied by the plan's removals) is removed first, then the content is
// copied beside target and renamed over it. A file keeps its permissions
// but for the executable bits, which are the snapshot's.
func place(staged, target string) error {
	src, err := os.Lstat(staged)
	if err != nil {
		return err
	}
	if fi, err := os.Lstat(target); err == nil && fi.IsDir() {
		if err := removeEmptyDirs(target); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o777); err != nil {
		return err
	}
	tmp := tempBeside(target)
	if src.Mode()&fs.ModeSymlink != 0 {
		link, err := os.Readlink(staged)
		if err != nil {
			return err
		}
		if err := os.Symlink(link, tmp); err != nil {
			return err
		}
		if err := os.Rename(tmp, target); err != nil {
			os.Remove(tmp)
			return err
		}
		return nil
	}
	perm := src.Mode().Perm()
	if old, err := os.Lstat(target); err == nil && old.Mode().IsRegular() {
		perm = old.Mode().Perm() &^ 0o111
		if src.Mode()&0o100 != 0 {
			perm |= (old.Mode().Perm() & 0o444) >> 2
		}
	}
	if err := copyFile(staged, tmp, perm); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, target); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

var tempSeq atomic.Int64

func tempBeside(target string) string {
	return filepath.Join(filepath.Dir(target), "."+filepath.Base(target)+".cully-"+strconv.Itoa(os.Getpid())+"-"+strconv.FormatInt(tempSeq.Add(1), 10))
}

func copyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Chmod(perm); err != nil { // the umask is not the file's business
		out.Close()
		return err
	}
	return out.Close()
}

// removeEmptyDirs removes a directory tree that holds no file (its files
// were removed by the plan).
func removeEmptyDirs(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if !e.IsDir() {
			return fmt.Errorf("%s still holds %s", dir, e.Name())
		}
		if err := removeEmptyDirs(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return os.Remove(dir)
}

// pruneDirs removes the folders left empty by removed files, where the
// tree has no such folder (the run created them); never the root.
func pruneDirs(g git, root, tree string, removed []string) {
	out, err := g.out(nil, "ls-tree", "-r", "-d", "-z", "--name-only", tree)
	if err != nil {
		return
	}
	keep := map[string]bool{}
	for _, d := range nulFields(out) {
		keep[d] = true
	}
	for _, r := range removed {
		for d := pathDir(r); d != "" && !keep[d]; d = pathDir(d) {
			full := filepath.Join(root, filepath.FromSlash(d))
			if fi, err := os.Lstat(full); err != nil || !fi.IsDir() || os.Remove(full) != nil {
				break // not a folder (the file restored there), not empty, or not there
			}
		}
	}
}

func pathDir(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

// problemOf is the failing path of an error from apply.
func problemOf(root string, err error) Problem {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return Problem{Path: rel(root, pe.Path), Why: pe.Err.Error()}
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return Problem{Path: rel(root, le.New), Why: le.Err.Error()}
	}
	return Problem{Path: ".", Why: err.Error()}
}
