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

// DefaultLockWait is how long a writer waits for a lock. A hook call holds
// its locks for well under a millisecond, so waiting longer than this means
// something is wrong; the hook then records the error and lets the agent go.
const DefaultLockWait = 2 * time.Second

// Lock is a held file lock.
type Lock struct{ f *sysFile }

// The mark of a record in flight (see Home.update) is the lock file's one
// byte: '!' while a record is in flight, '.' otherwise. Its size is read
// once the lock is held (a lock file never marked is empty), and the byte
// is overwritten in place rather than truncated: truncating cost ext4 a
// journal transaction per call. The lock must have been taken with write
// access to mark it.
func (l *Lock) marked() bool {
	if l.f.size == 0 {
		return false
	}
	var b [1]byte
	_, err := l.f.ReadAt(b[:], 0)
	return err == nil && b[0] == '!'
}

func (l *Lock) mark() error {
	_, err := l.f.WriteAt([]byte{'!'}, 0)
	return err
}

func (l *Lock) unmark() error {
	_, err := l.f.WriteAt([]byte{'.'}, 0)
	return err
}

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
	return acquire(path, wait, false, os.O_RDONLY)
}

// AcquireShared takes a shared (reader) lock on path within wait.
func AcquireShared(path string, wait time.Duration) (*Lock, error) {
	return acquire(path, wait, true, os.O_RDONLY)
}

// acquire opens the lock file (mode: os.O_RDONLY, or os.O_RDWR for a lock
// whose file carries a mark), locks it, and only then stats it: the stat
// refuses anything but a regular file (flock on a FIFO's descriptor
// neither blocks nor harms) and reads the size as the lock's holder sees
// it.
func acquire(path string, wait time.Duration, shared bool, mode int) (*Lock, error) {
	l, err := lockFile(path, wait, shared, mode)
	if err != nil {
		return nil, err
	}
	if err := l.f.stat(); err != nil {
		l.Unlock()
		return nil, fmt.Errorf("lock: %w", err)
	}
	return l, nil
}

func lockFile(path string, wait time.Duration, shared bool, mode int) (*Lock, error) {
	f, err := openRaw(path, mode|os.O_CREATE, 0o600)
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
