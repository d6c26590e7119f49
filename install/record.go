package install

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gofrs/flock"

	"cully/jsonlite"
)

// RecordFile, in the state dir, is what `cully install` created: the files
// and folders that were not there before it (so that uninstall removes
// exactly those, and only once nothing of the user's is in them), and the
// skill text it wrote at each place (so that a skill still as cully wrote
// it can be updated, and one the user edited never is).
const RecordFile = "installed.json"

// Record is the content of RecordFile.
type Record struct {
	Version int               `json:"version"`
	Created map[string]string `json:"created"` // absolute path → "file" or "dir"
	Skills  map[string]string `json:"skills"`  // skill path → Sum of the text cully wrote there
}

func recordPath(stateDir string) string { return filepath.Join(stateDir, RecordFile) }

// ReadRecord reads the record: an empty one when there is none.
func ReadRecord(stateDir string) (Record, error) {
	r := Record{Version: 1, Created: map[string]string{}, Skills: map[string]string{}}
	if stateDir == "" {
		return r, nil
	}
	b, err := os.ReadFile(recordPath(stateDir))
	if errors.Is(err, os.ErrNotExist) {
		return r, nil
	}
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("%s: %w (move it aside to start afresh)", recordPath(stateDir), jsonlite.Where(b, err))
	}
	if r.Version != 1 {
		return r, fmt.Errorf("%s has version %d, want 1", recordPath(stateDir), r.Version)
	}
	if r.Created == nil {
		r.Created = map[string]string{}
	}
	if r.Skills == nil {
		r.Skills = map[string]string{}
	}
	return r, nil
}

// UpdateRecord changes the record under a lock, written whole through a
// temporary file and a rename; a record left empty is removed.
func UpdateRecord(stateDir string, change func(*Record)) error {
	if stateDir == "" {
		return errors.New("no state directory")
	}
	lock := flock.New(recordPath(stateDir)+".lock", flock.SetPermissions(0o600))
	if err := lock.Lock(); err != nil {
		return fmt.Errorf("lock %s: %w", lock.Path(), err)
	}
	defer lock.Close()
	r, err := ReadRecord(stateDir)
	if err != nil {
		return err
	}
	change(&r)
	if len(r.Created) == 0 && len(r.Skills) == 0 {
		if err := os.Remove(recordPath(stateDir)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return WriteAtomic(recordPath(stateDir), append(b, '\n'), 0o600)
}

// Under lists the recorded paths inside dir (dir itself included), deepest
// first: the order they can be removed in.
func (r Record) Under(dir string) []string {
	var out []string
	for p := range r.Created {
		if p == dir || strings.HasPrefix(p, dir+string(filepath.Separator)) {
			out = append(out, p)
		}
	}
	DeepestFirst(out)
	return out
}

// DeepestFirst sorts paths so that each comes before any folder holding
// it: the order to remove them in.
func DeepestFirst(paths []string) {
	sort.Slice(paths, func(i, j int) bool {
		return len(paths[i]) > len(paths[j]) || len(paths[i]) == len(paths[j]) && paths[i] > paths[j]
	})
}

// MkdirAll creates dir and any missing parents (perm), and returns the
// folders it created, outermost first.
func MkdirAll(dir string, perm os.FileMode) ([]string, error) {
	missing := Missing(dir)
	if err := os.MkdirAll(dir, perm); err != nil {
		return nil, fmt.Errorf("create %s: %w", dir, err)
	}
	return missing, nil
}

// Missing lists the folders MkdirAll(dir) would create, outermost first.
func Missing(dir string) []string {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || filepath.Dir(d) == d {
			return missing
		}
		missing = append([]string{d}, missing...)
	}
}
