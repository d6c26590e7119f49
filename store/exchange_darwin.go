package store

import "golang.org/x/sys/unix"

// exchange swaps two paths' directory entries in one rename
// (renamex_np RENAME_SWAP). ok is false where the file system cannot (the
// caller then swaps with links and renames).
func exchange(a, b string) (ok bool, err error) {
	err = unix.RenamexNp(a, b, unix.RENAME_SWAP)
	switch err {
	case unix.EINVAL, unix.ENOTSUP, unix.EXDEV:
		return false, nil
	}
	return true, err
}
