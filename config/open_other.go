//go:build !unix

package config

import "os"

// openNoWait opens a file for reading. Outside Unix there are no FIFOs to
// block on in the file system; the caller's fstat still refuses anything but
// a regular file.
func openNoWait(path string, _ bool) (*os.File, error) { return os.Open(path) }
