//go:build !unix

package advisor

import "os/exec"

// ownGroup: outside Unix there are no process groups to start the worker
// in; a deadline kills the worker itself.
func ownGroup(*exec.Cmd) {}

// killGroup kills the worker (its children are not reached here).
func killGroup(cmd *exec.Cmd) error { return cmd.Process.Kill() }
