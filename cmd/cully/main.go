// Command cully watches AI coding agents through their lifecycle hooks.
//
// main is thin: it hands the real streams and environment to run and maps
// its result to the process exit code. Every subcommand reads and writes
// only the streams it is given.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], &app{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}))
}
