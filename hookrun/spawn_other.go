//go:build !unix

package hookrun

import (
	"errors"
	"os"
	"syscall"
)

// startAdvisor is not built off Unix: the automatic advisor needs a
// detached process group to kill at the deadline. `cully advise` still runs.
func startAdvisor(string) error {
	return errors.New("the automatic advisor is not built for this system: run `cully advise`")
}

// groupAttr: no process groups to start here.
func groupAttr() *syscall.SysProcAttr { return nil }

// killGroup kills p (its children are not reachable as a group here).
func killGroup(p *os.Process) { _ = p.Kill() }
