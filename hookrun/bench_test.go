package hookrun

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkRun is one hook call's work inside the process (payload read,
// decode, state load and save under the locks, journal append, answer),
// without the process start bench/hook.sh measures around it.
func BenchmarkRun(b *testing.B) {
	for _, name := range []string{"007-PostToolUse-Read.json", "064-PreToolUse-Read.json", "012-PostToolUseFailure-Bash.json"} {
		b.Run(name, func(b *testing.B) {
			raw, err := os.ReadFile(filepath.Join("..", "hookbridge", "claude", "testdata", "capture-sequence", name))
			if err != nil {
				b.Fatal(err)
			}
			home := b.TempDir()
			env := map[string]string{"CULLY_HOME": home, "CULLY_CONFIG": filepath.Join(home, "none.toml"), "CLAUDE_PROJECT_DIR": "/home/dev/project"}
			getenv := func(k string) string { return env[k] }
			b.ReportAllocs()
			for b.Loop() {
				Run(IO{Stdin: bytes.NewReader(raw), Stdout: io.Discard, Stderr: io.Discard, Getenv: getenv}, "claude")
			}
		})
	}
}

// BenchmarkStartDetached is the hook's share of a snapshot: starting a
// detached process (here true(1), which exits at once), every 10 calls.
func BenchmarkStartDetached(b *testing.B) {
	exe := "/bin/true"
	if _, err := os.Stat(exe); err != nil {
		b.Skip("needs /bin/true")
	}
	dir := b.TempDir()
	for b.Loop() {
		if err := startDetached(exe, nil, dir); err != nil {
			b.Fatal(err)
		}
	}
}
