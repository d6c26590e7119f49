package store

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"time"
)

// ErrLockTimeout is returned when a lock could not be had before its deadline.
var ErrLockTimeout = errors.New("lock not acquired before the deadline")

// DefaultLockWait is how long a writer waits for a session's lock. A hook
// call holds its locks for well under a millisecond, so waiting longer than
// this means something is wrong; the hook then records the error and lets
// the agent go. The journal lock is waited on JournalWait at most, then the
// record goes to pending/ (pending.go).
const DefaultLockWait = 2 * time.Second

// Lock is a held file lock.
type Lock struct{ f *sysFile }

// Unlock releases the lock.
func (l *Lock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	return l.f.Close()
}

// Acquire takes an exclusive lock on path (created 0600 if missing) within
// wait. It blocks in the kernel rather than polling, so a waiter wakes as
// soon as the holder releases; a lock granted after the deadline is released
// at once, so a long-lived caller never keeps a lock it gave up on. The
// lock file is opened as every file of the state dir is: never through a
// symlink, and only if it is a regular file.
func Acquire(path string, wait time.Duration) (*Lock, error) {
	return acquire(path, wait, false)
}

// AcquireShared takes a shared (reader) lock on path within wait.
func AcquireShared(path string, wait time.Duration) (*Lock, error) {
	return acquire(path, wait, true)
}

// AcquirePolling is Acquire for a short wait: it tries the lock again every
// millisecond until wait has passed, instead of blocking in the kernel. A
// blocked waiter that gives up leaves its flock call pending, and takes the
// lock for a moment when the holder releases it: harmless in a hook, which
// exits, but in a long-lived process (the panel, a test) it makes the next
// try fail. The journal lock is taken this way (JournalWait): no waiter is
// ever left behind it.
func AcquirePolling(path string, wait time.Duration) (*Lock, error) {
	deadline := time.Now().Add(wait)
	for {
		l, err := acquire(path, 0, false)
		if !errors.Is(err, ErrLockTimeout) || !time.Now().Before(deadline) {
			return l, err
		}
		time.Sleep(min(time.Millisecond, time.Until(deadline)))
	}
}

// acquire opens the lock file (created if missing), locks it, and only
// then stats it: the stat refuses anything but a regular file (flock on a
// FIFO's descriptor neither blocks nor harms).
func acquire(path string, wait time.Duration, shared bool) (*Lock, error) {
	l, err := lockFile(path, wait, shared, os.O_RDONLY|os.O_CREATE)
	if err != nil {
		return nil, err
	}
	if err := l.f.stat(); err != nil {
		l.Unlock()
		return nil, fmt.Errorf("lock: %w", err)
	}
	return l, nil
}

// lockFile opens path with flag (a file created 0600) and locks it within
// wait (no wait at all: one try); the caller stats it. A file that cannot be opened is returned as
// the open's error (fs.ErrNotExist for a reader's missing file), wrapped.
func lockFile(path string, wait time.Duration, shared bool, flag int) (*Lock, error) {
	f, err := openRaw(path, flag, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	ok, err := f.lock(shared, false)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if ok {
		return &Lock{f}, nil
	}
	if wait <= 0 { // a try only
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, ErrLockTimeout)
	}
	var (
		mu        sync.Mutex
		abandoned bool
		done      = make(chan error, 1)
	)
	go func() {
		_, err := f.lock(shared, true)
		mu.Lock()
		defer mu.Unlock()
		if abandoned {
			f.Close()
			return
		}
		done <- err
	}()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case err := <-done:
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		return &Lock{f}, nil
	case <-timer.C:
		mu.Lock()
		defer mu.Unlock()
		select {
		case err := <-done: // granted just in time
			if err == nil {
				return &Lock{f}, nil
			}
		default:
			abandoned = true
			return nil, fmt.Errorf("lock %s: %w", path, ErrLockTimeout)
		}
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, ErrLockTimeout)
	}
}
