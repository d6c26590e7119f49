//go:build unix

package config

import (
	"os"
	"syscall"
)

// openNoWait opens a file for reading without ever blocking: O_NONBLOCK
// makes opening a FIFO with no writer return at once (the caller's fstat
// then refuses it); O_NOFOLLOW, when asked, refuses a path that became a
// symlink after it was checked.
func openNoWait(path string, nofollow bool) (*os.File, error) {
	flags := os.O_RDONLY | syscall.O_NONBLOCK
	if nofollow {
		flags |= syscall.O_NOFOLLOW
	}
	return os.OpenFile(path, flags, 0)
}
