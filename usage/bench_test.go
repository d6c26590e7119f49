package usage_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"cully/hookbridge"
	"cully/hookbridge/claude"
	"cully/store"
	"cully/usage"
)

// bigTranscript writes the Claude Code fixture's lines again and again,
// each copy's messages under new ids, to about size bytes.
func bigTranscript(b *testing.B, size int) string {
	b.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "claude", "projects", "-home-dev-shop", ccusage[0].session+".jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	var out bytes.Buffer
	for i := 0; out.Len() < size; i++ {
		out.Write(bytes.ReplaceAll(src, []byte(`"msg_01`), []byte(fmt.Sprintf(`"msg_%d_`, i))))
	}
	p := filepath.Join(b.TempDir(), "big.jsonl")
	if err := os.WriteFile(p, out.Bytes(), 0o600); err != nil {
		b.Fatal(err)
	}
	return p
}

// The first read of a long transcript: MB/s.
func BenchmarkReadUsageFirst(b *testing.B) {
	p := bigTranscript(b, 32<<20)
	fi, _ := os.Stat(p)
	b.SetBytes(fi.Size())
	for b.Loop() {
		var c usage.Cache
		hookbridge.ReadUsage(claude.Agent{}, &c, []string{p})
	}
}

// What the panel pays per reload of a session whose record has not grown:
// the cache read under its lock, a stat, nothing written.
func BenchmarkReadUsageIdle(b *testing.B) {
	p := bigTranscript(b, 32<<20)
	h := store.Home{Dir: filepath.Join(b.TempDir(), "state")}
	read := func() {
		if _, err := h.UpdateUsage("s1", func(c *usage.Cache) bool {
			return hookbridge.ReadUsage(claude.Agent{}, c, []string{p})
		}); err != nil {
			b.Fatal(err)
		}
	}
	read()
	for b.Loop() {
		read()
	}
}
