//go:build !unix

package hookrun

import (
	"errors"
	"io"
	"time"
)

var errSilent = errors.New("stdin stayed silent")

// silentStdin has no poll(2) here: the caller falls back to a timer.
func silentStdin(io.Reader, time.Duration) io.Reader { return nil }
