package runs

import (
	"os"
	"path/filepath"
	"strings"

	"cully/store"
)

// maxUp bounds the walk from a folder up to its repository's top level.
const maxUp = 64

// Root is a session's project root, the folder its commands act in: the
// work tree of its run once the run's baseline is taken (run.json), else
// the git top level of the folder the agent last worked in (cwd), else
// that folder itself; with symlinks resolved. It is "" when neither is
// known (no baseline, and no folder given by the agent).
func Root(h store.Home, run, cwd string) string {
	if run != "" {
		if m, err := ReadMeta(h, run); err == nil {
			return Resolve(m.Root)
		}
	}
	if cwd == "" || !filepath.IsAbs(cwd) {
		return ""
	}
	return gitTop(Resolve(cwd))
}

// gitTop is the top level of the git work tree dir is in, found as git
// finds it (the nearest folder at or above dir holding .git, a folder or
// a worktree's file) without starting git; outside any, dir itself.
func gitTop(dir string) string {
	d := dir
	for range maxUp {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			break
		}
		d = up
	}
	return dir
}

// Resolve is path made absolute and clean, with its symlinks resolved:
// those of its longest part that exists when the rest does not (a folder
// removed since keeps the resolved form of its parents).
func Resolve(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	rest := ""
	for d := abs; ; {
		if r, err := filepath.EvalSymlinks(d); err == nil {
			return filepath.Join(r, rest)
		}
		up := filepath.Dir(d)
		if up == d {
			return abs
		}
		rest = filepath.Join(filepath.Base(d), rest)
		d = up
	}
}

// Within reports whether dir is root or a folder below it, by whole path
// components (/a/b holds /a/b/c, not /a/bc). Both are resolved already
// (Resolve); an empty one holds and is held by nothing.
func Within(root, dir string) bool {
	if root == "" || dir == "" {
		return false
	}
	rel, err := filepath.Rel(root, dir)
	if err != nil || filepath.IsAbs(rel) {
		return false
	}
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
