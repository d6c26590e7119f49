package runs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"cully/store"
)

func serveHome(t *testing.T) store.Home {
	t.Helper()
	h := store.Home{Dir: filepath.Join(t.TempDir(), "state")}
	if err := h.Ensure(); err != nil {
		t.Fatal(err)
	}
	return h
}

// taker counts the asks a test's servers take.
type taker struct {
	mu    sync.Mutex
	taken map[string]int
}

func (k *taker) take(a store.SnapshotAsk) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.taken[a.Run]++
}

func (k *taker) count() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.taken)
}

// Hooks ask while servers come and go (each lingers 1 ms): every ask is
// taken exactly once, none is left in the queue, and no two servers ever
// serve at once. This is the race between a server that stops and a hook
// whose probe found it still there.
func TestServeTakesEveryAskOnce(t *testing.T) {
	t.Parallel()
	h := serveHome(t)
	k := &taker{taken: map[string]int{}}
	var serving, most sync.Mutex
	live, peak := 0, 0
	opts := ServeOptions{Linger: time.Millisecond, Poll: 2 * time.Millisecond, Log: func(err error) { t.Error(err) },
		Take: func(a store.SnapshotAsk) {
			serving.Lock()
			live++
			most.Lock()
			peak = max(peak, live)
			most.Unlock()
			serving.Unlock()
			k.take(a)
			time.Sleep(50 * time.Microsecond)
			serving.Lock()
			live--
			serving.Unlock()
		}}
	var servers sync.WaitGroup
	var hooks sync.WaitGroup
	const asks = 600
	for w := range 4 {
		hooks.Add(1)
		go func() {
			defer hooks.Done()
			for i := range asks / 4 {
				if _, err := h.Ask(store.SnapshotAsk{Session: "s", Run: fmt.Sprintf("r%d-%d", w, i), Dir: "/p"}); err != nil {
					t.Error(err)
					return
				}
				if served, err := h.Served(); err != nil {
					t.Error(err)
				} else if !served {
					servers.Add(1)
					go func() {
						defer servers.Done()
						if err := Serve(h, opts); err != nil {
							t.Error(err)
						}
					}()
				}
				if i%7 == 0 {
					time.Sleep(time.Duration(i%3) * time.Millisecond)
				}
			}
		}()
	}
	hooks.Wait()
	servers.Wait()
	if k.count() != asks {
		t.Errorf("%d of %d asks taken", k.count(), asks)
	}
	for run, n := range k.taken {
		if n != 1 {
			t.Errorf("%s taken %d times", run, n)
		}
	}
	if ns, _ := h.Asks(); len(ns) != 0 {
		t.Errorf("%d asks left in the queue", len(ns))
	}
	if peak > 1 {
		t.Errorf("%d servers took asks at once", peak)
	}
	if _, err := Server(h); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a server record outlived every server: %v", err)
	}
}

// The window a stopping server leaves: a hook asks after the server's
// last look at the queue, while it still holds the lock, so the hook's
// probe says served and the hook starts nobody. The server's look after
// its release finds the ask and takes it.
func TestServeTakesTheAskMadeAsItStops(t *testing.T) {
	// Not parallel: it sets the package's beforeStop, which every server runs
	// (the parallel ones start after the serial ones end).
	h := serveHome(t)
	k := &taker{taken: map[string]int{}}
	var once sync.Once
	beforeStop = func() {
		once.Do(func() {
			if _, err := h.Ask(store.SnapshotAsk{Session: "s", Run: "late"}); err != nil {
				t.Error(err)
			}
			if live, err := h.Served(); err != nil || !live {
				t.Errorf("the probe in the window: served %v, %v", live, err)
			}
		})
	}
	defer func() { beforeStop = nil }()
	if err := Serve(h, ServeOptions{Linger: time.Millisecond, Poll: time.Millisecond, Take: k.take}); err != nil {
		t.Fatal(err)
	}
	if k.taken["late"] != 1 {
		t.Fatalf("the ask made as the server stopped was taken %d times", k.taken["late"])
	}
	if ns, _ := h.Asks(); len(ns) != 0 {
		t.Fatalf("left in the queue: %v", ns)
	}
}

// One server at a time: a second one finds the lock held and returns at
// once, taking nothing; the first records itself and what it took.
func TestServeOneAtATime(t *testing.T) {
	t.Parallel()
	h := serveHome(t)
	k := &taker{taken: map[string]int{}}
	stale := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- Serve(h, ServeOptions{Poll: 5 * time.Millisecond, Take: k.take, Stale: func() bool {
			select {
			case <-stale:
				return true
			default:
				return false
			}
		}})
	}()
	h.Ask(store.SnapshotAsk{Session: "s", Run: "r1"})
	waitFor(t, func() bool { i, err := Server(h); return err == nil && i.Taken == 1 })
	i, _ := Server(h)
	if i.PID != os.Getpid() || time.Since(i.Started) > time.Minute || i.Linger != DefaultLinger {
		t.Errorf("record: %+v", i)
	}
	if err := Serve(h, ServeOptions{Take: func(store.SnapshotAsk) { t.Error("a second server took an ask") }}); err != nil {
		t.Fatal(err)
	}
	h.Ask(store.SnapshotAsk{Session: "s", Run: "r2"})
	waitFor(t, func() bool { return k.count() == 2 })
	close(stale) // its binary replaced: it stops as soon as the queue is empty
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if live, _ := h.Served(); live {
		t.Error("the lock is still held")
	}
}

// A server whose state dir is removed stops (a test's temporary folder, a
// user's rm -rf) instead of lingering, and what it logs as the folder goes
// does not make it again under the remover.
func TestServeStopsWhenTheStateDirGoes(t *testing.T) {
	t.Parallel()
	for range 20 {
		h := serveHome(t)
		done := make(chan error, 1)
		go func() {
			done <- Serve(h, ServeOptions{Poll: time.Millisecond, Take: func(store.SnapshotAsk) {},
				Log: func(err error) { _ = h.LogErrorHere("snapshot", err, nil) }})
		}()
		waitFor(t, func() bool { _, err := Server(h); return err == nil })
		for i := range 50 { // removal events to wake it while the folder goes
			os.WriteFile(filepath.Join(h.Dir, fmt.Sprint("f", i)), nil, 0o600)
		}
		if err := os.RemoveAll(h.Dir); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the server is still serving a removed state dir")
		}
		if _, err := os.Lstat(h.Dir); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("the state dir is back after its removal: %v", err)
		}
	}
}

// The race that test leaves to chance, driven: the queue is gone when the
// server looks at it (the folder removed between its check and its look).
// Nothing is logged, and nothing it logs would make the state dir again.
func TestServeDrainOfARemovedQueue(t *testing.T) {
	t.Parallel()
	h := serveHome(t)
	if _, err := h.Ask(store.SnapshotAsk{Session: "s"}); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(h.Dir); err != nil {
		t.Fatal(err)
	}
	logged := 0
	s := &server{h: h, o: ServeOptions{Take: func(store.SnapshotAsk) { t.Error("took an ask of a removed queue") },
		Log: func(err error) { logged++; _ = h.LogErrorHere("snapshot", err, nil) }}}
	if n := s.drain(); n != 0 || logged != 0 {
		t.Errorf("drain of a removed queue: took %d, logged %d", n, logged)
	}
	if err := h.LogErrorHere("snapshot", errors.New("x"), nil); err == nil {
		t.Error("LogErrorHere wrote into a removed state dir")
	}
	if _, err := os.Lstat(h.Dir); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the state dir is back: %v", err)
	}
}

// waitFor polls cond for up to 30 s: a wait, not a timing assertion.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("not within 30 s")
		}
	}
}

// A server started after its state dir went (the hook asked, then the
// folder was removed before the server ran) serves nothing and leaves the
// folder gone.
func TestServeOfARemovedStateDirMakesNothing(t *testing.T) {
	t.Parallel()
	h := serveHome(t)
	if err := os.RemoveAll(h.Dir); err != nil {
		t.Fatal(err)
	}
	if err := Serve(h, ServeOptions{Poll: time.Millisecond, Linger: 50 * time.Millisecond, Take: func(store.SnapshotAsk) { t.Error("took an ask") }}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(h.Dir); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the state dir is back: %v", err)
	}
}
