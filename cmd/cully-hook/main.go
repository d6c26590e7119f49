// Command cully-hook is `cully hook` alone, in a binary that links nothing
// else: no TUI, no CLI framework, no flag parsing, no other subcommand. An
// agent runs it before and after every tool call, so its start-up time is
// the product's hot path. Measured with bench/hook.sh (1M-event journal,
// median of 300 interleaved runs on a 2-core machine), the lean binary
// saves about 0.25 ms a call over `cully hook` from a cgo-free full build,
// and more over a full build that links cgo (see docs/performance.md).
//
// Usage (in the agent's hook settings): cully-hook [--agent NAME]
// It always exits 0. `-h` prints one usage line; a terminal on stdin (a
// person trying it by hand) gets a sentence instead of a wait.
package main

import (
	"fmt"
	"os"

	"golang.org/x/term"

	"cully/hookrun"
)

const usage = "usage: cully-hook [--agent NAME] < payload.json  (one agent hook call; see `cully hook --help`)"

func main() {
	for _, a := range os.Args[1:] {
		if a == "-h" || a == "--help" || a == "-help" {
			fmt.Println(usage)
			return
		}
	}
	if term.IsTerminal(int(os.Stdin.Fd())) {
		fmt.Fprintln(os.Stderr, "cully-hook reads one hook payload (JSON) on stdin, as an agent sends it; nothing to do from a terminal.\n"+usage)
		return
	}
	hookrun.Run(hookrun.IO{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}, hookrun.Agent(os.Args[1:]))
}
