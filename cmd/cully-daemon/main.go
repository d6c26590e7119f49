// Command cully-daemon is `cully daemon` (package daemon): Claude Code's
// http hooks served to the user's own processes. A binary of its own, run
// by `cully daemon` from beside itself, so that net/http's start-up and
// size stay out of cully, which the status line starts on every refresh.
//
// Usage: cully-daemon [--listen 127.0.0.1:PORT] [--token]
// Without --listen it serves the Unix socket in the state dir; --token
// prints the install's secret (made on first use) and exits.
// Exit status: 0 stopped by a signal, 1 failed, 2 used wrongly.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"cully/daemon"
	"cully/env"
)

func main() {
	fs := flag.NewFlagSet("cully daemon", flag.ContinueOnError)
	listen := fs.String("listen", "", "loopback address to listen on (HOST:PORT), each request carrying the secret; default: the Unix socket in the state dir")
	token := fs.Bool("token", false, "print the secret a request over --listen carries, and exit")
	if err := fs.Parse(os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		os.Exit(2)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "cully daemon: takes no arguments (got %q)\n", fs.Arg(0))
		os.Exit(2)
	}
	h, err := env.Env{Getenv: os.Getenv}.Home()
	if err != nil {
		fmt.Fprintf(os.Stderr, "cully daemon: state dir: %v\n", err)
		os.Exit(1)
	}
	if *token {
		tok, err := daemon.Token(h)
		if err != nil {
			fmt.Fprintf(os.Stderr, "cully daemon: %v\n", err)
			os.Exit(1)
		}
		fmt.Println(tok)
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := daemon.Serve(ctx, daemon.Config{Home: h, Listen: *listen, Getenv: os.Getenv, Log: os.Stderr}); err != nil {
		fmt.Fprintf(os.Stderr, "cully daemon: %v\n", err)
		if errors.Is(err, daemon.ErrUsage) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}
