//go:build windows

package store

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/windows"
)

// sysFile is an open regular file of the state dir.
type sysFile struct {
	f    *os.File
	path string
	size int64 // at open time
}

// openFile opens a file of the state dir, refusing a symlink or any other
// reparse point (Windows has no O_NOFOLLOW: the path is Lstat-ed first)
// and anything that is not a regular file once open (a named pipe, a
// device, a directory).
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

// openRaw is openFile without the check of the open file: the caller must
// stat() it before it reads or writes it.
func openRaw(path string, flag int, perm os.FileMode) (*sysFile, error) {
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, notRegular(path, fi.Mode())
	}
	f, err := os.OpenFile(path, flag, perm)
	if err != nil {
		return nil, err
	}
	return &sysFile{f: f, path: path}, nil
}

// stat refreshes the file's size, refusing anything but a regular file.
func (f *sysFile) stat() error {
	fi, err := f.f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return notRegular(f.path, fi.Mode())
	}
	f.size = fi.Size()
	return nil
}

// createNew creates a file that must not exist yet (CREATE_NEW fails on
// any existing entry, a link included).
func createNew(path string) (*sysFile, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	return &sysFile{f: f, path: path}, nil
}

func (f *sysFile) ReadAt(b []byte, off int64) (int, error)  { return f.f.ReadAt(b, off) }
func (f *sysFile) Write(b []byte) (int, error)              { return f.f.Write(b) }
func (f *sysFile) WriteAt(b []byte, off int64) (int, error) { return f.f.WriteAt(b, off) }
func (f *sysFile) Truncate(size int64) error                { return f.f.Truncate(size) }
func (f *sysFile) Sync() error                              { return f.f.Sync() }

// Close releases a lock held on the file and closes it.
func (f *sysFile) Close() error {
	if f == nil || f.f == nil {
		return nil
	}
	_ = windows.UnlockFileEx(windows.Handle(f.f.Fd()), 0, 1, 0, &windows.Overlapped{})
	err := f.f.Close()
	f.f = nil
	return err
}

// errLockViolation is LockFileEx's answer when the lock is held and
// LOCKFILE_FAIL_IMMEDIATELY was asked for.
const errLockViolation windows.Errno = 33

// lock takes a LockFileEx lock on the file's first byte; with wait false
// it reports false instead of blocking when another holder has it.
func (f *sysFile) lock(shared, wait bool) (bool, error) {
	var flags uint32
	if !shared {
		flags |= windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	if !wait {
		flags |= windows.LOCKFILE_FAIL_IMMEDIATELY
	}
	err := windows.LockFileEx(windows.Handle(f.f.Fd()), flags, 0, 1, 0, &windows.Overlapped{})
	switch {
	case err == nil || errors.Is(err, windows.Errno(0)):
		return true, nil
	case !wait && (errors.Is(err, errLockViolation) || errors.Is(err, windows.ERROR_IO_PENDING)):
		return false, nil
	}
	return false, &fs.PathError{Op: "lock", Path: f.path, Err: err}
}

// checkDir is the state dir's trust check on Windows: a real directory,
// not a symlink or junction. Ownership and the permission bits mean
// nothing there (ACLs decide, and the user's profile is private by
// default), so they are not checked.
func checkDir(path string, fi fs.FileInfo) error {
	if fi.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0 {
		return unsafeErr(path, "is a symlink or junction")
	}
	if !fi.IsDir() {
		return &fs.PathError{Op: "use state dir", Path: path, Err: windows.ERROR_DIRECTORY}
	}
	return nil
}
