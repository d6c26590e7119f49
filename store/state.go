package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"cully/engine"
)

// ErrNoSession is returned when no session has been recorded yet.
var ErrNoSession = errors.New("no session recorded yet")

// rebuildLimit bounds the journal a hook replays by itself when a session's
// state file is unreadable; beyond it the state starts fresh and the error
// log points at `cully status --rebuild`.
const rebuildLimit = 64 << 20

// maxStateFile bounds a state file the store reads: the reducer caps what
// a state holds, so anything far larger is damage.
const maxStateFile = 64 << 20

// Record folds one event into its session and appends it to the journal,
// both under the session lock, so the journal order of a session is the
// order its state saw. When h.Now is set, the event's time is read from it
// under that lock. Times no reader could parse back are clamped or dropped
// first (see clampTimes). The state is saved only after the journal append
// succeeded: state never runs ahead of the journal.
func (h Home) Record(ev *engine.Event, cfg *engine.Config) ([]engine.Signal, error) {
	if err := h.ready(); err != nil {
		return nil, err
	}
	var sigs []engine.Signal
	err := h.update(ev.Session, func(st *engine.State) (bool, error) {
		if h.Now != nil {
			ev.Time = h.Now().UTC()
		}
		clampTimes(ev)
		sigs = engine.Apply(st, ev, cfg)
		ev.Signals = sigs
		if err := h.appendJournal(AppendEvent(make([]byte, 0, 512), ev)); err != nil {
			return false, err
		}
		return true, nil
	}, cfg)
	return sigs, err
}

// appendJournal is Append for a caller that has run the state dir's checks.
func (h Home) appendJournal(recs ...[]byte) error {
	lk, err := Acquire(h.JournalLock(), h.wait())
	if err != nil {
		return err
	}
	defer lk.Unlock()
	return h.appendLocked(recs)
}

func (h Home) update(id string, fn func(st *engine.State) (bool, error), cfg *engine.Config) error {
	lk, err := Acquire(h.StateLock(id), h.wait())
	if err != nil {
		return err
	}
	defer lk.Unlock()
	st, raw, err := h.loadState(id)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			h.LogError("load state", err, map[string]any{"session": id})
			st = h.recover(id, cfg)
		} else {
			st = engine.NewState(id)
		}
	}
	save, err := fn(st)
	if err != nil || !save {
		return err
	}
	return h.saveLocked(st, len(raw)+1024)
}

// recover rebuilds an unreadable session state from the journal when that
// is cheap enough, after setting the bad file aside (it is never deleted).
func (h Home) recover(id string, cfg *engine.Config) *engine.State {
	p := h.StatePath(id)
	_ = os.Rename(p, p+".corrupt-"+time.Now().UTC().Format("20060102T150405"))
	var total int64
	files, _ := h.JournalFiles()
	for _, f := range files {
		if fi, err := os.Lstat(f); err == nil {
			total += fi.Size()
		}
	}
	if total > rebuildLimit {
		h.LogError("recover state", fmt.Errorf("journal too large to replay in a hook (%d bytes); run `cully status --rebuild`", total), map[string]any{"session": id})
		return engine.NewState(id)
	}
	states, _, _ := h.replay(id, cfg)
	if st := states[id]; st != nil {
		return st
	}
	return engine.NewState(id)
}

// replay folds the whole journal through the reducer, for every session or
// only the named one.
func (h Home) replay(only string, cfg *engine.Config) (map[string]*engine.State, ReadStats, error) {
	states := map[string]*engine.State{}
	st, err := h.ReadAll(func(ev *engine.Event) error {
		if only != "" && ev.Session != only {
			return nil
		}
		s := states[ev.Session]
		if s == nil {
			s = engine.NewState(ev.Session)
			states[ev.Session] = s
		}
		engine.Apply(s, ev, cfg)
		return nil
	})
	return states, st, err
}

// LoadState reads a session's state. A file of another state version is
// reported as unreadable, so it is rebuilt rather than trusted.
func (h Home) LoadState(id string) (*engine.State, error) {
	st, _, err := h.loadState(id)
	return st, err
}

// loadState is LoadState that also returns the file's bytes, so the hook
// can size its write buffer once.
func (h Home) loadState(id string) (*engine.State, []byte, error) {
	b, err := ReadSmallFile(h.StatePath(id), maxStateFile)
	if err != nil {
		return nil, nil, err
	}
	st, err := decodeState(b)
	if err != nil {
		return nil, b, fmt.Errorf("decode state %s: %w", filepath.Base(h.StatePath(id)), err)
	}
	if st.V != engine.StateVersion {
		return nil, b, fmt.Errorf("state %s has version %d, want %d", filepath.Base(h.StatePath(id)), st.V, engine.StateVersion)
	}
	return st, b, nil
}

// SaveState writes a session's state under the session lock.
func (h Home) SaveState(st *engine.State) error {
	if err := h.ready(); err != nil {
		return err
	}
	lk, err := Acquire(h.StateLock(st.Session), h.wait())
	if err != nil {
		return err
	}
	defer lk.Unlock()
	return h.saveLocked(st, 4096)
}

// saveLocked writes a state; the caller holds the session lock.
//
// The file is rewritten in place (write, then truncate) rather than through
// a temp file and rename: on ext4 a rename over an existing file forces the
// new blocks out and cost the hook a millisecond per call. In-place is safe
// here because every reader takes the same lock (shared) and the state is
// derived: a write torn by a crash fails to decode, is set aside, and is
// rebuilt from the journal. The file is opened as every file of the state
// dir is: a planted link or FIFO there is refused, never written through.
// sizeHint is the previous file's size plus a little, so a typical call
// allocates once and no more pages than the state needs.
func (h Home) saveLocked(st *engine.State, sizeHint int) error {
	b := AppendState(make([]byte, 0, sizeHint), st)
	f, err := openFile(h.StatePath(st.Session), os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	defer f.Close()
	if _, err := f.WriteAt(b, 0); err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	if err := f.Truncate(int64(len(b))); err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	return nil
}

// ReadState reads a session's state under the session lock (shared with
// other readers). The state file is only ever replaced by a rename, so a
// reader never sees half a write; the lock is for Windows, where a file
// held open cannot be renamed over.
func (h Home) ReadState(id string) (*engine.State, error) {
	if err := h.Check(); err != nil {
		return nil, err
	}
	if _, err := os.Lstat(h.StatePath(id)); err != nil {
		return nil, err
	}
	lk, err := AcquireShared(h.StateLock(id), h.wait())
	if err != nil {
		return nil, err
	}
	defer lk.Unlock()
	return h.LoadState(id)
}

// SessionInfo names a recorded session.
type SessionInfo struct {
	ID       string
	LastSeen time.Time
}

// Sessions lists recorded sessions, most recently active first.
func (h Home) Sessions() ([]SessionInfo, error) {
	if err := h.Check(); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	ents, err := os.ReadDir(h.SessionsDir())
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	var out []SessionInfo
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, ".json") || strings.HasPrefix(name, ".") || !e.Type().IsRegular() {
			continue
		}
		b, err := ReadSmallFile(filepath.Join(h.SessionsDir(), name), maxStateFile)
		if err != nil {
			continue
		}
		var head struct {
			Session  string    `json:"session"`
			LastSeen time.Time `json:"last_seen"`
		}
		if json.Unmarshal(b, &head) != nil || head.Session == "" {
			continue
		}
		out = append(out, SessionInfo{ID: head.Session, LastSeen: head.LastSeen})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].LastSeen.After(out[j].LastSeen) })
	return out, nil
}

// LatestSession returns the most recently active session's id.
func (h Home) LatestSession() (string, error) {
	ss, err := h.Sessions()
	if err != nil {
		return "", err
	}
	if len(ss) == 0 {
		return "", ErrNoSession
	}
	return ss[0].ID, nil
}

// Rebuild replays the whole journal and rewrites the state of every
// session in it (or only of the named one). It returns the journal stats.
func (h Home) Rebuild(only string, cfg *engine.Config) (ReadStats, error) {
	if err := h.ready(); err != nil {
		return ReadStats{}, err
	}
	states, st, err := h.replay(only, cfg)
	if err != nil {
		return st, err
	}
	for id, s := range states {
		lk, err := Acquire(h.StateLock(id), h.wait())
		if err != nil {
			return st, err
		}
		err = h.saveLocked(s, 4096)
		lk.Unlock()
		if err != nil {
			return st, err
		}
	}
	return st, nil
}

// maxErrorLog bounds errors.log; past it the log is rotated once to
// errors.log.1.
const maxErrorLog = 1 << 20

// LogError appends one JSON line to errors.log. It never fails loudly: the
// error log is the last resort, and if it cannot be written the caller has
// nowhere better to go. It writes nothing into a state dir that fails its
// trust checks.
func (h Home) LogError(op string, err error, extra map[string]any) error {
	if cerr := h.ready(); cerr != nil {
		return cerr
	}
	rec := map[string]any{"ts": time.Now().UTC().Format(time.RFC3339Nano), "op": op, "error": err.Error()}
	for k, v := range extra {
		rec[k] = v
	}
	line, mErr := json.Marshal(rec)
	if mErr != nil {
		return mErr
	}
	f, oErr := openFile(h.ErrorsLog(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if oErr != nil {
		return oErr
	}
	if f.size > maxErrorLog {
		f.Close()
		_ = os.Rename(h.ErrorsLog(), h.ErrorsLog()+".1")
		if f, oErr = openFile(h.ErrorsLog(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600); oErr != nil {
			return oErr
		}
	}
	defer f.Close()
	_, wErr := f.Write(append(line, '\n'))
	return wErr
}

// ReadErrorsLog reads errors.log (nil when there is none), refusing a
// symlink, FIFO or device there as every opener of the store does.
func (h Home) ReadErrorsLog() ([]byte, error) {
	b, err := ReadSmallFile(h.ErrorsLog(), 4*maxErrorLog)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return b, err
}
