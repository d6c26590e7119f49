package runs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// preflight checks every path of a plan before anything is changed: a
// file can be written where a directory stands only if everything in it
// is removed by the plan, never through a link or where a file no
// snapshot holds is in the way, and only in a directory this user may
// write.
func preflight(root string, p *Plan) []Problem {
	var probs []Problem
	add := func(path, why string) { probs = append(probs, Problem{Path: path, Why: why}) }
	removing := map[string]bool{}
	for _, r := range p.Remove {
		removing[r] = true
	}
	for _, w := range p.Restore {
		if !safePath(w) {
			add(w, "not a path inside the work tree")
			continue
		}
		parts := strings.Split(w, "/")
		blocked, replaced := false, false
		for i := 1; i < len(parts) && !blocked; i++ {
			rel := strings.Join(parts[:i], "/")
			fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(rel)))
			switch {
			case errors.Is(err, fs.ErrNotExist):
				i = len(parts) // created on the way
			case err != nil:
				add(w, err.Error())
				blocked = true
			case fi.IsDir():
			case removing[rel]:
				i = len(parts) // a file the rollback removes stands where its directory goes
				replaced = true
			default:
				add(w, fmt.Sprintf("%s is a %s where snapshot %d has a directory, and no snapshot holds it", rel, kind(fi), p.To))
				blocked = true
			}
		}
		if blocked {
			continue
		}
		full := filepath.Join(root, filepath.FromSlash(w))
		if replaced { // nothing stands there once that file is gone (and a link there is never followed)
			if d := existingDir(root, full); !canWrite(d) {
				add(w, "its folder "+rel(root, d)+" is not writable")
			}
			continue
		}
		fi, err := os.Lstat(full)
		switch {
		case err == nil && fi.IsDir():
			if stray := strayFile(root, w, removing); stray != "" {
				add(w, fmt.Sprintf("is a directory now, holding %s, which no snapshot holds: a rollback never deletes what it cannot put back", stray))
				continue
			}
		case err == nil && !fi.Mode().IsRegular() && fi.Mode()&fs.ModeSymlink == 0:
			add(w, "is a "+kind(fi)+" now: a rollback replaces only files and links")
			continue
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			add(w, err.Error())
			continue
		}
		if d := existingDir(root, full); !canWrite(d) {
			add(w, "its folder "+rel(root, d)+" is not writable")
		}
	}
	for _, r := range p.Remove {
		full := filepath.Join(root, filepath.FromSlash(r))
		fi, err := os.Lstat(full)
		switch {
		case !safePath(r):
			add(r, "not a path inside the work tree")
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			add(r, err.Error())
		case fi.IsDir():
			add(r, "became a directory while the rollback ran")
		case !canWrite(filepath.Dir(full)):
			add(r, "its folder "+rel(root, filepath.Dir(full))+" is not writable")
		}
	}
	return probs
}

// strayFile finds a file under the directory at w that the plan does not
// remove ("" when there is none).
func strayFile(root, w string, removing map[string]bool) string {
	stray := ""
	_ = filepath.WalkDir(filepath.Join(root, filepath.FromSlash(w)), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			stray = rel(root, p)
			return filepath.SkipAll
		}
		if d.IsDir() {
			return nil
		}
		if r := rel(root, p); !removing[r] {
			stray = r
			return filepath.SkipAll
		}
		return nil
	})
	return stray
}

func safePath(p string) bool {
	if p == "" || strings.HasPrefix(p, "/") || strings.ContainsRune(p, 0) {
		return false
	}
	for _, part := range strings.Split(p, "/") {
		if part == "" || part == "." || part == ".." {
			return false
		}
	}
	return true
}

func kind(fi fs.FileInfo) string {
	switch m := fi.Mode(); {
	case m&fs.ModeSymlink != 0:
		return "link"
	case m.IsDir():
		return "directory"
	case m.IsRegular():
		return "file"
	case m&fs.ModeNamedPipe != 0:
		return "FIFO"
	case m&fs.ModeSocket != 0:
		return "socket"
	}
	return "device"
}

func existingDir(root, full string) string {
	for d := filepath.Dir(full); ; d = filepath.Dir(d) {
		if fi, err := os.Lstat(d); err == nil && fi.IsDir() || d == root || d == filepath.Dir(d) {
			return d
		}
	}
}

func rel(root, p string) string {
	r, err := filepath.Rel(root, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(r)
}
