package hookbridge

import (
	"os"
	"os/exec"
)

// Found is what every installer's Present decides by: one of bins is on
// PATH, or dir, the host's own folder in the user's home (made at its
// first run, and where cully's user-scope install writes), exists. A host
// started from an editor, an app bundle or a version manager's shim is
// often not on the PATH cully runs with, and its folder is the surer sign
// (dir "" is not looked for).
func Found(dir string, bins ...string) bool {
	for _, b := range bins {
		if _, err := exec.LookPath(b); err == nil {
			return true
		}
	}
	if dir == "" {
		return false
	}
	fi, err := os.Stat(dir)
	return err == nil && fi.IsDir()
}
