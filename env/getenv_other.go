//go:build !unix

package env

import "os"

// Getenv is os.Getenv here (getenv_unix.go says why the hook reads its
// environment itself on Unix).
func Getenv(key string) string { return os.Getenv(key) }
