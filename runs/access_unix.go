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
