//go:build !unix

package config

import "os"

// openNoWait opens a file for reading. Outside Unix there are no FIFOs to
// block on in the file system; the caller's fstat still refuses anything but
// a regular file.
func openNoWait(path string, _ bool) (*os.File, error) { return os.Open(path) }

// readSmall reads a small regular file, refusing one over limit.
func readSmall(path string, limit int64) ([]byte, error) {
	st, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, errNotRegular
	}
	b, err := os.ReadFile(path)
	if err == nil && int64(len(b)) > limit {
		return nil, errTooBig
	}
	return b, err
}
