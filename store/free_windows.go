//go:build windows

package store

import "golang.org/x/sys/windows"

// freeSpace is the space dir's volume has left for this user, in bytes;
// -1 when it cannot be read.
func freeSpace(dir string) int64 {
	p, err := windows.UTF16PtrFromString(dir)
	if err != nil {
		return -1
	}
	var avail, total, free uint64
	if err := windows.GetDiskFreeSpaceEx(p, &avail, &total, &free); err != nil {
		return -1
	}
	return int64(avail)
}
