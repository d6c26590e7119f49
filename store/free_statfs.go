//go:build linux || darwin || freebsd || dragonfly

package store

import "golang.org/x/sys/unix"

// freeSpace is the space dir's file system has left for this user (not
// counting blocks kept for root), in bytes; -1 when it cannot be read.
func freeSpace(dir string) int64 {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return -1
	}
	return int64(st.Bavail) * int64(st.Bsize)
}
