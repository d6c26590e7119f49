//go:build !unix

package hookrun

// startDetached starts exe with its stdio on the null device.
func startDetached(exe string, args []string, dir string) error {
	p, err := startQuiet(exe, args, dir)
	if err != nil {
		return err
	}
	return p.Release()
}
