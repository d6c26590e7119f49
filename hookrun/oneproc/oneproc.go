// Package oneproc gives the hook process one processor (GOMAXPROCS 1), as
// the first thing its initialisation does.
//
// A hook call is one thread of work: read the payload, record it, answer.
// With two or more processors the runtime runs its own start-up goroutines
// (the background sweeper and scavenger, started before any package
// initialises) on a second processor, which wakes a second thread, and it
// hands an idle processor to a new thread whenever the hook's goroutine
// waits in a system call; on the 2-core development machine that cost a
// call 0.2 ms of its 2.7 ms. Measured with bench/ratio (400 interleaved
// runs, a Codex PostToolUse): 2.699 ms with the default, 2.493 ms with
// this package, 2.450 ms with GOMAXPROCS=1 in the environment (which only
// the host could set, before the runtime starts).
//
// Go initialises a package once everything it imports is initialised,
// choosing among the ready ones by import path; this one imports only the
// runtime, so it runs among the first. Importing it is all a binary does:
//
//	import _ "cully/hookrun/oneproc"
//
// It overrides GOMAXPROCS in the environment: the hook has no parallel
// work to give a second processor.
package oneproc

import "runtime"

// A package-level initialiser: this package's only work.
var _ = func() bool {
	runtime.GOMAXPROCS(1)
	return true
}()
