package main

import (
	"fmt"
	"runtime/debug"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

func cmdVersion(a *app, args []string) error {
	fs := a.flags("version")
	if err := parse(fs, args); err != nil {
		return err
	}
	goVer := "unknown"
	if bi, ok := debug.ReadBuildInfo(); ok {
		goVer = bi.GoVersion
	}
	fmt.Fprintf(a.stdout, "cully %s (%s)\n", version, goVer)
	return nil
}
