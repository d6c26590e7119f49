// Command cully-hook is `cully hook` alone, in a binary that links nothing
// else: no TUI, no flag parsing, no other subcommand. An agent runs it
// before and after every tool call, so its start-up time is the product's
// hot path; the full cully binary links the panel's Bubble Tea stack, whose
// package initialisation alone costs more than the whole hook.
//
// Usage (in the agent's hook settings): cully-hook [--agent claude]
// It always exits 0.
package main

import (
	"os"

	"cully/hookrun"
)

func main() {
	hookrun.Run(hookrun.IO{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}, hookrun.Agent(os.Args[1:]))
}
