//go:build !unix

package hookrun

import "os"

// startDetached starts exe with its stdio on the null device.
func startDetached(exe string, args []string, dir string) error {
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer null.Close()
	p, err := os.StartProcess(exe, append([]string{exe}, args...), &os.ProcAttr{Dir: dir, Env: os.Environ(), Files: []*os.File{null, null, null}})
	if err != nil {
		return err
	}
	return p.Release()
}
