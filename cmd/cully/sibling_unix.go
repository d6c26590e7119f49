//go:build unix

package main

import (
	"os"
	"syscall"
)

// runBinary becomes bin (exec): a signal meant for `cully export` or
// `cully daemon` (a service manager's SIGTERM, a kill of its pid) reaches
// the process that does the work, which flushes and exits, and no parent is
// left waiting.
func (a *app) runBinary(bin string, args []string) error {
	if a.stdin != os.Stdin || a.stdout != os.Stdout || a.stderr != os.Stderr {
		return a.runBinaryChild(bin, args) // streams of our own (tests): run it as a child
	}
	err := syscall.Exec(bin, append([]string{bin}, args...), os.Environ())
	return fail(codeFailed, err, "cannot run %s: %s", bin, plain(err))
}
