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
// the session's next call (see update). When the record does not reach the
// journal (a full disk, a lock held too long; anything but a refused state
// dir) the error is a *NotRecordedError, and the loss is counted where a
// full disk still takes it (recording.go).
func (h Home) Record(ev *engine.Event, cfg *engine.Config) ([]engine.Signal, error) {
	return h.RecordWith(ev, cfg, nil)
}

// RecordWith is Record with a step before the rules: complete, when set,
// is given the event and the session's state under the session lock, to
// fill in what the adapter reads from the host's own record of the session
// (hookbridge.Completer), starting where the state says the last call
// stopped.
func (h Home) RecordWith(ev *engine.Event, cfg *engine.Config, complete func(ev *engine.Event, st *engine.State)) ([]engine.Signal, error) {
	r, err := h.RecordCall(ev, cfg, complete)
	return r.Signals, err
}

// Recorded is what RecordCall did with a call.
type Recorded struct {
	Signals []engine.Signal
	// Pending: the journal lock could not be had in time (or older
	// records wait), so the record went to pending/, whole, to be folded
	// into the journal by the next writer that gets the lock (pending.go).
	// Nothing is lost; readers say recording is blocked while it lasts.
	Pending bool
	// Unlocked: the session's lock could not be had in time, so the call
	// was recorded without it and the state file left for the next call
	// to catch up (unlocked.go). Nothing is lost.
	Unlocked bool
}

// RecordCall is RecordWith, saying where the record went.
func (h Home) RecordCall(ev *engine.Event, cfg *engine.Config, complete func(ev *engine.Event, st *engine.State)) (Recorded, error) {
	var r Recorded
	if err := h.ready(); err != nil {
		if errors.Is(err, ErrUnsafe) {
			return r, err // a refused state dir is said as such, and nothing is written there
		}
		return r, h.recordingFailed(err)
	}
	journaled, pending, unlocked, err := h.update(ev.Session, cfg, func(st *engine.State) []byte {
		if complete != nil {
			complete(ev, st)
		}
		if h.Now != nil {
			ev.Time = h.Now().UTC()
		}
		clampTimes(ev)
		r.Signals = engine.Apply(st, ev, cfg)
		ev.Signals = r.Signals
		return AppendEvent(make([]byte, 0, 512), ev)
	})
	r.Pending, r.Unlocked = pending, unlocked
	if err != nil && !journaled {
		return r, h.recordingFailed(err)
	}
	return r, err
}

// update makes one record of session id, under its lock: the state file
// itself (see statefile.go for its layout).
//
//  1. lock the state file and read it; its mark says when a record is in
//     flight, so finding it set means a hook died mid-record and its
//     record may be in the journal but not in the state;
//  2. load the state, catching it up from the journal when step 1 found
//     the mark (or rebuilding it when it is unreadable);
//  3. fn folds the event and returns its record; the mark is set, and the
//     record appended to the journal (its offset is known under the
//     journal lock);
//  4. the state, with the record's position, is written beside the one it
//     replaces and its header after it (see stateFile.save), and the mark
//     cleared.
//
// A kill anywhere leaves the old state or the new one, whole, and the mark
// whenever the journal may hold a record the state lacks.
//
// No fsync: the state is derived from the journal, and what is guarded
// against is a process killed mid-call, after which the kernel still
// writes out everything it was given. A power cut can lose the last state
// write: its header is then missing or its body fails to decode, and the
// state before it is read and caught up from its position (or rebuilt from
// the journal). An fsync per tool call would cost every agent
// milliseconds for that.
//
// It reports whether the record reached the journal (or pending/, then
// saying so: see pending.go; the state is then saved with no position): a
// failure after that (the state's save) loses nothing a rebuild cannot put
// back. A session's
// first call (its state file new) also makes the failure counter, if it
// is missing (see recording.go).
func (h Home) update(id string, cfg *engine.Config, fn func(st *engine.State) []byte) (journaled, pending, unlocked bool, err error) {
	var s stateFile
	behind := h.behindPath(id)
	path := h.StatePath(id)
	err = s.open(path, h.sessionWait(), true)
	if errors.Is(err, ErrLockTimeout) && !heldByOtherFn(path) {
		err = s.open(path, h.wait(), true) // cully's own writers queue: wait on
	}
	if err != nil {
		if errors.Is(err, ErrLockTimeout) {
			journaled, pending, err = h.updateUnlocked(id, cfg, fn)
			return journaled, pending, true, err
		}
		return false, false, false, err
	}
	defer s.Close()
	if s.size == 0 {
		h.prepareRecording()
	}
	wasMarked := s.marked
	// A record made without this lock (updateUnlocked) may be missing from
	// the state, ahead of its position or behind it: the marker goes first,
	// then the session is replayed whole, so a record whose marker comes
	// after the read is caught by the next call.
	caughtUp := false
	if _, err := os.Lstat(behind); err == nil {
		caughtUp = os.Remove(behind) == nil
		_ = os.Remove(h.toldPath(id))
	}
	st, body, legacy := h.loadForUpdate(&s, id, cfg)
	if caughtUp {
		if total := h.journalBytes(); total <= rebuildLimit {
			st = h.rebuildSession(id, cfg)
		} else {
			h.logSession("catch up state", fmt.Errorf("records made without the session's lock may be missing from its state, and the journal is too large to replay in a hook (%d bytes); run `cully status --rebuild`", total), id)
		}
	}
	rec := fn(st)
	if !wasMarked {
		if err := s.setMark(true); err != nil {
			return false, false, false, fmt.Errorf("mark session: %w", err)
		}
	}
	pos, wrote, pending, err := h.appendRecord(id, rec)
	if err != nil {
		if !wrote && !wasMarked {
			_ = s.setMark(false)
		}
		return false, false, false, err
	}
	// The new body is written into the old one's buffer (the decoded
	// state holds no slice of it): one heap object fewer on the hook's
	// path, a fresh span in a process this short.
	if body == nil {
		body = make([]byte, 0, 4096)
	}
	body = appendStateFile(body[:0], st, pos)
	if s.fellBack {
		// The other slot still points at the body that failed: the state
		// goes there too, so one more loss still leaves a state to read.
		if err := s.save(body); err != nil {
			return true, pending, false, err // the mark stays: the next call catches the state up
		}
	}
	if err := s.saveDone(body); err != nil {
		return true, pending, false, err // the mark stays: the next call catches the state up
	}
	if legacy {
		h.removeLegacy(id)
	}
	return true, pending, false, nil
}

// appendRecord appends one record of session id to the journal, or to
// pending/ when the journal lock is held by someone else or older records
// wait there (see pending.go). It returns the record's position in the
// journal (nil when it went to pending/), and whether a write was
// attempted.
func (h Home) appendRecord(id string, rec []byte) (pos *journalPos, wrote, pending bool, err error) {
	wait := h.appendWait()
	jl, err := AcquirePolling(h.JournalLock(), wait)
	if err == nil {
		var at int64
		at, wrote, err = h.appendLocked([][]byte{rec})
		jl.Unlock()
		if err == nil {
			pos = &journalPos{At: at, N: int64(len(rec)) + 1, Sum: lineSum(rec, []byte{'\n'})}
		}
	}
	if errors.Is(err, ErrLockTimeout) || errors.Is(err, errPendingAhead) {
		// The state has no position until the session's next append.
		if perr := h.appendPending(id, [][]byte{rec}); perr != nil {
			return nil, wrote, false, fmt.Errorf("%w (the journal: %w)", perr, err)
		}
		if wait > 0 && errors.Is(err, ErrLockTimeout) {
			h.spellBlocked()
		}
		return nil, true, true, nil
	}
	return pos, wrote, false, err
}

// loadForUpdate is step 2 of update. It never leaves the session without
// a state: an unreadable state file is copied aside before the rebuilt
// state is written over it. It returns the state, the body it came from
// (its buffer takes the next write), and whether it came from a state
// file of the layout before this one (see loadLegacy), whose files the
// caller removes once the state is saved.
func (h Home) loadForUpdate(s *stateFile, id string, cfg *engine.Config) (*engine.State, []byte, bool) {
	dirty := s.marked
	if s.bad != nil {
		h.logSession("load state", s.bad, id)
		h.setAside(id, s.whole())
		s.reset()
		return h.rebuildSession(id, cfg), nil, false
	}
	if s.newest < 0 {
		st, pos, raw, err := h.loadLegacy(id)
		switch {
		case err == nil:
			// Always caught up: a hook of the previous version may have
			// appended records its state file got and this one did not.
			if caught, cerr := h.catchUp(st, id, pos, cfg); cerr == nil {
				return caught, raw, true
			}
			return st, raw, true
		case !errors.Is(err, fs.ErrNotExist):
			h.logSession("load state", err, id)
			return h.rebuildSession(id, cfg), nil, true
		case dirty:
			// A first call died between its journal append and its state save.
			return h.rebuildSession(id, cfg), nil, false
		}
		return engine.NewState(id), nil, false
	}
	st, pos, b, older, err := s.state(id)
	if err == nil {
		if older != nil {
			// The newest state did not survive (a power cut before its
			// body reached the disk, or damage): the one before it is
			// caught up.
			h.logSession("load state", fmt.Errorf("%w; read the state before it", older), id)
			dirty = true
			s.fellBack = true
		}
		if !dirty {
			return st, b, false
		}
		caught, cerr := h.catchUp(st, id, pos, cfg)
		if cerr == nil {
			return caught, b, false
		}
		h.logSession("catch up state", cerr, id)
		if errors.Is(cerr, errTooFar) {
			// The state stays as it is: at most the dead hooks' records
			// behind, which a rebuild folds in.
			return st, b, false
		}
		return h.rebuildSession(id, cfg), b, false
	}
	h.logSession("load state", err, id)
	h.setAside(id, s.whole())
	s.reset()
	return h.rebuildSession(id, cfg), nil, false
}

// setAside keeps a copy of an unreadable state file (it is never deleted).
func (h Home) setAside(id string, raw []byte) {
	if len(raw) == 0 {
		return
	}
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
		h.logSession("recover state", fmt.Errorf("journal too large to replay in a hook (%d bytes); run `cully status --rebuild`", total), id)
		return engine.NewState(id)
	}
	st := engine.NewState(id)
	if _, err := h.foldSession(st, id, nil, cfg); err != nil {
		h.logSession("recover state", err, id)
	}
	return st
}

// foldSession folds into st every record of session id after from (from
// the start when nil): the bulk without the journal lock, then what was
// appended meanwhile under it. The caller holds the session lock, so no
// record of this session is appended meanwhile. It returns the position
// of the last line read.
func (h Home) foldSession(st *engine.State, id string, from *journalPos, cfg *engine.Config) (*journalPos, error) {
	return h.foldSessionTail(st, id, from, cfg, true)
}

// foldSessionTail is foldSession; with lockedTail false, the records
// appended meanwhile are read without waiting on the journal lock (a
// writer without its session's lock, which must not wait on a lock held
// with it: unlocked.go).
func (h Home) foldSessionTail(st *engine.State, id string, from *journalPos, cfg *engine.Config, lockedTail bool) (*journalPos, error) {
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
	p, _, err := h.scanJournal(from, false, false, rebuildLimit, &stats, fold)
	if err != nil {
		return p, err
	}
	p, _, err = h.scanJournal(p, lockedTail, true, 0, &stats, fold)
	return p, err
}

// decodeChecked decodes a state body and checks it is the named session's
// state of this version.
func decodeChecked(b []byte, id, path string) (*engine.State, *journalPos, error) {
	st, pos, err := decodeStateFile(b)
	if err != nil {
		return nil, nil, fmt.Errorf("decode state %s: %w", filepath.Base(path), err)
	}
	if st.V != engine.StateVersion {
		return nil, nil, fmt.Errorf("state %s has version %d, want %d", filepath.Base(path), st.V, engine.StateVersion)
	}
	if st.Session != id {
		return nil, nil, fmt.Errorf("state %s holds session %q", filepath.Base(path), st.Session)
	}
	return st, pos, nil
}

// readLocked reads the newest state of an open state file that decodes.
func readLocked(s *stateFile, id string) (*engine.State, error) {
	if s.bad != nil {
		return nil, s.bad
	}
	st, _, _, _, err := s.state(id)
	return st, err
}

// SaveState writes a session's state (with no journal position: its next
// catch-up, if one is ever needed, replays the session whole), under the
// session lock, as Record does.
func (h Home) SaveState(st *engine.State) error {
	if err := h.ready(); err != nil {
		return err
	}
	s, err := openState(h.StatePath(st.Session), h.wait(), true)
	if err != nil {
		return err
	}
	defer s.Close()
	if s.bad != nil {
		s.reset()
	}
	if err := s.save(appendStateFile(make([]byte, 0, 4096), st, nil)); err != nil {
		return err
	}
	h.removeLegacy(st.Session)
	return nil
}

// ReadState reads a session's state under the session lock, shared with
// other readers: a writer holds it exclusively while it writes, so a
// reader never sees half a write. A session recorded only in the layout
// before this one is read from there. A state of another version is
// reported as unreadable, so it is rebuilt rather than trusted.
//
// A state a hook left behind the journal is caught up in memory, folding
// the session's records after its position with cfg (nil: the defaults),
// as the session's next call will: the in-flight mark is set while no
// writer holds the lock (a hook died, or failed to save, after its record
// was appended), or the newest body did not decode and the one before it
// was read. Nothing is written: the next call saves the caught-up state.
// A catch-up that fails (or would read more than a hook replays) leaves
// the state as read.
func (h Home) ReadState(id string, cfg *engine.Config) (*engine.State, error) {
	if err := h.Check(); err != nil {
		return nil, err
	}
	s, unlocked, err := openForRead(h.StatePath(id), min(h.wait(), SessionWait))
	if errors.Is(err, fs.ErrNotExist) {
		st, _, _, lerr := h.loadLegacy(id)
		return st, lerr
	}
	if err != nil {
		return nil, err
	}
	defer s.Close()
	if s.bad != nil {
		return nil, s.bad
	}
	st, pos, body, older, err := s.state(id)
	if cfg == nil {
		d := engine.DefaultConfig()
		cfg = &d
	}
	if err == nil && h.Behind(id) && h.journalBytes() <= rebuildLimit {
		// Records made without the session's lock (unlocked.go) may sit
		// anywhere after the state's last locked save: the session is
		// replayed whole, as the next call will.
		re := engine.NewState(id)
		if _, ferr := h.foldSession(re, id, nil, cfg); ferr == nil {
			return re, nil
		}
	}
	// Read without the lock, the state is caught up as a writer without it
	// would catch it up.
	marked := unlocked
	if err != nil && h.journalBytes() <= rebuildLimit {
		// Neither copy of the state reads (both damaged): the reader gets
		// the session replayed from the journal, which holds it all; the
		// next hook call writes it anew.
		re := engine.NewState(id)
		if _, ferr := h.foldSession(re, id, nil, cfg); ferr == nil {
			return re, nil
		}
	}
	if err != nil || pos == nil || !s.marked && !marked && older == nil {
		return st, err
	}
	caught, _, err := decodeChecked(body, id, s.f.path) // a copy to fold into: a failed catch-up returns st untouched
	if err != nil {
		return st, nil
	}
	if _, err := h.foldSession(caught, id, pos, cfg); err != nil {
		return st, nil
	}
	return caught, nil
}

// HasState reports whether a session has a state file (of either layout).
func (h Home) HasState(id string) bool {
	for _, p := range []string{h.StatePath(id), h.legacyStatePath(id)} {
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
			return true
		}
	}
	return false
}

// SessionInfo names a recorded session, and says where it works: the
// folder the agent last gave (Cwd) and its current run (Run, "" before
// one), from which a command finds the session's project root.
type SessionInfo struct {
	ID       string
	LastSeen time.Time
	Cwd      string
	Run      string
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
	current := map[string]bool{}
	for _, e := range ents {
		if name, ok := strings.CutSuffix(e.Name(), stateExt); ok && e.Type().IsRegular() {
			current[name] = true
		}
	}
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".") || !e.Type().IsRegular() {
			continue
		}
		var b []byte
		switch {
		case strings.HasSuffix(name, stateExt):
			b = h.newestBody(filepath.Join(h.SessionsDir(), name))
		case strings.HasSuffix(name, legacyStateExt) && !current[strings.TrimSuffix(name, legacyStateExt)]:
			b, _ = ReadSmallFile(filepath.Join(h.SessionsDir(), name), maxStateFile)
		}
		if b == nil {
			continue
		}
		var head struct {
			Session  string    `json:"session"`
			LastSeen time.Time `json:"last_seen"`
			Cwd      string    `json:"cwd"`
			Run      *struct {
				ID string `json:"id"`
			} `json:"run"`
		}
		if json.Unmarshal(b, &head) != nil || head.Session == "" {
			continue
		}
		si := SessionInfo{ID: head.Session, LastSeen: head.LastSeen, Cwd: head.Cwd}
		if head.Run != nil {
			si.Run = head.Run.ID
		}
		out = append(out, si)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].LastSeen.After(out[j].LastSeen) })
	return out, nil
}

// newestBody is the JSON of the newest state body of a state file that is
// whole (nil when there is none), read under the file's shared lock.
func (h Home) newestBody(path string) []byte {
	s, _, err := openForRead(path, min(h.wait(), SessionWait))
	if err != nil {
		return nil
	}
	defer s.Close()
	for _, slot := range s.bodies() {
		if slot < 0 {
			break
		}
		if b, err := s.body(slot); err == nil {
			if js, _, _, err := splitStateBody(b); err == nil && json.Valid(js) {
				return js
			}
		}
	}
	return nil
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
	last, _, err := h.scanJournal(nil, false, false, 0, &stats, func(line []byte) error {
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
		err := h.rebuildOne(states[id], last, cfg)
		if errors.Is(err, ErrLockTimeout) && heldByOtherFn(h.StatePath(id)) {
			// Another process holds the session's lock: the session is
			// marked as one with records made without it, so its next
			// locked call replays it whole (unlocked.go); the others are
			// rebuilt meanwhile.
			if f, merr := openFile(h.behindPath(id), os.O_WRONLY|os.O_CREATE, 0o600); merr == nil {
				f.Close()
				continue
			}
		}
		if err != nil {
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
	s, err := openState(h.StatePath(st.Session), h.wait(), true)
	if err != nil {
		return err
	}
	defer s.Close()
	var stats ReadStats
	needle := append(appendQuoted([]byte(`"session":`), st.Session), ',')
	pos, pend, err := h.scanJournal(last, true, true, 0, &stats, func(line []byte) error {
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
	if pend > 0 {
		pos = nil // records in pending/ are in the state but not yet in the journal (see pending.go)
	}
	if s.bad != nil {
		h.setAside(st.Session, s.whole())
		s.reset()
	}
	if err := s.saveDone(appendStateFile(make([]byte, 0, 4096), st, pos)); err != nil {
		return err
	}
	h.removeLegacy(st.Session)
	return nil
}

// logSession logs an error about a session. Not inlined on purpose: each
// map literal inlined into a caller took a few hundred bytes of its stack
// frame, and the hook's path is kept within a 16 KiB stack (see
// hookrun.GrowStack).
//
//go:noinline
func (h Home) logSession(op string, err error, id string) {
	_ = h.LogError(op, err, map[string]any{"session": id})
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
	return h.logError(op, err, extra)
}

// LogErrorHere is LogError for a process that outlives its callers (the
// snapshot server): it writes into a state dir that exists and never
// creates one, so a state dir being removed is not made again under the
// remover (rm -rf, a test's cleanup) by the error that its removal causes.
func (h Home) LogErrorHere(op string, err error, extra map[string]any) error {
	if cerr := h.Check(); cerr != nil {
		return cerr
	}
	return h.logError(op, err, extra)
}

func (h Home) logError(op string, err error, extra map[string]any) error {
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
