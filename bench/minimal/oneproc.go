//go:build oneproc

package main

// Built with -tags oneproc, the minimal hook starts as cully-hook does, with
// one processor (hookrun/oneproc): bench/hook.sh shows it beside the plain
// one, so a reader sees what the setting is worth to any Go hook.
import _ "cully/hookrun/oneproc"
