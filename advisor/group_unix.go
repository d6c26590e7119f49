//go:build unix

package advisor

import (
	"os/exec"
	"syscall"
)

// ownGroup starts the worker in a process group of its own, so that a
// deadline can kill it with every child it started.
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// killGroup kills the worker's whole process group.
func killGroup(cmd *exec.Cmd) error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
