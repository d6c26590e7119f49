package store

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
)

// ErrUnsafe is what every refusal of the state dir's trust checks matches
// (errors.Is): a symlink where a file or directory of the state dir
// belongs, a FIFO, device or directory where a regular file belongs, a
// state dir another user owns or that others can write.
var ErrUnsafe = errors.New("unsafe state dir entry")

// UnsafeError says which path was refused and why, and, for the state
// dir itself, the command that fixes it.
type UnsafeError struct {
	Path string
	Why  string
	Fix  string // "" when the fix is to remove what was planted
}

func (e *UnsafeError) Error() string {
	s := e.Path + " " + e.Why + ": refusing it"
	if e.Fix != "" {
		s += " (fix: " + e.Fix + ")"
	}
	return s
}

// RefusalFix is what to do about a refused state dir (err matches
// ErrUnsafe), for a person: "" when err says nothing of it.
func RefusalFix(err error) string {
	_, fix := Refusal(err)
	return fix
}

// Refusal is a refused state dir's error in two parts: what was refused
// and why ("/s is writable by group or others (drwxrwx---)"), and the fix
// ("" when err says none).
func Refusal(err error) (what, fix string) {
	var ue *UnsafeError
	if errors.As(err, &ue) {
		return ue.Path + " " + ue.Why, ue.Fix
	}
	return err.Error(), ""
}

// shellWord quotes s for a POSIX shell where it needs it.
func shellWord(s string) string {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("/._-+:@%,=", c)) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}

// Is makes every UnsafeError match ErrUnsafe.
func (e *UnsafeError) Is(target error) bool { return target == ErrUnsafe }

func unsafeErr(path, why string) error { return &UnsafeError{Path: path, Why: why} }

// notRegular is the refusal of a file that is not a regular file.
func notRegular(path string, m fs.FileMode) error {
	switch t := m.Type(); {
	case t&fs.ModeSymlink != 0:
		return unsafeErr(path, "is a symlink")
	case t&fs.ModeNamedPipe != 0:
		return unsafeErr(path, "is a FIFO, not a regular file")
	case t&fs.ModeDevice != 0 || t&fs.ModeCharDevice != 0:
		return unsafeErr(path, "is a device, not a regular file")
	case t&fs.ModeDir != 0:
		return unsafeErr(path, "is a directory, not a regular file")
	case t&fs.ModeSocket != 0:
		return unsafeErr(path, "is a socket, not a regular file")
	default:
		return unsafeErr(path, fmt.Sprintf("is not a regular file (%v)", t))
	}
}

// readWhole reads an open file from its start, sized by the fstat taken
// when it was opened (one read for a file that did not grow since).
func readWhole(f *sysFile, limit int64) ([]byte, error) {
	n := f.size
	if limit > 0 && n > limit {
		return nil, fmt.Errorf("%s: %d bytes is over the %d-byte limit", f.path, n, limit)
	}
	b := make([]byte, n)
	var off int64
	for off < n {
		m, err := f.ReadAt(b[off:], off)
		off += int64(m)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return b[:off], nil
			}
			return nil, err
		}
	}
	return b, nil
}

// ReadSmallFile reads a whole state-dir file (errors.log, a state file) at
// most limit bytes long, refusing a symlink, a FIFO or a device as every
// opener of the store does: a reader of the state dir never hangs on a
// planted FIFO.
func ReadSmallFile(path string, limit int64) ([]byte, error) {
	f, err := openFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readWhole(f, limit)
}

// checkRegular refuses an already open file that is not a regular file
// (ReadOpen's caller opened it itself).
func checkRegular(r io.ReaderAt) error {
	s, ok := r.(interface{ Stat() (os.FileInfo, error) })
	if !ok {
		return nil
	}
	fi, err := s.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return notRegular(fi.Name(), fi.Mode())
	}
	return nil
}
