package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// stopSignals returns a context that the signals ending a command run by
// hand cancel: SIGINT (Ctrl-C where the terminal is not raw), SIGTERM
// (kill) and SIGHUP (the terminal went away). Left to their default, the
// last two end the process before its deferred clean-up runs. stopped stops
// listening and says which signal came, nil when none did.
func stopSignals(parent context.Context) (ctx context.Context, stopped func() os.Signal) {
	ctx, cancel := context.WithCancel(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	var got os.Signal
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		select {
		case got = <-ch:
			cancel()
		case <-done:
			select { // one that came just now still counts
			case got = <-ch:
			default:
			}
		}
	}()
	var once sync.Once
	return ctx, func() os.Signal {
		once.Do(func() { close(done) })
		<-exited
		signal.Stop(ch) // after: a signal during the caller's clean-up is caught, not fatal
		return got
	}
}

// isClosedPipe reports a write to a reader that went away
// (`cully demo --headless | head -1`).
func isClosedPipe(err error) bool { return errors.Is(err, syscall.EPIPE) }
