package store

import "golang.org/x/sys/unix"

// datasync is fdatasync: the data, and the metadata only as far as reading
// the data back needs (the size), not the times.
func datasync(fd int) error { return unix.Fdatasync(fd) }
