//go:build !unix

package main

// backgroundPriority: no lower priority here.
func backgroundPriority() {}
