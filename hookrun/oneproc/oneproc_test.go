package oneproc

import (
	"runtime"
	"testing"
)

// The test binary imports the package, as cully-hook does: by the time a
// test runs, the process has one processor whatever the machine has.
func TestOneProcessor(t *testing.T) {
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Fatalf("GOMAXPROCS = %d after the package initialised, want 1", n)
	}
}
