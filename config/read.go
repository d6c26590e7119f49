package config

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// MaxProjectBytes bounds a project file. A real .cully.toml is a few hundred
// bytes; 64 KiB is a hundred times that, reads in microseconds, and keeps a
// hostile file (megabytes of keys) from costing a session start more.
const MaxProjectBytes = 64 << 10

// MaxUserBytes bounds the user's own file: trusted, but a config file of
// over a megabyte is a mistake (a log pasted in, a symlink to the wrong
// file), not a configuration.
const MaxUserBytes = 1 << 20

// errNotRegular and friends say why a file was refused; the file is then
// ignored, never waited on or read whole.
var errNotRegular = errors.New("not a regular file")

// errTooBig refuses a state dir file over its size bound.
var errTooBig = errors.New("over its size limit")

// readBounded reads a config file without trusting it: only a regular file
// (a FIFO would block the hook forever, /dev/zero would never end), at most
// limit bytes. With root set (a project file), a symlink is followed only
// when it resolves inside root: git can store a symlink to anywhere. The
// user's own file (root "") may be a symlink to anywhere, as dotfile
// managers make it.
//
// The error is os.ErrNotExist for a missing file; any other error is the
// reason the file was refused, fit for one line.
func readBounded(path, root string, limit int64) ([]byte, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, os.ErrNotExist
		}
		return nil, err
	}
	// A project file is opened O_NOFOLLOW: a file that turns into a symlink
	// after the Lstat is refused, not followed out of the project.
	target, nofollow := path, root != ""
	if fi.Mode()&os.ModeSymlink != 0 && root != "" {
		resolved, err := filepath.EvalSymlinks(path)
		if err != nil {
			return nil, fmt.Errorf("a symlink that does not resolve: %w", err)
		}
		croot, err := filepath.EvalSymlinks(root)
		if err != nil {
			croot = root
		}
		if !within(croot, resolved) {
			return nil, fmt.Errorf("a symlink to %s, outside %s", resolved, root)
		}
		target = resolved // resolved: it must not turn into a link again
	}
	f, err := openNoWait(target, nofollow)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%w (%s)", errNotRegular, kindOf(st.Mode()))
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%d bytes, over the %s limit", st.Size(), human(limit))
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("over the %s limit (it grew while read)", human(limit))
	}
	return b, nil
}

// within reports whether path is root or inside it (both already cleaned
// and resolved).
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	if err != nil || filepath.IsAbs(rel) {
		return false
	}
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func kindOf(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.String()
}

// human prints a byte size the way the docs write it.
func human(n int64) string {
	switch {
	case n >= 1<<40 && n%(1<<40) == 0:
		return fmt.Sprintf("%d TiB", n>>40)
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Canonical is the path a project file is allowed under: absolute, its
// directory's symlinks resolved (the same file reached through a linked
// directory is the same consent), the file name itself kept (a link named
// .cully.toml is allowed as that link, its content hashed).
func Canonical(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(dir, filepath.Base(abs))
	}
	return abs
}
