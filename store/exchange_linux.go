package store

import "golang.org/x/sys/unix"

// exchange swaps two paths' directory entries in one rename
// (renameat2 RENAME_EXCHANGE). ok is false where the file system cannot
// (the caller then swaps with links and renames).
func exchange(a, b string) (ok bool, err error) {
	err = unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	switch err {
	case unix.EINVAL, unix.ENOSYS, unix.ENOTSUP, unix.EXDEV:
		return false, nil
	}
	return true, err
}
