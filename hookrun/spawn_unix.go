//go:build unix

package hookrun

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// startAdvisor starts `cully advise --auto --session ID` detached: its own
// session (setsid), stdio on /dev/null, not waited for. The hook returns
// at once; the process takes the budget decision and runs the worker
// under its deadline. The cully binary is the hook's own executable, or
// the one beside cully-hook (install puts both in one folder).
func startAdvisor(session string) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("start advisor: %w", err)
	}
	bin := exe
	if filepath.Base(exe) != "cully" {
		bin = filepath.Join(filepath.Dir(exe), "cully")
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("start advisor: %w", err)
	}
	defer null.Close()
	p, err := os.StartProcess(bin, []string{bin, "advise", "--auto", "--session", session}, &os.ProcAttr{
		Files: []*os.File{null, null, null},
		Sys:   &syscall.SysProcAttr{Setsid: true},
	})
	if err != nil {
		return fmt.Errorf("start advisor: %w", err)
	}
	return p.Release()
}

// groupAttr starts a process as the leader of its own process group, so
// that killGroup takes its children with it.
func groupAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// killGroup kills p's process group (p and what it started); p alone when
// the group is gone.
func killGroup(p *os.Process) {
	if err := syscall.Kill(-p.Pid, syscall.SIGKILL); err != nil {
		_ = p.Kill()
	}
}
