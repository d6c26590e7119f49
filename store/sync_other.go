//go:build unix && !linux

package store

import "golang.org/x/sys/unix"

// datasync is fsync where there is no fdatasync.
func datasync(fd int) error { return unix.Fsync(fd) }
