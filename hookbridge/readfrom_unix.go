//go:build unix

package hookbridge

import "syscall"

// ReadFrom reads a regular file from off to its end, at most max bytes
// (its last max bytes when more is there); it returns them and where they
// start. A file shorter than off is read from its start. The file is
// opened through bare system calls, non-blocking and without following a
// link to a FIFO or a device: os.Open would cost the hook an fcntl and a
// poller registration for a file it reads once.
func ReadFrom(path string, off, max int64) ([]byte, int64, bool) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, 0, false
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, 0, false
	}
	size := st.Size
	if size < off {
		off = 0
	}
	if size-off > max {
		off = size - max
	}
	buf := make([]byte, size-off)
	n := 0
	for n < len(buf) {
		m, err := syscall.Pread(fd, buf[n:], off+int64(n))
		if m <= 0 || err != nil {
			break
		}
		n += m
	}
	return buf[:n], off, true
}
