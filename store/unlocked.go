package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"cully/engine"
)

// What a writer does when it cannot have its session's lock.
//
// A session's lock is a flock on its state file, and, as with the journal
// lock (pending.go), any process of the same user can take it: `flock -x
// sessions/<id>.state sleep 600`, run by an agent talked into it, made every
// call of the session wait DefaultLockWait (2 s) and then lost its record.
// So a writer waits for its session's lock SessionWait; if the lock is
// still held, and by a process other than cully's own writers (where the
// system says: on Linux; elsewhere any holder counts), it records the call
// without it; cully's own writers (parallel calls of one session on a
// loaded machine) are waited for as before, up to the lock wait:
//
//  1. the state file is read without the lock (the headers' checks and the
//     bodies' decoding sort out a read that overlaps a save, as they do
//     after a kill), and caught up from its journal position: every record
//     of the session after it, pending/ included, is one made without the
//     lock (a locked writer saves the position of its own record); the
//     journal's tail is read without waiting on the journal lock, which the
//     same holder may hold;
//  2. the rules run on that state and the record is appended to the
//     journal (or pending/) as any other; the state file is not written;
//  3. the marker sessions/<id>.state.behind is created.
//
// The next writer that has the lock finds the marker, removes it, and
// replays the session whole from the journal before its own record: a
// record made without the lock may sit before that writer's position (made
// while it held the lock) as well as after it, so catching up from the
// position is not enough. Removing the marker before the replay means a
// marker made after the replay's read stays for the call after. A writer
// killed between its append and its marker leaves the state a record
// behind the journal until `cully status --rebuild` (or the next record
// made without the lock); the record itself is in the journal.
//
// While the marker stands, readers (status, the panel) replay the session
// too. A writer still waits SessionWait for the lock each call: a held
// lock costs each call 40 ms, and a marker left by a moment's contention
// (parallel calls of one session on a loaded machine) does not turn the
// calls after it into more calls without the lock, each of which would
// make the next locked call replay the session again.
//
// The session is told once, while the marker stands, when the lock's
// holder is not cully's own (SessionNoticeDue); status, doctor and the
// panel say who holds it (Recording.Held).

// SessionWait bounds a hook's wait for its session's lock. A call holds it
// for well under a millisecond; parallel calls of one session queue behind
// each other for a few. With JournalWait, a hook facing both locks held
// still answers within 100 ms.
const SessionWait = 40 * time.Millisecond

const behindExt = ".behind"

// heldByOtherFn is heldByOther, for tests whose own process plays the
// other holder.
var heldByOtherFn = heldByOther

func (h Home) behindPath(id string) string { return h.StatePath(id) + behindExt }
func (h Home) toldPath(id string) string   { return h.StatePath(id) + toldExt }

// sessionWait is how long a writer waits for the session's lock:
// SessionWait, or less when CULLY_LOCK_TIMEOUT says so.
func (h Home) sessionWait() time.Duration {
	if h.LockWait > 0 && h.LockWait < SessionWait {
		return h.LockWait
	}
	return SessionWait
}

// updateUnlocked records one call of session id without its lock (see
// above).
func (h Home) updateUnlocked(id string, cfg *engine.Config, fn func(st *engine.State) []byte) (journaled, pending bool, err error) {
	st := h.readUnlocked(id, cfg)
	rec := fn(st)
	if _, _, pending, err = h.appendRecord(id, rec); err != nil {
		return false, false, err
	}
	if f, cerr := openFile(h.behindPath(id), os.O_WRONLY|os.O_CREATE, 0o600); cerr == nil {
		f.Close()
	} else {
		h.logSession("mark state behind", fmt.Errorf("%w: the state lacks a record the journal holds until `cully status --rebuild`", cerr), id)
	}
	return true, pending, nil
}

// readUnlocked reads session id's state without its lock, caught up from
// its journal position (a state with none, or none that reads, is replayed
// whole, as far as a hook replays).
func (h Home) readUnlocked(id string, cfg *engine.Config) *engine.State {
	var s stateFile
	st, pos := (*engine.State)(nil), (*journalPos)(nil)
	if err := s.openUnlocked(h.StatePath(id)); err == nil {
		if s.bad == nil && s.newest >= 0 {
			st, pos, _, _, _ = s.state(id)
		}
		s.Close()
	}
	if st == nil || pos == nil {
		// No state that reads, or none with a position: the session
		// whole, as far as a hook replays it.
		if total := h.journalBytes(); total > rebuildLimit {
			h.logSession("recover state", fmt.Errorf("journal too large to replay in a hook (%d bytes); run `cully status --rebuild`", total), id)
			return engine.NewState(id)
		}
		st, pos = engine.NewState(id), nil
	}
	// The journal lock is not waited on: whoever holds the session's lock
	// may hold it too.
	if _, err := h.foldSessionTail(st, id, pos, cfg, false); err != nil {
		h.logSession("catch up state", err, id)
	}
	return st
}

// Behind reports whether session id has records made without its lock
// that its state file has not yet taken in (see above).
func (h Home) Behind(id string) bool {
	_, err := os.Lstat(h.behindPath(id))
	return err == nil
}

// SessionNoticeDue reports whether session id is to be told that its
// records are made without its lock (hookrun tells it once, then
// SessionNoticeGiven): not yet told, and the lock held by something other
// than cully's own writers (where the system says, on Linux; elsewhere any
// wait in vain is told).
func (h Home) SessionNoticeDue(id string) bool {
	_, err := os.Lstat(h.toldPath(id))
	return errors.Is(err, fs.ErrNotExist) && heldByOtherFn(h.StatePath(id))
}

// SessionNoticeGiven notes that session id was told; the note goes with
// the marker, so a later hold is told again.
func (h Home) SessionNoticeGiven(id string) {
	if f, err := createNew(h.toldPath(id)); err == nil {
		f.Close()
	}
}

// HeldSession is a session whose lock someone other than cully holds,
// with records made without it.
type HeldSession struct {
	Session string // the state file's name, without its extension
	Holder  string // who holds it, where the system says
	PIDs    []int
}

// heldSessions lists the sessions with a marker whose lock is held now by
// something other than cully's writers.
func (h Home) heldSessions() []HeldSession {
	ents, err := os.ReadDir(h.SessionsDir())
	if err != nil {
		return nil
	}
	var out []HeldSession
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), stateExt+behindExt)
		if !ok {
			continue
		}
		path := h.SessionsDir() + string(os.PathSeparator) + name + stateExt
		if lk, err := lockFile(path, 0, true, os.O_RDONLY); err == nil {
			lk.Unlock()
			continue // free now: the next call catches the state up
		}
		if !heldByOtherFn(path) {
			continue
		}
		pids, who := lockHolder(path)
		out = append(out, HeldSession{Session: name, Holder: who, PIDs: pids})
	}
	return out
}
