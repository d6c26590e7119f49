// Command gen writes the plugins the repository ships (plugin.Shipped)
// under the repository root, and removes any file under their folders
// that Shipped no longer holds. Run it with `go generate ./plugin`.
package main

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"cully/plugin"
)

func main() {
	root := flag.String("root", ".", "the repository root")
	flag.Parse()
	if err := write(*root); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func write(root string) error {
	files, err := plugin.Shipped()
	if err != nil {
		return err
	}
	keep := map[string]bool{}
	for _, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f.Path))
		keep[p] = true
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			return err
		}
	}
	for _, dir := range []string{plugin.ClaudeDir, plugin.GeminiDir, plugin.OpencodeDir} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || keep[p] {
				return err
			}
			return os.Remove(p)
		})
		if err != nil {
			return err
		}
	}
	return nil
}
