//go:build !unix

package hookbridge

import (
	"io"
	"os"
)

// ReadFrom reads a regular file from off to its end, at most max bytes
// (its last max bytes when more is there); it returns them and where they
// start. A file shorter than off is read from its start.
func ReadFrom(path string, off, max int64) ([]byte, int64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, 0, false
	}
	size := fi.Size()
	if size < off {
		off = 0
	}
	if size-off > max {
		off = size - max
	}
	buf := make([]byte, size-off)
	n, err := f.ReadAt(buf, off)
	if err != nil && err != io.EOF {
		return nil, 0, false
	}
	return buf[:n], off, true
}
