// Command cully-export is `cully export` (docs/teams.md): it follows the
// journal and sends it to an OpenTelemetry collector over OTLP. A binary
// of its own because the OpenTelemetry SDK, gRPC and protobuf it links add
// about 1.3 ms of package initialisation to every start of a binary that
// links them (GODEBUG=inittrace=1: 1.94 ms against 0.66 ms for `cully
// version`), and `cully` starts often: the status line, the hook's
// background work. `cully export` runs this binary from beside itself.
//
// Usage: cully-export [--from saved|start|end] [--once]
// Exit status: 0 done (or stopped by a signal), 1 failed, 2 used wrongly.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"cully/env"
	"cully/export"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

func main() {
	fs := flag.NewFlagSet("cully export", flag.ContinueOnError)
	from := fs.String("from", "saved", "where to start: saved (where it last stopped; the first time, now, or with --once the whole journal), start (the whole journal) or end (only what comes next)")
	once := fs.Bool("once", false, "send what the journal holds now, then exit")
	if err := fs.Parse(os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		os.Exit(2)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "cully export: takes no arguments (got %q)\n", fs.Arg(0))
		os.Exit(2)
	}
	h, err := env.Env{Getenv: os.Getenv}.Home()
	if err == nil {
		err = h.Check()
		if errors.Is(err, os.ErrNotExist) {
			err = nil
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "cully export: state dir: %v\n", err)
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = export.Run(ctx, h, export.Options{From: *from, Once: *once, Version: version, Getenv: os.Getenv, Stdout: os.Stdout, Stderr: os.Stderr})
	if err != nil {
		fmt.Fprintf(os.Stderr, "cully export: %v\n", err)
		if errors.Is(err, export.ErrUsage) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}
