// Command cully-hook is `cully hook` alone, in a binary that links nothing
// else: no TUI, no CLI framework, no flag parsing, no other subcommand. An
// agent runs it before and after every tool call, so its start-up time is
// the product's hot path. Measured with bench/ratio (300 interleaved runs,
// a session at the state caps, a 1M-event journal, 2-core machine; both
// built with CGO_ENABLED=0): cully-hook 1.57 ms median, `cully hook` from
// the full binary 2.21 ms — the split saves about 0.6 ms a call, most of it
// the package initialisation of the panel's and the CLI's libraries. (A
// full binary built with cgo took 3.03 ms: cgo's start-up, through the
// terminal stack's os/user, is why every build of cully disables it.)
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
	hookrun.IgnoreSIGPIPE()
	hookrun.Run(hookrun.IO{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Exit: func() { os.Exit(0) }}, hookrun.Agent(os.Args[1:]))
}
