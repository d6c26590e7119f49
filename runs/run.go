package runs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"cully/store"
)

// A run's folder, runs/<run_id>/ in the state dir:
//
//	run.json               the run: its work tree, its baseline, the repository's HEAD at its start
//	snapshot-000000.json   one file per snapshot, in the seed's format; step 0 is the baseline
//	git/                   the private repository: its index, its objects (the user's are an alternate)
//	lock                   held while a snapshot or a rollback runs
//	rollback-failed.json   the last rollback that failed: its problems and every modified path
const (
	metaFile        = "run.json"
	snapPrefix      = "snapshot-"
	gitDirName      = "git"
	lockFile        = "lock"
	rollbackFailed  = "rollback-failed.json"
	stageDir        = "stage"
	metaVersion     = 2 // 2: the content in the work tree's store (repo.go), the run's index and excludes in its folder
	stateVersion    = 1
	snapshotPattern = snapPrefix + "%06d.json"
)

// LockWait is how long a snapshot or a rollback waits for the run's lock:
// the snapshot before it may be hashing a large tree.
const LockWait = 10 * time.Minute

// Meta is run.json: what every snapshot of the run is taken against.
type Meta struct {
	V       int       `json:"v"`
	RunID   string    `json:"run_id"`
	Session string    `json:"session"`
	Task    int       `json:"task"`
	Started time.Time `json:"started"`
	// Root is the work tree snapshotted: the repository's top level, or
	// the project folder outside any repository (Git false).
	Root string `json:"root"`
	Git  bool   `json:"git"`
	// Objects is the repository's object dir, the private store's
	// alternate; Head its HEAD commit at the run's start ("" in a
	// repository with no commit yet).
	Objects string `json:"objects,omitempty"`
	Head    string `json:"head,omitempty"`
	// Store is the key of the work tree's store (repo.go); "" in a run of
	// version 1, whose private repository is in its folder.
	Store string `json:"store,omitempty"`
	// Baseline is the tree of step 0: the run's start state.
	Baseline string `json:"baseline"`
}

// File is a snapshot file, exactly in the seed's format.
type File struct {
	RunID     string   `json:"run_id"`
	Step      int      `json:"step"`
	Timestamp string   `json:"timestamp"`      // ISO 8601 (RFC 3339, UTC)
	State     string   `json:"state_snapshot"` // State, serialized as JSON
	Files     []string `json:"files_modified"` // paths from Root, changed since the run's start
}

// State is what state_snapshot serializes: where the files' content is,
// and where the run stood.
type State struct {
	V         int    `json:"v"`
	Session   string `json:"session"`
	Task      int    `json:"task"`
	Reason    string `json:"reason"`     // baseline, calls, time, end, manual, rollback, stop, destructive
	ToolCalls int    `json:"tool_calls"` // the run's tool calls when it was asked for
	Root      string `json:"root"`
	// Tree is the git tree of the work tree at this step (in the run's
	// private store); Baseline the run's start.
	Tree     string `json:"tree"`
	Baseline string `json:"baseline_tree"`
	// NotCaptured are files present but not snapshotted: larger than
	// MaxFileBytes, unreadable, or not a regular file or link. They are
	// not in files_modified, and a rollback leaves them alone.
	NotCaptured []string `json:"not_captured,omitempty"`
	// Skipped says why each of them is not captured (Skip.Why).
	Skipped []Skip `json:"skipped,omitempty"`
	// Marks is how many marks (marks.go) the run had when this was taken:
	// a rollback to it reads the run's history from there.
	Marks int `json:"marks,omitempty"`
}

// Snapshot is a snapshot file read back.
type Snapshot struct {
	File
	State State
	Path  string // the file
	// skips are the files not captured, their paths as they are (the
	// file's are redacted): a rollback's own snapshot hands them on.
	skips []Skip
}

// Time is the snapshot's timestamp (zero when unreadable).
func (s Snapshot) Time() time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s.Timestamp)
	return t
}

func snapshotPath(dir string, step int) string {
	return filepath.Join(dir, fmt.Sprintf(snapshotPattern, step))
}

// writeJSON writes v indented, as people read these files, without
// encoding/json's HTML escapes (a path with & in it stays readable).
func writeJSON(path string, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	return store.WriteFileAtomic(path, b.Bytes())
}

func compactJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

// maxMetaFile bounds the run's small files as the store bounds its own.
const maxMetaFile = 64 << 20

func readMeta(dir string) (*Meta, error) {
	b, err := store.ReadSmallFile(filepath.Join(dir, metaFile), maxMetaFile)
	if err != nil {
		return nil, err
	}
	m := &Meta{}
	if err := json.Unmarshal(b, m); err != nil {
		return nil, fmt.Errorf("read %s: %w", metaFile, err)
	}
	if m.V < 1 || m.V > metaVersion || m.Baseline == "" || m.Root == "" || m.V == 1 && m.Store != "" {
		return nil, fmt.Errorf("read %s: not a run of this version of cully", metaFile)
	}
	return m, nil
}

// ReadMeta reads a run's run.json; an error matching fs.ErrNotExist when
// the run has no baseline.
func ReadMeta(h store.Home, runID string) (*Meta, error) {
	dir, err := h.CheckRunDir(runID)
	if err != nil {
		return nil, err
	}
	return readMeta(dir)
}

// steps lists the steps written in a run's folder, in order.
func steps(dir string) ([]int, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []int
	for _, e := range ents {
		name := e.Name()
		num, ok := strings.CutPrefix(name, snapPrefix)
		if !ok || !strings.HasSuffix(num, ".json") || !e.Type().IsRegular() {
			continue
		}
		if n, err := strconv.Atoi(strings.TrimSuffix(num, ".json")); err == nil && n >= 0 {
			out = append(out, n)
		}
	}
	sort.Ints(out)
	return out, nil
}

// ReadSnapshot reads one snapshot file of a run (the panel reads the last
// one's files_modified).
func ReadSnapshot(h store.Home, runID string, step int) (*Snapshot, error) {
	dir, err := h.CheckRunDir(runID)
	if err != nil {
		return nil, err
	}
	return readSnapshot(dir, step)
}

func readSnapshot(dir string, step int) (*Snapshot, error) {
	p := snapshotPath(dir, step)
	b, err := store.ReadSmallFile(p, maxMetaFile)
	if err != nil {
		return nil, err
	}
	s := &Snapshot{Path: p}
	if err := json.Unmarshal(b, &s.File); err != nil {
		return nil, fmt.Errorf("read snapshot %d: %w", step, err)
	}
	if err := json.Unmarshal([]byte(s.File.State), &s.State); err != nil {
		return nil, fmt.Errorf("read snapshot %d: its state_snapshot: %w", step, err)
	}
	if s.Step != step || s.State.Tree == "" {
		return nil, fmt.Errorf("read snapshot %d: the file does not hold that step", step)
	}
	return s, nil
}

// List reads a run's snapshots, oldest first (none when the run has no
// folder yet).
func List(h store.Home, runID string) ([]Snapshot, error) {
	dir, err := h.CheckRunDir(runID)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	ns, err := steps(dir)
	if err != nil {
		return nil, err
	}
	var out []Snapshot
	for _, n := range ns {
		s, err := readSnapshot(dir, n)
		if err != nil {
			return out, err
		}
		out = append(out, *s)
	}
	return out, nil
}

// Failure is rollback-failed.json: the last rollback that failed.
type Failure struct {
	At       time.Time `json:"at"`
	To       int       `json:"to_step"`
	Undo     int       `json:"undo_step"` // the snapshot taken first; -1 when none was
	Error    string    `json:"error"`
	Problems []Problem `json:"problems"`
	Modified []string  `json:"modified"` // every file the run had modified when it failed
}

// ReadFailure reads a run's last failed rollback (nil when there is none).
func ReadFailure(h store.Home, runID string) (*Failure, error) {
	dir, err := h.CheckRunDir(runID)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	b, err := store.ReadSmallFile(filepath.Join(dir, rollbackFailed), maxMetaFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	f := &Failure{}
	if err := json.Unmarshal(b, f); err != nil {
		return nil, fmt.Errorf("read %s: %w", rollbackFailed, err)
	}
	return f, nil
}

// NextStep is the step the run's next snapshot will have (0 when it has
// none), for recording a failure that wrote no file.
func NextStep(h store.Home, runID string) int {
	dir, err := h.CheckRunDir(runID)
	if err != nil {
		return 0
	}
	ns, err := steps(dir)
	if err != nil || len(ns) == 0 {
		return 0
	}
	return ns[len(ns)-1] + 1
}
