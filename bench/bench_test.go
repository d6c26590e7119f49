// Package bench measures `cully hook` as a process against a minimal hook
// (bench/minimal), on an empty journal and on a large one. Run it through
// bench/hook.sh (hyperfine when installed) or directly:
//
//	go test -run '^$' -bench . ./bench/
package bench

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

const postRead = "../hookbridge/claude/testdata/capture-sequence/007-PostToolUse-Read.json"

// binaries returns the cully and minimal binaries: from CULLY_BENCH_BIN,
// else built into a temp dir.
func binaries(b *testing.B) (string, string) {
	if d := os.Getenv("CULLY_BENCH_BIN"); d != "" {
		return filepath.Join(d, "cully-hook"), filepath.Join(d, "minimal")
	}
	d := b.TempDir()
	for pkg, out := range map[string]string{"../cmd/cully-hook": "cully-hook", "./minimal": "minimal"} {
		if o, err := exec.Command("go", "build", "-o", filepath.Join(d, out), pkg).CombinedOutput(); err != nil {
			b.Fatalf("build %s: %v\n%s", pkg, err, o)
		}
	}
	return filepath.Join(d, "cully-hook"), filepath.Join(d, "minimal")
}

func runProc(b *testing.B, bin string, home string, payload []byte, args ...string) {
	b.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = []string{"CULLY_HOME=" + home, "HOME=" + home, "CLAUDE_PROJECT_DIR=/home/dev/project"}
	cmd.Stdin = bytes.NewReader(payload)
	if err := cmd.Run(); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkProcess(b *testing.B) {
	cully, minimal := binaries(b)
	payload, err := os.ReadFile(postRead)
	if err != nil {
		b.Fatal(err)
	}
	events := 100_000
	if v, err := strconv.Atoi(os.Getenv("EVENTS")); err == nil {
		events = v
	}
	big := b.TempDir()
	fill := exec.Command("go", "run", "./fill", "-events", strconv.Itoa(events))
	fill.Env = append(os.Environ(), "CULLY_HOME="+big)
	if o, err := fill.CombinedOutput(); err != nil {
		b.Fatalf("fill: %v\n%s", err, o)
	}
	b.Run("minimal", func(b *testing.B) {
		home := b.TempDir()
		for i := 0; i < b.N; i++ {
			runProc(b, minimal, home, payload)
		}
	})
	b.Run("cully-hook-empty-journal", func(b *testing.B) {
		home := b.TempDir()
		for i := 0; i < b.N; i++ {
			runProc(b, cully, home, payload)
		}
	})
	b.Run("cully-hook-"+strconv.Itoa(events)+"-event-journal", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			runProc(b, cully, big, payload)
		}
	})
}
