package main

import "cully/hookrun"

// cmdHook is `cully hook`: the same path as the lean cully-hook binary.
func cmdHook(a *app, args []string) error {
	hookrun.Run(hookrun.IO{Stdin: a.stdin, Stdout: a.stdout, Stderr: a.stderr, Getenv: a.getenv}, hookrun.Agent(args))
	return nil
}
