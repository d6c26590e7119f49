package store

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
)

// RunsDir holds one folder per run: its recovery snapshots and the private
// git store they are kept in (package runs).
func (h Home) RunsDir() string { return filepath.Join(h.Dir, "runs") }

// RunDir is a run's folder; the id never becomes a path unsanitized.
func (h Home) RunDir(id string) string { return filepath.Join(h.RunsDir(), SafeName(id)) }

// EnsureRunDir creates the runs folder and the run's own (0700) and holds
// both to the state dir's trust checks: a real directory, this user's,
// writable by nobody else.
func (h Home) EnsureRunDir(id string) (string, error) {
	if err := h.ready(); err != nil {
		return "", err
	}
	for _, d := range []string{h.RunsDir(), h.RunDir(id)} {
		if err := ensureDir(d, "run dir"); err != nil {
			return "", err
		}
	}
	return h.RunDir(id), nil
}

// CheckRunDir runs the same checks on a run's folder without creating it
// (an error matching fs.ErrNotExist when there is none).
func (h Home) CheckRunDir(id string) (string, error) {
	if err := h.Check(); err != nil {
		return "", err
	}
	for _, d := range []string{h.RunsDir(), h.RunDir(id)} {
		fi, err := os.Lstat(d)
		if err != nil {
			return "", fmt.Errorf("run dir: %w", err)
		}
		if err := checkDir(d, fi); err != nil {
			return "", err
		}
	}
	return h.RunDir(id), nil
}

// StoresDir holds one content store per work tree (package runs): every
// run of a repository keeps its snapshots' content there, so content held
// once is never stored again.
func (h Home) StoresDir() string { return filepath.Join(h.Dir, "stores") }

// StoreDir is a work tree's content store; the key never becomes a path
// unsanitized.
func (h Home) StoreDir(key string) string { return filepath.Join(h.StoresDir(), SafeName(key)) }

// EnsureStoreDir creates the stores folder and the store's own (0700),
// held to the same checks as a run's folder.
func (h Home) EnsureStoreDir(key string) (string, error) {
	if err := h.ready(); err != nil {
		return "", err
	}
	for _, d := range []string{h.StoresDir(), h.StoreDir(key)} {
		if err := ensureDir(d, "store dir"); err != nil {
			return "", err
		}
	}
	return h.StoreDir(key), nil
}

// CheckStoreDir runs those checks without creating anything (an error
// matching fs.ErrNotExist when there is no such store).
func (h Home) CheckStoreDir(key string) (string, error) {
	if err := h.Check(); err != nil {
		return "", err
	}
	for _, d := range []string{h.StoresDir(), h.StoreDir(key)} {
		fi, err := os.Lstat(d)
		if err != nil {
			return "", fmt.Errorf("store dir: %w", err)
		}
		if err := checkDir(d, fi); err != nil {
			return "", err
		}
	}
	return h.StoreDir(key), nil
}

var tmpSeq atomic.Int64

// WriteFileAtomic writes a file of the state dir whole: into a new file
// beside it (created exclusively, 0600, never through a link), then renamed
// over it, so a reader sees the old content or the new, never a part.
func WriteFileAtomic(path string, b []byte) error {
	tmp := path + ".tmp-" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(tmpSeq.Add(1), 10)
	f, err := createNew(tmp)
	if err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	return nil
}
