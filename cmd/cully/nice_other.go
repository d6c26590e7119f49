//go:build !linux

package main

// inBackground runs fn. Elsewhere a nice value is the whole process's, and
// lowering it would also slow the journal record a hook may wait for.
func inBackground(fn func()) { fn() }
