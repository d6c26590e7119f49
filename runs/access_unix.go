//go:build unix

package runs

import "golang.org/x/sys/unix"

// canWrite reports whether this user may create and remove entries in dir.
func canWrite(dir string) bool { return unix.Access(dir, unix.W_OK|unix.X_OK) == nil }
