package main

import (
	"fmt"
	"runtime/debug"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

// versionLine is what `cully version` and `cully --version` print.
func versionLine() string {
	goVer := "unknown"
	if bi, ok := debug.ReadBuildInfo(); ok {
		goVer = bi.GoVersion
	}
	return fmt.Sprintf("%s (%s)", version, goVer)
}
