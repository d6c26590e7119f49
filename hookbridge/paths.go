package hookbridge

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// AbsPath resolves a path from a payload against the call's working
// directory. "~/" paths are left as they are: the host's HOME is not ours
// to guess.
func AbsPath(p, cwd string) string {
	if strings.HasPrefix(p, "~/") {
		return p
	}
	if !filepath.IsAbs(p) && cwd != "" {
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p)
}

// RelPath makes a path project-relative when it lies inside the project.
func RelPath(abs, project string) string {
	if project == "" || !filepath.IsAbs(abs) {
		return abs
	}
	rel, err := filepath.Rel(project, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return abs
	}
	return rel
}

// OpenRegular opens a file of the host's for reading, never blocking on a
// FIFO and refusing anything but a regular file: what the host names in a
// payload is read only as the kind of file it says it is.
func OpenRegular(path string) (io.ReadCloser, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("open %s: not a regular file", path)
	}
	return f, nil
}
