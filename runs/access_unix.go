//go:build unix

package runs

import (
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// canWrite reports whether this user may create and remove entries in dir.
func canWrite(dir string) bool { return unix.Access(dir, unix.W_OK|unix.X_OK) == nil }

// ownedByUser reports whether this user owns the folder.
func ownedByUser(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return !ok || int(st.Uid) == os.Geteuid()
}

// diskSpace is the free and total bytes of the file system holding dir
// (free as this user may use it).
func diskSpace(dir string) (free, total int64, ok bool) {
	var st unix.Statfs_t
	if unix.Statfs(dir, &st) != nil {
		return 0, 0, false
	}
	return int64(st.Bavail) * int64(st.Bsize), int64(st.Blocks) * int64(st.Bsize), true
}
