package hookrun

import "os"

// GrowStack grows the calling goroutine's stack to 16 KiB in one step;
// a hook binary's main calls it first, while the stack is shallow. A
// goroutine's stack starts at 2 KiB and is 4 KiB at main; when a call
// needs more, the runtime doubles it, copying the stack and adjusting
// every frame's pointers (its stack maps read in from the binary: fresh
// pages), so growing at depth costs more the deeper it happens. The
// hook's usual path needs 8 KiB (a nudge formatted or a config parsed,
// more), and before its frames were trimmed (no map literal inlined into
// them: store.logSession, logCall) 16 KiB, grown 4 → 8 → 16 on the way.
// Measured with bench/ratio (1,500 interleaved runs, PostToolUse, both
// binaries copied fresh): 0.025 ms and 7 page faults per call then, and
// 0.013 ms and 3.6 faults with the frames trimmed. Measured again with
// the hook built plainly (no GC experiment; bench/ratio, 2,000 interleaved
// rounds, three copies each, Claude Code's PostToolUse-Bash payload, a
// machine at load 15-20): without it the hook took 4% more wall time at
// the median (5% mean), 3.1% more CPU and 8 page faults more a call, so
// it stays (a hand-written shortcut must save 3% of a call).
//
// The frame is 12 KiB: too big for an 8 KiB stack, small enough for a
// 16 KiB one, so the runtime goes from 4 to 16 KiB at once (a 6 KiB frame,
// to 8 KiB, measured no better; one that needed 32 KiB, slower: more pages
// zeroed than the hook touches).
//
//go:noinline
func GrowStack() byte {
	var pad [12 << 10]byte
	return pad[len(os.Args)%len(pad)] // a read the compiler cannot fold away, so the frame stays
}
