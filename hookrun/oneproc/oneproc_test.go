package oneproc

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// The test binary imports the package, as cully-hook does: by the time a
// test runs, the process has one processor whatever the machine has.
func TestOneProcessor(t *testing.T) {
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Fatalf("GOMAXPROCS = %d after the package initialised, want 1", n)
	}
	if os.Getenv("ONEPROC_CHILD") != "" {
		return
	}
	// On a one-core machine the default is 1 already: the same test, run
	// with GOMAXPROCS=4 in its environment, holds it on any machine.
	cmd := exec.Command(os.Args[0], "-test.run=^TestOneProcessor$", "-test.v")
	cmd.Env = append(os.Environ(), "GOMAXPROCS=4", "ONEPROC_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestOneProcessor") {
		t.Fatalf("with GOMAXPROCS=4 in the environment: %v\n%s", err, out)
	}
}
