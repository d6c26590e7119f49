//go:build unix

package config

import (
	"os"
	"syscall"
)

// openNoWait opens a file for reading without ever blocking: O_NONBLOCK
// makes opening a FIFO with no writer return at once (the caller's fstat
// then refuses it); O_NOFOLLOW, when asked, refuses a path that became a
// symlink after it was checked.
func openNoWait(path string, nofollow bool) (*os.File, error) {
	flags := os.O_RDONLY | syscall.O_NONBLOCK
	if nofollow {
		flags |= syscall.O_NOFOLLOW
	}
	return os.OpenFile(path, flags, 0)
}

// readSmall reads a small regular file of the state dir (the config
// cache, which the hook reads on every call) through a bare descriptor:
// os.ReadFile makes the file pollable first — four fcntl calls and an
// epoll registration the kernel refuses for a regular file — which is
// most of the cost of reading a few hundred bytes. Anything over limit,
// or anything but a regular file, is refused; a symlink is not followed.
func readSmall(path string, limit int64) ([]byte, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, &os.PathError{Op: "fstat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, errNotRegular
	}
	if st.Size > limit {
		return nil, errTooBig
	}
	b := make([]byte, st.Size+1) // one more, to see a file that grew
	n := 0
	for n < len(b) {
		m, err := syscall.Read(fd, b[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: path, Err: err}
		}
		if m == 0 {
			break
		}
		n += m
	}
	if int64(n) > limit {
		return nil, errTooBig
	}
	return b[:n], nil
}
