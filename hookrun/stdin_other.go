//go:build !unix

package hookrun

import (
	"errors"
	"io"
	"os"
	"time"
)

var errSilent = errors.New("stdin stayed silent")

// silentStdin has no poll(2) here: the caller falls back to a timer.
func silentStdin(io.Reader, time.Duration, bool) io.Reader { return nil }

// StdinReady is never sure here: the caller checks for a terminal.
func StdinReady(*os.File) bool { return false }
