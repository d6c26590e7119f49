//go:build unix

package store

import (
	"io"
	"io/fs"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// sysFile is an open regular file of the state dir, held as a bare file
// descriptor. os.OpenFile costs the hook four fcntl calls and an epoll
// registration per file (the runtime tries to make every file pollable),
// and the netpoller's set-up on the first one: with raw descriptors a hook
// call opens its five files with one open and one fstat each.
type sysFile struct {
	fd   int
	path string
	size int64 // at open time
}

// openFile opens a file of the state dir: never through a symlink
// (O_NOFOLLOW), never blocking on a FIFO (O_NONBLOCK, which changes nothing
// for a regular file), and only a regular file: the fstat that gives the
// size also refuses a FIFO, a device or a directory.
func openFile(path string, flag int, perm os.FileMode) (*sysFile, error) {
	f, err := openRaw(path, flag, perm)
	if err != nil {
		return nil, err
	}
	if err := f.stat(); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// openRaw is openFile without the fstat: the caller must stat() the file
// before it reads or writes it (a lock file is stat-ed once it is locked,
// when its size says something).
func openRaw(path string, flag int, perm os.FileMode) (*sysFile, error) {
	fd, err := openRetry(path, flag|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, uint32(perm.Perm()))
	if err != nil {
		return nil, openError(path, err)
	}
	return &sysFile{fd: fd, path: path}, nil
}

// stat refreshes the file's size, refusing anything but a regular file.
func (f *sysFile) stat() error {
	var st unix.Stat_t
	if err := fstatRetry(f.fd, &st); err != nil {
		return &fs.PathError{Op: "stat", Path: f.path, Err: err}
	}
	if uint32(st.Mode)&unix.S_IFMT != unix.S_IFREG {
		return notRegular(f.path, modeType(uint32(st.Mode)))
	}
	f.size = st.Size
	return nil
}

// createNew creates a file that must not exist yet (O_EXCL: nothing is
// followed, a planted link or file makes it fail with fs.ErrExist).
func createNew(path string) (*sysFile, error) {
	fd, err := openRetry(path, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, openError(path, err)
	}
	return &sysFile{fd: fd, path: path}, nil
}

func openRetry(path string, flag int, perm uint32) (int, error) {
	for {
		fd, err := unix.Open(path, flag, perm)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

func fstatRetry(fd int, st *unix.Stat_t) error {
	for {
		err := unix.Fstat(fd, st)
		if err != unix.EINTR {
			return err
		}
	}
}

func openError(path string, err error) error {
	// O_NOFOLLOW on a symlink fails with ELOOP (EMLINK on FreeBSD).
	if err == unix.ELOOP || err == unix.EMLINK {
		return unsafeErr(path, "is a symlink")
	}
	// A FIFO opened for writing with no reader (O_NONBLOCK) fails with
	// ENXIO, as does a device with nothing behind it.
	if err == unix.ENXIO {
		if fi, lerr := os.Lstat(path); lerr == nil && !fi.Mode().IsRegular() {
			return notRegular(path, fi.Mode())
		}
	}
	return &fs.PathError{Op: "open", Path: path, Err: err}
}

func modeType(m uint32) fs.FileMode {
	switch m & unix.S_IFMT {
	case unix.S_IFIFO:
		return fs.ModeNamedPipe
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		return fs.ModeDevice
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFSOCK:
		return fs.ModeSocket
	case unix.S_IFLNK:
		return fs.ModeSymlink
	}
	return fs.ModeIrregular
}

// ReadAt reads at off, as io.ReaderAt does (io.EOF when short).
func (f *sysFile) ReadAt(b []byte, off int64) (int, error) {
	n := 0
	for n < len(b) {
		m, err := unix.Pread(f.fd, b[n:], off+int64(n))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return n, &fs.PathError{Op: "read", Path: f.path, Err: err}
		}
		if m == 0 {
			return n, io.EOF
		}
		n += m
	}
	return n, nil
}

// Write writes all of b (appending when opened O_APPEND).
func (f *sysFile) Write(b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := unix.Write(f.fd, b[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return n, &fs.PathError{Op: "write", Path: f.path, Err: err}
		}
		n += m
	}
	return n, nil
}

// WriteAt writes all of b at off.
func (f *sysFile) WriteAt(b []byte, off int64) (int, error) {
	n := 0
	for n < len(b) {
		m, err := unix.Pwrite(f.fd, b[n:], off+int64(n))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return n, &fs.PathError{Op: "write", Path: f.path, Err: err}
		}
		n += m
	}
	return n, nil
}

// Truncate sets the file's size.
func (f *sysFile) Truncate(size int64) error {
	for {
		err := unix.Ftruncate(f.fd, size)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return &fs.PathError{Op: "truncate", Path: f.path, Err: err}
		}
		return nil
	}
}

// Sync writes the file's data to the disk (datasync, see sync_*.go).
func (f *sysFile) Sync() error {
	for {
		err := datasync(f.fd)
		if err != unix.EINTR {
			return err
		}
	}
}

// Close closes the file, releasing a lock held on it.
func (f *sysFile) Close() error {
	if f == nil || f.fd < 0 {
		return nil
	}
	err := unix.Close(f.fd)
	f.fd = -1
	return err
}

// lock takes a flock on the file; with wait false it reports false instead
// of blocking when another holder has it.
func (f *sysFile) lock(shared, wait bool) (bool, error) {
	how := unix.LOCK_EX
	if shared {
		how = unix.LOCK_SH
	}
	if !wait {
		how |= unix.LOCK_NB
	}
	for {
		err := unix.Flock(f.fd, how)
		switch {
		case err == nil:
			return true, nil
		case err == unix.EINTR:
			continue
		case err == unix.EWOULDBLOCK && !wait:
			return false, nil
		}
		return false, &fs.PathError{Op: "flock", Path: f.path, Err: err}
	}
}

// euid is the user the state dir must belong to.
var euid = os.Geteuid()

// checkDir is the state dir's trust check, on the Lstat of a directory of
// it: a real directory (not a symlink), owned by this user, writable by
// nobody else. Another user who can write in the state dir can plant links
// and FIFOs in it; a state dir another user owns can be changed under us.
func checkDir(path string, fi fs.FileInfo) error {
	if fi.Mode()&fs.ModeSymlink != 0 {
		return &UnsafeError{Path: path, Why: "is a symlink", Fix: "make " + shellWord(path) + " a real directory of yours (mkdir -m 700), or point CULLY_HOME elsewhere"}
	}
	if !fi.IsDir() {
		return &fs.PathError{Op: "use state dir", Path: path, Err: syscall.ENOTDIR}
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != euid {
		return &UnsafeError{Path: path, Why: "is owned by uid " + strconv.Itoa(int(st.Uid)) + ", not by you (uid " + strconv.Itoa(euid) + ")",
			Fix: "point CULLY_HOME at a directory of your own"}
	}
	if p := fi.Mode().Perm(); p&0o022 != 0 {
		return &UnsafeError{Path: path, Why: "is writable by group or others (" + p.String() + ")", Fix: "chmod 700 " + shellWord(path)}
	}
	return nil
}
