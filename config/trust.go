package config

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"

	"cully/jsonlite"
)

// TrustFile, in the state dir, holds the user's consent to project files
// (the direnv model): each allowed file's canonical path and the SHA-256 of
// the content allowed (for people to read), or a denial. A project file
// takes effect only while its content is exactly what was allowed: the
// hook compares it byte for byte with the copy `cully allow` keeps in
// AllowedDir, so that it needs no hash function — linking crypto/sha256
// into the hook cost every call 0.03 ms of start-up (the FIPS module's
// initialisation), whether or not a project file existed.
const TrustFile = "allowed.json"

// AllowedDir, in the state dir, holds one file per allowed project file:
// its canonical path, a NUL, and the exact content allowed.
const AllowedDir = "allowed"

// Verdict is what the user said about one project file.
type Verdict struct {
	Sum     string    `json:"sha256,omitempty"` // the content allowed (hex SHA-256); empty for a denial
	Allowed bool      `json:"allowed"`          // false: denied, ignored without a reminder
	At      time.Time `json:"at"`
}

type trustDoc struct {
	Version int                `json:"version"`
	Files   map[string]Verdict `json:"files"`
}

func trustPath(stateDir string) string { return filepath.Join(stateDir, TrustFile) }

// copyPath is where the allowed content of the project file at canon is kept.
func copyPath(stateDir, canon string) string {
	h := fnv.New128a()
	h.Write([]byte(canon))
	return filepath.Join(stateDir, AllowedDir, hex.EncodeToString(h.Sum(nil))+".toml")
}

// allowedContent reports whether b is exactly the content allowed for the
// project file at canon (the copy names its path: two paths never share one).
func allowedContent(stateDir, canon string, b []byte) bool {
	c, err := readSmall(copyPath(stateDir, canon), int64(len(canon))+1+MaxProjectBytes)
	if err != nil {
		return false
	}
	head, rest, ok := bytes.Cut(c, []byte{0})
	return ok && string(head) == canon && bytes.Equal(rest, b)
}

// readTrust reads the trust file: an empty map when there is none. It runs
// only when a project file is parsed (session start, or the file changed),
// never on a cached hook call. A trust file that cannot be read allows
// nothing.
func readTrust(stateDir string) (map[string]Verdict, error) {
	b, err := os.ReadFile(trustPath(stateDir))
	if errors.Is(err, os.ErrNotExist) {
		return map[string]Verdict{}, nil
	}
	if err != nil {
		return nil, err
	}
	doc, err := jsonlite.ParseObject(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", trustPath(stateDir), err)
	}
	if v := doc.Int("version"); v != 1 {
		return nil, fmt.Errorf("%s has version %d, want 1", trustPath(stateDir), v)
	}
	out := map[string]Verdict{}
	err = jsonlite.Members(doc["files"], func(k, v []byte) error {
		path, ok := jsonlite.Unquote(k)
		if !ok {
			return errors.New("bad path")
		}
		o := jsonlite.AsObject(v)
		at, _ := time.Parse(time.RFC3339Nano, o.Str("at"))
		out[path] = Verdict{Sum: o.Str("sha256"), Allowed: o.Bool("allowed"), At: at}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", trustPath(stateDir), err)
	}
	return out, nil
}

// Trust returns every verdict, by canonical path.
func Trust(stateDir string) (map[string]Verdict, error) { return readTrust(stateDir) }

// Allow records that the user allows the project file at path with exactly
// this content (sum, its SHA-256, is kept for people to read). Deny records
// that they do not: the file is then ignored without a reminder until
// allowed. Both take effect at the next hook call.
func Allow(stateDir, path string, content []byte, sum string, now time.Time) error {
	canon := Canonical(path)
	return updateTrust(stateDir, func(m map[string]Verdict) error {
		if err := os.MkdirAll(filepath.Join(stateDir, AllowedDir), 0o700); err != nil {
			return err
		}
		if err := writeAtomic(copyPath(stateDir, canon), append(append([]byte(canon), 0), content...)); err != nil {
			return err
		}
		m[canon] = Verdict{Sum: sum, Allowed: true, At: now.UTC()}
		return nil
	})
}

// Deny removes an allowance and records the denial. It reports whether the
// file was allowed before.
func Deny(stateDir, path string, now time.Time) (bool, error) {
	was := false
	err := updateTrust(stateDir, func(m map[string]Verdict) error {
		p := Canonical(path)
		was = m[p].Allowed
		m[p] = Verdict{Allowed: false, At: now.UTC()}
		if err := os.Remove(copyPath(stateDir, p)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	})
	return was, err
}

// updateTrust changes the trust file under a lock (two `cully allow` at
// once must not lose one), written whole to a temporary file, 0600, then
// renamed over the old one, so a reader never sees half of it.
func updateTrust(stateDir string, change func(map[string]Verdict) error) error {
	if stateDir == "" {
		return errors.New("no state directory")
	}
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return err
	}
	lock := flock.New(trustPath(stateDir)+".lock", flock.SetPermissions(0o600))
	if err := lock.Lock(); err != nil {
		return fmt.Errorf("lock %s: %w", lock.Path(), err)
	}
	defer lock.Close()
	m, err := readTrust(stateDir)
	if err != nil {
		return fmt.Errorf("%w (move it aside to start afresh)", err)
	}
	if err := change(m); err != nil {
		return err
	}
	b, err := json.MarshalIndent(trustDoc{Version: 1, Files: m}, "", "  ")
	if err != nil {
		return err
	}
	if err := writeAtomic(trustPath(stateDir), append(b, '\n')); err != nil {
		return err
	}
	dropCache(stateDir) // cache entries hold the old verdicts
	return nil
}

// writeAtomic writes a file through a temporary file in the same directory
// (0600, as CreateTemp makes it) and a rename.
func writeAtomic(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}
