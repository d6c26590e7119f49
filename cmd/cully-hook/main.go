// Command cully-hook is `cully hook` alone, in a binary that links nothing
// else: no TUI, no CLI framework, no flag parsing, no other subcommand. An
// agent runs it before and after every tool call, so its start-up time is
// the product's hot path. Measured with bench/hook.sh (interleaved runs
// against a minimal Go hook, 2-core machine, CGO_ENABLED=0, each binary
// from three copies): cully-hook as Claude Code runs it (GOMAXPROCS=1
// before it, install.HookEnv, as every agent's entry sets it) 1.10-1.13x
// the minimal hook on the machine as it is now (1.07-1.11x when its
// processes started in twice the time), flat in journal size, 1.18-1.20x
// for a session at its state caps, the other adapters' payloads
// 1.09-1.16x; bare 1.13-1.15x; `cully hook` from the full binary
// 2.1-2.2x, most of the difference the package initialisation of the
// panel's and the CLI's libraries. (A full binary built with cgo took
// 0.8 ms more: cgo's start-up, through the terminal stack's os/user, is why
// every build of cully disables it.) docs/performance.md has the figures
// and what each start-up cost was.
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
	hookrun.GrowStack()
	hookrun.IgnoreSIGPIPE()
	hookrun.Run(hookrun.IO{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Detach: hookrun.Detach, Wait: hookrun.Wait, Exit: func() { os.Exit(0) }}, hookrun.Agent(os.Args[1:]))
}
