//go:build !linux

package store

// lockHolder names the process holding a flock on path where the system
// says (Linux's /proc/locks); elsewhere it cannot tell.
func lockHolder(string) ([]int, string) { return nil, "" }

// heldByOther reports whether a process other than cully's own holds the
// flock on path, where the system says (Linux); elsewhere it cannot tell,
// and says yes.
func heldByOther(string) bool { return true }
