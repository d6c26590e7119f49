//go:build !unix

package main

import "github.com/rogpeppe/go-internal/testscript"

func scriptMkfifo(ts *testscript.TestScript, neg bool, args []string) {
	ts.Fatalf("mkfifo: no named pipes here (guard the script with [!unix] skip)")
}
