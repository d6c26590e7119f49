package replay

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// File is one file found for the replay.
type File struct {
	path string
	size int64
	seq  int // its place in the walk
}

// ReadError is a file or folder Find could not read, in words (Msg).
type ReadError struct {
	Missing bool // a root named does not exist
	Msg     string
	Err     error
}

func (e *ReadError) Error() string { return e.Msg }
func (e *ReadError) Unwrap() error { return e.Err }

// Find lists the files under roots: a file as named, a folder
// walked recursively (hidden entries skipped, symbolic links followed, each
// folder once), each file once, in the order found.
func Find(roots []string) ([]File, error) {
	var out []File
	seenFile := map[string]bool{}
	seenDir := map[string]bool{}
	add := func(path string, size int64) {
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			real = path
		}
		if abs, err := filepath.Abs(real); err == nil {
			real = abs
		}
		if seenFile[real] {
			return
		}
		seenFile[real] = true
		out = append(out, File{path: path, size: size, seq: len(out)})
	}
	var walk func(dir string) error
	walk = func(dir string) error {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			if seenDir[real] {
				return nil
			}
			seenDir[real] = true
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return &ReadError{Err: err, Msg: fmt.Sprintf("cannot read the folder %s: %s", dir, readProblem(err))}
		}
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") {
				continue
			}
			p := filepath.Join(dir, e.Name())
			fi, err := os.Stat(p) // follows a symbolic link
			if err != nil {
				continue // a dangling link
			}
			switch {
			case fi.IsDir():
				if err := walk(p); err != nil {
					return err
				}
			case fi.Mode().IsRegular():
				add(p, fi.Size())
			}
		}
		return nil
	}
	for _, r := range roots {
		fi, err := os.Stat(r)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &ReadError{Missing: true, Err: err, Msg: fmt.Sprintf("nothing to replay at %s: no such file or folder", r)}
		}
		if err != nil {
			return nil, &ReadError{Err: err, Msg: fmt.Sprintf("cannot replay %s: %s", r, readProblem(err))}
		}
		if fi.IsDir() {
			if err := walk(r); err != nil {
				return nil, err
			}
			continue
		}
		add(r, fi.Size())
	}
	return out, nil
}

// readProblem is why a file or folder could not be read, in words.
func readProblem(err error) string {
	switch {
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	case errors.Is(err, fs.ErrNotExist):
		return "it does not exist"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
