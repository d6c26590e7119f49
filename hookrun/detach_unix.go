//go:build unix

package hookrun

import (
	"os"
	"syscall"
)

// startDetached starts exe in a session of its own. The null device is
// opened as a bare descriptor: os.OpenFile would set up the runtime's
// poller, start-up work the hook avoids.
func startDetached(exe string, args []string, dir string) error {
	fd, err := syscall.Open(os.DevNull, syscall.O_RDWR|syscall.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	null := os.NewFile(uintptr(fd), os.DevNull)
	defer null.Close()
	p, err := os.StartProcess(exe, append([]string{exe}, args...), &os.ProcAttr{
		Dir: dir, Env: os.Environ(), Files: []*os.File{null, null, null},
		Sys: &syscall.SysProcAttr{Setsid: true},
	})
	if err != nil {
		return err
	}
	return p.Release()
}
