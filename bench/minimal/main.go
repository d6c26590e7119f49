// Command minimal is the hook benchmark's baseline: the least a hook can do
// (read stdin, append one line under an exclusive flock, print {}). cully
// hook is measured against it.
package main

import (
	"io"
	"os"
	"path/filepath"

	"github.com/gofrs/flock"
)

func main() {
	dir := os.Getenv("CULLY_HOME")
	if dir == "" {
		dir = os.TempDir()
	}
	_, _ = io.ReadAll(os.Stdin)
	lk := flock.New(filepath.Join(dir, "minimal.lock"))
	if err := lk.Lock(); err != nil {
		os.Exit(1)
	}
	f, err := os.OpenFile(filepath.Join(dir, "minimal.jsonl"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err == nil {
		_, _ = f.Write([]byte(`{"v":1,"kind":"pre_tool"}` + "\n"))
		f.Close()
	}
	lk.Unlock()
	os.Stdout.Write([]byte("{}\n"))
}
