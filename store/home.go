package store

import (
	"errors"
	"fmt"
	"io/fs"
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
	// Now, when set, is the clock Record stamps each event with, read
	// under the session lock: the journal order of a session is then also
	// its time order, even for parallel calls of one batch. When nil the
	// event keeps the time its caller gave it.
	Now func() time.Time
	// Durable makes every journal append reach the disk before the call
	// returns (fdatasync). Off by default: on this project's development
	// machine (ext4 in a VM) an fdatasync costs 180-220 µs at the median and
	// up to 1.6 ms at p99 against 1.5 µs for the write itself, a sixth of
	// the whole hook's time on every tool call. Without it an acknowledged
	// line survives any crash of cully, the agent or the machine's
	// processes (it is in the kernel's page cache), but not a power loss or
	// kernel panic before the file system writes it back (ext4: within
	// about 5 s). Session state is derived from the journal and rebuilt
	// from it, so it is never synced. CULLY_DURABLE=1 sets it.
	Durable bool
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
func (h Home) ErrorsLog() string   { return filepath.Join(h.Dir, ErrorsLogName) }

// StatePath is a session's state file (see statefile.go).
func (h Home) StatePath(id string) string {
	return filepath.Join(h.SessionsDir(), SafeName(id)+stateExt)
}

// Ensure creates the state directory and its sessions folder, private to
// the user (0700), and runs the trust checks on both (see Check).
func (h Home) Ensure() error { return h.ready() }

// Check runs the state dir's trust checks without creating anything: the
// state dir and its sessions folder must be real directories (not
// symlinks), owned by the current user and writable by nobody else. It
// returns an error matching fs.ErrNotExist when the state dir does not
// exist yet, and one matching ErrUnsafe when it is refused. Every entry
// point of the store runs these checks once per call (two Lstats); every
// file in the dir is then opened without following a symlink and only if
// it is a regular file.
func (h Home) Check() error {
	if h.Dir == "" {
		return errors.New("no state directory")
	}
	fi, err := os.Lstat(h.Dir)
	if err != nil {
		return fmt.Errorf("state dir: %w", err)
	}
	if err := checkDir(h.Dir, fi); err != nil {
		return err
	}
	fi, err = os.Lstat(h.SessionsDir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("state dir: %w", err)
	}
	return checkDir(h.SessionsDir(), fi)
}

// ready is Check for writers: a missing state dir or sessions folder is
// created 0700 first.
func (h Home) ready() error {
	if h.Dir == "" {
		return errors.New("no state directory")
	}
	fi, err := os.Lstat(h.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(h.Dir, 0o700); err != nil {
			return fmt.Errorf("create state dir: %w", err)
		}
		fi, err = os.Lstat(h.Dir)
	}
	if err != nil {
		return fmt.Errorf("state dir: %w", err)
	}
	if err := checkDir(h.Dir, fi); err != nil {
		return err
	}
	return ensureDir(h.SessionsDir(), "state dir")
}

// ensureDir creates a folder of the state dir (0700) if it is missing and
// holds it to the state dir's trust checks; what names it in errors.
func ensureDir(d, what string) error {
	fi, err := os.Lstat(d)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.Mkdir(d, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("create %s: %w", what, err)
		}
		fi, err = os.Lstat(d)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return checkDir(d, fi)
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
