package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The snapshot queue. A hook call that asks for a recovery snapshot writes
// the ask into asks/ and, when no snapshot server holds asks/serve.lock,
// starts one (`cully snapshot --serve`); a live server is told by the
// directory itself (it watches asks/). Starting a process cost the hook
// call that asked 0.17–0.25 ms (docs/performance.md); writing a small file
// and probing a lock costs it a few µs.
//
// No ask is lost between a server that stops and a hook that asks:
//   - the hook writes its ask before it probes the lock; the probe finds
//     the lock held (a server will see the ask) or free (the hook starts a
//     server, which takes the lock and reads the queue);
//   - a server stops by releasing the lock and only then reading the queue
//     once more: an ask written before a probe that found the lock held is
//     there; if there is one, the server takes the lock again and goes on,
//     or, when another process holds it, leaves the ask to that one (a
//     server, or a hook whose probe found the lock free and starts one).
//
// A server claims an ask by renaming it (.ask → .taking): one rename
// succeeds, so an ask is taken once, and a hook whose server could not be
// started withdraws its ask only if no server has claimed it.
const (
	asksDir   = "asks"
	askSuffix = ".ask"
	takingSfx = ".taking"
	serveLock = "serve.lock"
	serverRec = "server" // the live server's pid and start, for status and tests
	askMagic  = "cully-ask1\n"
	// maxAsk bounds an ask file: seven fields, the longest a path.
	maxAsk = 1 << 20
)

// SnapshotAsk is one snapshot a hook call asks for: what `cully snapshot
// --background` took as flags.
type SnapshotAsk struct {
	Session string
	Run     string
	Task    int
	Reason  string
	Calls   int
	Dir     string
	At      time.Time // the tool call's time, on the hook's clock
}

// AsksDir is the snapshot queue.
func (h Home) AsksDir() string { return filepath.Join(h.Dir, asksDir) }

// ServerRecord is the file a live snapshot server keeps its pid in.
func (h Home) ServerRecord() string { return filepath.Join(h.AsksDir(), serverRec) }

// asksReady creates the queue folder (0700) and holds it to the state
// dir's trust checks.
func (h Home) asksReady() error { return ensureDir(h.AsksDir(), "snapshot queue") }

// encodeAsk writes an ask as its magic line, then each field as its length,
// ':' and its bytes, and a newline: any byte may be in a field (a hostile
// session id with a NUL or a newline round-trips), and a file cut short
// does not parse.
func encodeAsk(a SnapshotAsk) []byte {
	b := make([]byte, 0, len(askMagic)+len(a.Session)+len(a.Run)+len(a.Reason)+len(a.Dir)+64)
	b = append(b, askMagic...)
	at := ""
	if !a.At.IsZero() {
		at = strconv.FormatInt(a.At.UnixNano(), 10)
	}
	for _, f := range [...]string{a.Session, a.Run, strconv.Itoa(a.Task), a.Reason, strconv.Itoa(a.Calls), a.Dir, at} {
		b = strconv.AppendInt(b, int64(len(f)), 10)
		b = append(b, ':')
		b = append(b, f...)
		b = append(b, '\n')
	}
	return b
}

// errPartialAsk is an ask file whose writer has not finished (or died
// before it did).
var errPartialAsk = errors.New("the ask is not whole")

func decodeAsk(b []byte) (SnapshotAsk, error) {
	var a SnapshotAsk
	rest, ok := strings.CutPrefix(string(b), askMagic)
	if !ok {
		if strings.HasPrefix(askMagic, string(b)) {
			return a, errPartialAsk
		}
		return a, errors.New("not a snapshot ask")
	}
	var fields [7]string
	for i := range fields {
		n, after, ok := strings.Cut(rest, ":")
		if !ok {
			return a, errPartialAsk
		}
		l, err := strconv.Atoi(n)
		if err != nil || l < 0 {
			return a, fmt.Errorf("field %d: bad length %q", i+1, n)
		}
		if len(after) < l+1 {
			return a, errPartialAsk
		}
		if after[l] != '\n' {
			return a, fmt.Errorf("field %d: no newline after %d bytes", i+1, l)
		}
		fields[i], rest = after[:l], after[l+1:]
	}
	if rest != "" {
		return a, errors.New("bytes after the last field")
	}
	task, err1 := strconv.Atoi(fields[2])
	calls, err2 := strconv.Atoi(fields[4])
	var at time.Time
	if fields[6] != "" {
		ns, err := strconv.ParseInt(fields[6], 10, 64)
		if err != nil {
			return a, fmt.Errorf("time: %w", err)
		}
		at = time.Unix(0, ns).UTC()
	}
	if err := errors.Join(err1, err2); err != nil {
		return a, err
	}
	return SnapshotAsk{Session: fields[0], Run: fields[1], Task: task, Reason: fields[3], Calls: calls, Dir: fields[5], At: at}, nil
}

// Ask queues a snapshot ask and returns its name (for Withdraw). The file
// is created exclusively (never through a link) and written in one write.
func (h Home) Ask(a SnapshotAsk) (string, error) {
	if err := h.asksReady(); err != nil {
		return "", err
	}
	b := encodeAsk(a)
	if len(b) > maxAsk {
		return "", fmt.Errorf("snapshot ask: %d bytes is over the %d-byte limit", len(b), maxAsk)
	}
	base := strconv.FormatInt(time.Now().UnixNano(), 10) + "-" + strconv.Itoa(os.Getpid())
	for i := 0; ; i++ {
		name := base + "-" + strconv.Itoa(i) + askSuffix
		f, err := createNew(filepath.Join(h.AsksDir(), name))
		if errors.Is(err, fs.ErrExist) && i < 8 {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("snapshot ask: %w", err)
		}
		_, err = f.Write(b)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			_ = os.Remove(f.path)
			return "", fmt.Errorf("snapshot ask: %w", err)
		}
		return name, nil
	}
}

// Served reports whether a snapshot server holds the queue's lock: the
// hook's probe, a shared lock tried without waiting and let go at once.
func (h Home) Served() (bool, error) {
	f, err := openRaw(filepath.Join(h.AsksDir(), serveLock), os.O_RDONLY|os.O_CREATE, 0o600)
	if err != nil {
		return false, fmt.Errorf("snapshot server lock: %w", err)
	}
	defer f.Close()
	if err := f.stat(); err != nil {
		return false, fmt.Errorf("snapshot server lock: %w", err)
	}
	got, err := f.lock(true, false)
	if err != nil {
		return false, err
	}
	return !got, nil
}

// Withdraw removes an ask that no server has claimed; false (and no
// error) when a server already has it.
func (h Home) Withdraw(name string) (bool, error) {
	err := os.Remove(filepath.Join(h.AsksDir(), name))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// ServeLock takes the snapshot server's lock within wait: the one process
// that serves the queue holds it for as long as it runs. A hook's probe
// holds it shared for a few µs, so a short wait tells a probe from a
// server. It never creates the state dir (an error wrapping
// fs.ErrNotExist when it is gone): a server serves the queue a hook made,
// and a state dir removed as a server starts (a demo's, a test's) stays
// removed.
func (h Home) ServeLock(wait time.Duration) (*Lock, error) {
	fi, err := os.Lstat(h.Dir)
	if err != nil {
		return nil, fmt.Errorf("state dir: %w", err)
	}
	if err := checkDir(h.Dir, fi); err != nil {
		return nil, err
	}
	if err := h.asksReady(); err != nil {
		return nil, err
	}
	// Polling, not a blocking wait: a server that finds another one gives
	// up after wait, and a blocked flock it left pending would take the
	// lock for a moment when the live server stops (TestServeOneAtATime
	// saw the lock still held after the server returned, under -race).
	return AcquirePolling(filepath.Join(h.AsksDir(), serveLock), wait)
}

// Asks lists the queue's waiting asks, oldest first (their names start
// with the time they were written).
func (h Home) Asks() ([]string, error) {
	es, err := os.ReadDir(h.AsksDir())
	if err != nil {
		return nil, err
	}
	var ns []string
	for _, e := range es {
		if n := e.Name(); strings.HasSuffix(n, askSuffix) && e.Type().IsRegular() {
			ns = append(ns, n)
		}
	}
	slices.Sort(ns)
	return ns, nil
}

// Reclaim puts back in the queue the asks a server claimed and never
// finished (it died): called by a server that holds the lock, so no other
// one is taking them.
func (h Home) Reclaim() error {
	es, err := os.ReadDir(h.AsksDir())
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range es {
		if n, ok := strings.CutSuffix(e.Name(), takingSfx); ok {
			errs = append(errs, os.Rename(filepath.Join(h.AsksDir(), e.Name()), filepath.Join(h.AsksDir(), n+askSuffix)))
		}
	}
	return errors.Join(errs...)
}

// partialWait is how long Claim waits for an ask's writer to finish: it
// writes the whole ask in one write right after creating the file.
const partialWait = time.Second

// Claim takes an ask out of the queue and reads it. The rename is the
// claim: a hook that withdraws its ask finds it gone. An ask that is not
// whole is waited for a moment (its writer is between create and write),
// then dropped with an error: it names no run to account it to.
func (h Home) Claim(name string) (SnapshotAsk, error) {
	from := filepath.Join(h.AsksDir(), name)
	to := strings.TrimSuffix(from, askSuffix) + takingSfx
	if err := os.Rename(from, to); err != nil {
		return SnapshotAsk{}, err
	}
	deadline := time.Now().Add(partialWait)
	for {
		b, err := ReadSmallFile(to, maxAsk)
		if err != nil {
			_ = os.Remove(to)
			return SnapshotAsk{}, fmt.Errorf("snapshot ask %s: %w", name, err)
		}
		a, err := decodeAsk(b)
		if errors.Is(err, errPartialAsk) && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
			continue
		}
		if err != nil {
			_ = os.Remove(to)
			return a, fmt.Errorf("snapshot ask %s: %w", name, err)
		}
		return a, nil
	}
}

// Done removes a claimed ask once its outcome is recorded.
func (h Home) Done(name string) error {
	err := os.Remove(filepath.Join(h.AsksDir(), strings.TrimSuffix(name, askSuffix)+takingSfx))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
