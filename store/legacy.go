package store

import (
	"fmt"
	"os"
	"path/filepath"

	"cully/engine"
)

// The layout before statefile.go's, kept readable so that an upgrade
// loses no session: sessions/<id>.json held the state (swapped in from
// <id>.json.spare by renames, <id>.json.old during a swap without
// renameat2's exchange), and <id>.lock the session lock and its in-flight
// mark. A session found only there is read from it (and, by a writer,
// caught up from its journal position), then written in the new layout
// and its old files removed.
const (
	stateExt       = ".state"
	legacyStateExt = ".json"
)

func (h Home) legacyStatePath(id string) string {
	return filepath.Join(h.SessionsDir(), SafeName(id)+legacyStateExt)
}

// loadLegacy reads a session's state file of the old layout, under its old
// shared lock when that file is there. The bytes are returned to size the
// next write.
func (h Home) loadLegacy(id string) (*engine.State, *journalPos, []byte, error) {
	p := h.legacyStatePath(id)
	if _, err := os.Lstat(p); err != nil {
		return nil, nil, nil, err
	}
	lock := filepath.Join(h.SessionsDir(), SafeName(id)+".lock")
	if _, err := os.Lstat(lock); err == nil {
		if lk, err := AcquireShared(lock, h.wait()); err == nil {
			defer lk.Unlock()
		}
	}
	b, err := ReadSmallFile(p, maxStateFile)
	if err != nil {
		return nil, nil, nil, err
	}
	st, pos, err := decodeChecked(b, id, p)
	if err != nil {
		return nil, nil, b, fmt.Errorf("%w (a state file of the previous layout)", err)
	}
	return st, pos, b, nil
}

// removeLegacy removes a session's files of the old layout, if any.
func (h Home) removeLegacy(id string) {
	base := filepath.Join(h.SessionsDir(), SafeName(id))
	for _, ext := range []string{legacyStateExt, legacyStateExt + ".spare", legacyStateExt + ".old", ".lock"} {
		if err := os.Remove(base + ext); err != nil && !os.IsNotExist(err) {
			_ = h.LogError("remove old state file", err, map[string]any{"session": id})
		}
	}
}
