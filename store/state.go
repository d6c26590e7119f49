package store

import (
	"bytes"
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
// state file is unreadable (beyond it the state starts fresh) or catches
// up after a killed hook (beyond it the state stays as it is); either way
// the error log points at `cully status --rebuild`. A variable for tests.
var rebuildLimit int64 = 64 << 20

// maxStateFile bounds a state file the store reads: the reducer caps what
// a state holds, so anything far larger is damage.
const maxStateFile = 64 << 20

// Record folds one event into its session and appends it to the journal,
// both under the session lock, so the journal order of a session is the
// order its state saw. When h.Now is set, the event's time is read from it
// under that lock. Times no reader could parse back are clamped or dropped
// first (see clampTimes). The state is saved only after the journal append
// succeeded, and carries the position of the event's record: state never
// runs ahead of the journal, and a state left behind it is caught up on
// the session's next call (see update).
func (h Home) Record(ev *engine.Event, cfg *engine.Config) ([]engine.Signal, error) {
	return h.RecordWith(ev, cfg, nil)
}

// RecordWith is Record with a step before the rules: complete, when set,
// is given the event and the session's state under the session lock, to
// fill in what the adapter reads from the host's own record of the session
// (hookbridge.Completer), starting where the state says the last call
// stopped.
func (h Home) RecordWith(ev *engine.Event, cfg *engine.Config, complete func(ev *engine.Event, st *engine.State)) ([]engine.Signal, error) {
	if err := h.ready(); err != nil {
		return nil, err
	}
	var sigs []engine.Signal
	err := h.update(ev.Session, cfg, func(st *engine.State) []byte {
		if complete != nil {
			complete(ev, st)
		}
		if h.Now != nil {
			ev.Time = h.Now().UTC()
		}
		clampTimes(ev)
		sigs = engine.Apply(st, ev, cfg)
		ev.Signals = sigs
		return AppendEvent(make([]byte, 0, 512), ev)
	})
	return sigs, err
}

// update makes one record of session id, under its lock:
//
//  1. take the session lock; its file's byte says when a record is in
//     flight (the mark), so finding it set means a hook died mid-record
//     and its record may be in the journal but not in the state;
//  2. load the state, catching it up from the journal when step 1 found
//     the mark (or rebuilding it when it is unreadable);
//  3. fn folds the event and returns its record; the mark is set, and the
//     record appended to the journal (its offset is known under the
//     journal lock);
//  4. the state, with the record's position, is written into the spare
//     file and swapped into place (see saveLocked), and the mark cleared.
//
// A kill anywhere leaves the old state or the new one, whole, and the mark
// whenever the journal may hold a record the state lacks.
//
// No fsync: the state is derived from the journal, and what is guarded
// against is a process killed mid-call, after which the kernel still
// writes out everything it was given. A power cut can lose the last state
// write (the metadata may reach the disk before the data): the file then
// fails to decode and is rebuilt from the journal, or is caught up from
// its last position. An fsync per tool call would cost every agent
// milliseconds for that.
func (h Home) update(id string, cfg *engine.Config, fn func(st *engine.State) []byte) error {
	lk, err := acquire(h.StateLock(id), h.wait(), false, os.O_RDWR)
	if err != nil {
		return err
	}
	defer lk.Unlock()
	dirty := lk.marked()
	if dirty {
		_ = os.Remove(h.stateOld(id)) // a killed swap's second name, if any
	}
	st, size := h.loadForUpdate(id, dirty, cfg)
	rec := fn(st)
	if !dirty {
		if err := lk.mark(); err != nil {
			return fmt.Errorf("mark session: %w", err)
		}
	}
	jl, err := Acquire(h.JournalLock(), h.wait())
	if err != nil {
		if !dirty {
			_ = lk.unmark()
		}
		return err
	}
	at, wrote, err := h.appendLocked([][]byte{rec})
	jl.Unlock()
	if err != nil {
		if !wrote && !dirty {
			_ = lk.unmark()
		}
		return err
	}
	pos := &journalPos{At: at, N: int64(len(rec)) + 1, Sum: lineSum(rec, []byte{'\n'})}
	if err := h.saveLocked(id, st, pos, size); err != nil {
		return err // the mark stays: the next call catches the state up
	}
	return lk.unmark()
}

// saveLocked writes a state and its journal position; the caller holds
// the session lock. The state is written into the spare file (created if
// missing; a link or FIFO planted there is removed, never followed), then
// swapped in by renames (see swap). Every step leaves a whole state at the
// state's path, and the two files' inodes live on from call to call. That
// is the point: on ext4, a file created and another unlinked per call cost
// the hook 0.1 ms, and renaming a freshly written file over another makes
// the renamer start writeback of its data (auto_da_alloc), 0.35 ms;
// overwriting a spare whose blocks are already allocated and exchanging
// two names costs neither. sizeHint is the previous file's size, so a
// typical call allocates once.
func (h Home) saveLocked(id string, st *engine.State, pos *journalPos, sizeHint int) error {
	b := appendStateFile(make([]byte, 0, sizeHint+1024), st, pos)
	spare := h.stateSpare(id)
	f, err := openFile(spare, os.O_WRONLY|os.O_CREATE, 0o600)
	if errors.Is(err, ErrUnsafe) {
		if err = os.Remove(spare); err == nil {
			f, err = createNew(spare)
		}
	}
	if err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	_, err = f.WriteAt(b, 0)
	if err == nil && f.size > int64(len(b)) {
		err = f.Truncate(int64(len(b)))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	return h.swap(id)
}

// noExchange makes swap use links and renames even where the system can
// exchange names (for tests of that path).
var noExchange bool

// swap puts the written spare in the state file's place and keeps the
// state file it replaces as the next spare. Where the system can exchange
// two names in one rename (Linux, macOS) that is all it does; elsewhere
// the state file gets a second name (.old), the spare is renamed over it,
// and .old is renamed to be the spare. Without hard links (or with no
// state file yet) the spare is just renamed: the next call creates one.
func (h Home) swap(id string) error {
	p, spare, old := h.StatePath(id), h.stateSpare(id), h.stateOld(id)
	if !noExchange {
		ok, err := exchange(spare, p)
		if ok && err == nil {
			return nil
		}
		if ok && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("write state: %w", err)
		}
	}
	err := os.Link(p, old)
	if errors.Is(err, fs.ErrExist) { // left by a swap that was killed
		if err = os.Remove(old); err == nil {
			err = os.Link(p, old)
		}
	}
	linked := err == nil
	if err := os.Rename(spare, p); err != nil {
		if linked {
			_ = os.Remove(old)
		}
		return fmt.Errorf("write state: %w", err)
	}
	if linked {
		if err := os.Rename(old, spare); err != nil {
			_ = os.Remove(old)
		}
	}
	return nil
}

// loadForUpdate is step 2 of update. It never leaves the session without
// a state: an unreadable state file stays where it is (a copy is set
// aside) until the rebuilt state replaces it.
func (h Home) loadForUpdate(id string, dirty bool, cfg *engine.Config) (*engine.State, int) {
	st, pos, raw, err := h.loadState(id)
	switch {
	case err == nil && !dirty:
		return st, len(raw)
	case err == nil:
		caught, cerr := h.catchUp(st, id, pos, cfg)
		if cerr == nil {
			return caught, len(raw)
		}
		h.LogError("catch up state", cerr, map[string]any{"session": id})
		if errors.Is(cerr, errTooFar) {
			// The state stays as it is: at most the dead hooks' records
			// behind, which a rebuild folds in.
			return st, len(raw)
		}
		return h.rebuildSession(id, cfg), len(raw)
	case errors.Is(err, fs.ErrNotExist) && !dirty:
		return engine.NewState(id), 0
	case errors.Is(err, fs.ErrNotExist):
		// A first call died between its journal append and its state save.
		return h.rebuildSession(id, cfg), 0
	}
	h.LogError("load state", err, map[string]any{"session": id})
	if len(raw) > 0 {
		h.setAside(id, raw)
	}
	return h.rebuildSession(id, cfg), len(raw)
}

// setAside keeps a copy of an unreadable state file (it is never deleted).
func (h Home) setAside(id string, raw []byte) {
	f, err := createNew(h.StatePath(id) + ".corrupt-" + time.Now().UTC().Format("20060102T150405.000000000"))
	if err != nil {
		return
	}
	_, _ = f.Write(raw)
	f.Close()
}

// catchUp folds into st the session's records that the journal holds
// after pos (a dead hook's, appended but never saved into the state). A
// state with no position (written before states carried one) is rebuilt,
// or, past rebuildLimit, kept as it is.
func (h Home) catchUp(st *engine.State, id string, pos *journalPos, cfg *engine.Config) (*engine.State, error) {
	if pos == nil {
		if total := h.journalBytes(); total > rebuildLimit {
			return nil, fmt.Errorf("%w: the state has no journal position and the journal is %d bytes", errTooFar, total)
		}
		return h.rebuildSession(id, cfg), nil
	}
	if _, err := h.foldSession(st, id, pos, cfg); err != nil {
		return nil, err
	}
	return st, nil
}

// rebuildSession replays the session from the whole journal, when that is
// cheap enough for a hook (rebuildLimit bytes, which also bounds a
// catch-up: a session idle while others wrote gigabytes is not caught up
// by a hook).
func (h Home) rebuildSession(id string, cfg *engine.Config) *engine.State {
	if total := h.journalBytes(); total > rebuildLimit {
		h.LogError("recover state", fmt.Errorf("journal too large to replay in a hook (%d bytes); run `cully status --rebuild`", total), map[string]any{"session": id})
		return engine.NewState(id)
	}
	st := engine.NewState(id)
	if _, err := h.foldSession(st, id, nil, cfg); err != nil {
		h.LogError("recover state", err, map[string]any{"session": id})
	}
	return st
}

// foldSession folds into st every record of session id after from (from
// the start when nil): the bulk without the journal lock, then what was
// appended meanwhile under it. The caller holds the session lock, so no
// record of this session is appended meanwhile. It returns the position
// of the last line read.
func (h Home) foldSession(st *engine.State, id string, from *journalPos, cfg *engine.Config) (*journalPos, error) {
	needle := append(appendQuoted([]byte(`"session":`), id), ',')
	fold := func(line []byte) error {
		if !bytes.Contains(line, needle) {
			return nil
		}
		if ev, ok := parseRecord(line); ok && ev.Session == id {
			engine.Apply(st, ev, cfg)
		}
		return nil
	}
	var stats ReadStats
	p, err := h.scanJournal(from, false, rebuildLimit, &stats, fold)
	if err != nil {
		return p, err
	}
	return h.scanJournal(p, true, 0, &stats, fold)
}

// LoadState reads a session's state. A file of another state version is
// reported as unreadable, so it is rebuilt rather than trusted.
func (h Home) LoadState(id string) (*engine.State, error) {
	st, _, _, err := h.loadState(id)
	return st, err
}

// loadState is LoadState that also returns the state's journal position
// and the file's bytes (to size the next write, or to set a bad file
// aside).
func (h Home) loadState(id string) (*engine.State, *journalPos, []byte, error) {
	b, err := ReadSmallFile(h.StatePath(id), maxStateFile)
	if err != nil {
		return nil, nil, nil, err
	}
	st, pos, err := decodeStateFile(b)
	if err != nil {
		return nil, nil, b, fmt.Errorf("decode state %s: %w", filepath.Base(h.StatePath(id)), err)
	}
	if st.V != engine.StateVersion {
		return nil, nil, b, fmt.Errorf("state %s has version %d, want %d", filepath.Base(h.StatePath(id)), st.V, engine.StateVersion)
	}
	if st.Session != id {
		return nil, nil, b, fmt.Errorf("state %s holds session %q", filepath.Base(h.StatePath(id)), st.Session)
	}
	return st, pos, b, nil
}

// SaveState writes a session's state (with no journal position: its next
// catch-up, if one is ever needed, replays the session whole), under the
// session lock, as Record does.
func (h Home) SaveState(st *engine.State) error {
	if err := h.ready(); err != nil {
		return err
	}
	lk, err := Acquire(h.StateLock(st.Session), h.wait())
	if err != nil {
		return err
	}
	defer lk.Unlock()
	return h.saveLocked(st.Session, st, nil, 4096)
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
//
// Live hooks lose nothing to it: the bulk of the journal is replayed
// without locks, then each session is finished under its session lock
// (which its hooks hold for the whole of a record) and the journal lock:
// the records appended since the bulk read are folded in, and the state
// is renamed into place before the lock is released.
func (h Home) Rebuild(only string, cfg *engine.Config) (ReadStats, error) {
	var stats ReadStats
	if err := h.ready(); err != nil {
		return stats, err
	}
	states := map[string]*engine.State{}
	last, err := h.scanJournal(nil, false, 0, &stats, func(line []byte) error {
		ev, ok := parseRecord(line)
		if !ok {
			stats.Corrupt++
			return nil
		}
		stats.Lines++
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
	if err != nil {
		return stats, err
	}
	ids := make([]string, 0, len(states))
	for id := range states {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if err := h.rebuildOne(states[id], last, cfg); err != nil {
			return stats, err
		}
	}
	return stats, nil
}

// rebuildOne finishes one session of a rebuild: under the session lock,
// it folds in the session's records after the bulk read's last line, and
// saves the state with the position of the journal's last line. A dead
// hook's mark is cleared: the rebuilt state holds every record.
func (h Home) rebuildOne(st *engine.State, last *journalPos, cfg *engine.Config) error {
	lk, err := acquire(h.StateLock(st.Session), h.wait(), false, os.O_RDWR)
	if err != nil {
		return err
	}
	defer lk.Unlock()
	var stats ReadStats
	needle := append(appendQuoted([]byte(`"session":`), st.Session), ',')
	pos, err := h.scanJournal(last, true, 0, &stats, func(line []byte) error {
		if bytes.Contains(line, needle) {
			if ev, ok := parseRecord(line); ok && ev.Session == st.Session {
				engine.Apply(st, ev, cfg)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := h.saveLocked(st.Session, st, pos, 4096); err != nil {
		return err
	}
	if lk.marked() {
		return lk.unmark()
	}
	return nil
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
