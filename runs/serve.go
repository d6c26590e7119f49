package runs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"time"

	"github.com/fsnotify/fsnotify"

	"cully/store"
)

// ServeOptions bound a snapshot server's life (store's asks.go has the
// queue and why no ask is lost when a server stops).
type ServeOptions struct {
	// Linger is how long the server waits with nothing asked before it
	// stops. An agent asks for a snapshot every 10 tool calls or 120 s,
	// so one server serves a working session from start to end.
	Linger time.Duration
	// Lifetime: past it, the server stops as soon as the queue is empty,
	// and the next ask starts a new one (an upgraded binary takes over).
	Lifetime time.Duration
	// Poll is how often the server looks at the queue without being
	// told (a missed notification, a queue on a file system inotify does
	// not watch) and whether its state dir is still there.
	Poll time.Duration
	// Stale reports that the server should stop lingering (its binary
	// was replaced); nil: never.
	Stale func() bool
	// Take takes one ask and records its outcome.
	Take func(store.SnapshotAsk)
	// Log receives what goes wrong that no ask's outcome says. It must
	// not create the state dir (store.Home.LogErrorHere).
	Log func(error)
}

// Defaults of ServeOptions.
const (
	DefaultLinger   = 10 * time.Minute
	DefaultLifetime = time.Hour
	defaultPoll     = time.Second
	// probeWait tells a hook's probe (a shared hold of a few µs) from a
	// live server (which holds the lock as long as it runs).
	probeWait = 200 * time.Millisecond
)

// Serve serves h's snapshot queue: it takes the server's lock, takes every
// ask in the queue, oldest first, and waits for more until it has been
// idle Linger. It returns nil at once when another server holds the lock.
func Serve(h store.Home, o ServeOptions) error {
	if o.Take == nil {
		return errors.New("serve: nothing takes the asks")
	}
	if o.Linger <= 0 {
		o.Linger = DefaultLinger
	}
	if o.Lifetime <= 0 {
		o.Lifetime = DefaultLifetime
	}
	if o.Poll <= 0 {
		o.Poll = defaultPoll
	}
	if o.Log == nil {
		o.Log = func(error) {}
	}
	lk, err := h.ServeLock(probeWait)
	if errors.Is(err, store.ErrLockTimeout) {
		return nil // a live server has the queue
	}
	if errors.Is(err, fs.ErrNotExist) {
		// The state dir is gone (removed between the hook's ask and this
		// start: a demo's or a test's folder, a user's rm -rf): nothing
		// to serve, and the lock does not make it again.
		return nil
	}
	if err != nil {
		return err
	}
	s := &server{h: h, o: o, lk: lk, started: time.Now()}
	s.hold()
	if err := h.Reclaim(); err != nil {
		o.Log(fmt.Errorf("put back the asks a stopped server had claimed: %w", err))
	}
	w, err := fsnotify.NewWatcher()
	if err == nil {
		if err = w.Add(h.AsksDir()); err != nil {
			w.Close()
			w = nil
		}
	}
	if err != nil {
		o.Log(fmt.Errorf("watch the snapshot queue (looking every %v instead): %w", o.Poll, err))
	}
	if w != nil {
		defer w.Close()
	}
	return s.run(w)
}

// beforeStop runs as a server is about to let its lock go: a test's way
// into the window between its last look at the queue and its release.
var beforeStop func()

type server struct {
	h       store.Home
	o       ServeOptions
	lk      *store.Lock
	started time.Time
	taken   int
}

// hold records the server while it holds the lock: its pid, its start,
// how many asks it has taken and how long it lingers (ServerRecord).
func (s *server) hold() {
	rec := strconv.Itoa(os.Getpid()) + " " + s.started.UTC().Format(time.RFC3339) + " " + strconv.Itoa(s.taken) + " " + s.o.Linger.String() + "\n"
	if err := store.WriteFileAtomic(s.h.ServerRecord(), []byte(rec)); err != nil {
		s.o.Log(err)
	}
}

// release lets the lock go, its record first.
func (s *server) release() {
	_ = os.Remove(s.h.ServerRecord())
	_ = s.lk.Unlock()
	s.lk = nil
}

func (s *server) run(w *fsnotify.Watcher) error {
	var events <-chan fsnotify.Event
	var errs <-chan error
	if w != nil {
		events, errs = w.Events, w.Errors
	}
	tick := time.NewTicker(s.o.Poll)
	defer tick.Stop()
	last := time.Now()
	for {
		if _, err := os.Lstat(s.h.AsksDir()); errors.Is(err, fs.ErrNotExist) {
			s.release() // the state dir is gone (a test's, a user's rm -rf)
			return nil
		}
		if n := s.drain(); n > 0 {
			s.taken += n
			s.hold()
			last = time.Now()
		}
		retiring := time.Since(s.started) >= s.o.Lifetime || (s.o.Stale != nil && s.o.Stale())
		if retiring || time.Since(last) >= s.o.Linger {
			if beforeStop != nil {
				beforeStop()
			}
			s.release()
			// An ask written before a probe that found the lock held is
			// in the queue now: take the lock back for it, unless another
			// process has it (that one serves it).
			ns, err := s.h.Asks()
			if err != nil || len(ns) == 0 {
				return nil
			}
			lk, err := s.h.ServeLock(probeWait)
			if err != nil {
				return nil
			}
			s.lk = lk
			s.hold()
			continue
		}
		select {
		case <-events:
		case err := <-errs:
			s.o.Log(fmt.Errorf("watch the snapshot queue: %w", err))
		case <-tick.C:
		}
	}
}

// drain takes every ask in the queue, oldest first.
func (s *server) drain() int {
	ns, err := s.h.Asks()
	if errors.Is(err, fs.ErrNotExist) {
		return 0 // the state dir is going: run stops
	}
	if err != nil {
		s.o.Log(fmt.Errorf("read the snapshot queue: %w", err))
		return 0
	}
	n := 0
	for _, name := range ns {
		a, err := s.h.Claim(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue // withdrawn by a hook whose server did not start
		}
		if err != nil {
			s.o.Log(err)
			continue
		}
		s.o.Take(a)
		n++
		if err := s.h.Done(name); err != nil {
			s.o.Log(err)
		}
	}
	return n
}

// ServerInfo is what a live snapshot server records of itself.
type ServerInfo struct {
	PID     int
	Started time.Time
	Taken   int           // asks taken so far
	Linger  time.Duration // how long it waits with nothing asked before it stops
}

// Server reads the live snapshot server's record: fs.ErrNotExist when
// none is serving h.
func Server(h store.Home) (ServerInfo, error) {
	b, err := store.ReadSmallFile(h.ServerRecord(), 256)
	if err != nil {
		return ServerInfo{}, err
	}
	var i ServerInfo
	var at, linger string
	if _, err := fmt.Sscanf(string(b), "%d %s %d %s", &i.PID, &at, &i.Taken, &linger); err != nil {
		return i, fmt.Errorf("snapshot server record %q: %w", b, err)
	}
	if i.Linger, err = time.ParseDuration(linger); err != nil {
		return i, fmt.Errorf("snapshot server record %q: %w", b, err)
	}
	i.Started, err = time.Parse(time.RFC3339, at)
	return i, err
}
