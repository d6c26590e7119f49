//go:build unix

package main

import "golang.org/x/sys/unix"

// backgroundPriority lowers this process's CPU priority (and its git
// children's): a background snapshot yields to the agent and its hooks.
func backgroundPriority() { _ = unix.Setpriority(unix.PRIO_PROCESS, 0, 10) }
