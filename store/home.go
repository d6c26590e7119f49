package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"cully/engine"
)

// Home is cully's state directory ($CULLY_HOME).
type Home struct {
	Dir         string
	LockWait    time.Duration // zero means DefaultLockWait
	RotateBytes int64         // zero means DefaultRotateBytes
}

func (h Home) wait() time.Duration {
	if h.LockWait > 0 {
		return h.LockWait
	}
	return DefaultLockWait
}

// Paths of the files inside a state directory.
func (h Home) Journal() string     { return filepath.Join(h.Dir, "journal.jsonl") }
func (h Home) JournalLock() string { return filepath.Join(h.Dir, "journal.lock") }
func (h Home) SessionsDir() string { return filepath.Join(h.Dir, "sessions") }
func (h Home) ErrorsLog() string   { return filepath.Join(h.Dir, "errors.log") }
func (h Home) StatePath(id string) string {
	return filepath.Join(h.SessionsDir(), SafeName(id)+".json")
}
func (h Home) StateLock(id string) string {
	return filepath.Join(h.SessionsDir(), SafeName(id)+".lock")
}

// Ensure creates the state directory and its sessions folder, private to
// the user.
func (h Home) Ensure() error {
	if h.Dir == "" {
		return errors.New("no state directory")
	}
	if err := os.MkdirAll(h.SessionsDir(), 0o700); err != nil {
		return fmt.Errorf("create state dir: %w", err)
	}
	return nil
}

// maxSafeName bounds file names derived from session ids.
const maxSafeName = 80

// SafeName turns any session id into a file name that cannot escape its
// directory: ids made only of letters, digits, '-', '_' and inner '.' pass
// unchanged; anything else (slashes, "..", control bytes, overlong ids) is
// replaced by a readable prefix and a hash.
func SafeName(id string) string {
	if id == "" {
		return "unknown"
	}
	ok := len(id) <= maxSafeName && id[0] != '.'
	for i := 0; ok && i < len(id); i++ {
		c := id[i]
		ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.'
	}
	if ok && !strings.Contains(id, "..") {
		return id
	}
	var b strings.Builder
	for i := 0; i < len(id) && b.Len() < 24; i++ {
		c := id[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' {
			b.WriteByte(c)
		}
	}
	return "x" + b.String() + "-" + engine.Fingerprint(id)
}
