package engine

import "testing"

// BenchmarkClassifyShell classifies commands of every kind the hook sees:
// a read, a check behind a pipe, a check by path, a chain of edits and a
// command that is no check at all.
func BenchmarkClassifyShell(b *testing.B) {
	cfg := DefaultConfig()
	cmds := []string{
		"cat cully-note.txt",
		"go test ./... 2>&1 | tail -20",
		"/usr/local/bin/pytest -k parse -x",
		"sed -i 's/a/b/' x.go && gofmt -w x.go",
		"docker compose up -d",
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range cmds {
			ClassifyShell(c, &cfg)
		}
	}
}
