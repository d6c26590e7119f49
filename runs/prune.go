package runs

import (
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
	"cully/store"
)

// Policy bounds the snapshot stores. Every run of a work tree shares its
// store; a prune removes whole runs (their snapshots) and then the content
// no kept run refers to, as restic's forget and prune do.
type Policy struct {
	// KeepRuns: the newest runs of each work tree are always kept …
	KeepRuns int
	// KeepFor: … and so is every run started within this long.
	KeepFor time.Duration
	// MaxBytes caps a work tree's store: past it the oldest runs outside
	// the two rules above go first, and when it is still over, the oldest
	// runs but the newest; snapshots pause while it stays over.
	MaxBytes int64
	// MinFree is the low-disk floor: snapshots pause when the state dir's
	// file system has less free, so that the journal always has room.
	MinFree int64
	// MaxFileBytes: a larger file is not captured (MaxFileBytes).
	MaxFileBytes int64
}

// Defaults of Policy. A store is sized to the disk: a tenth of it, between
// 256 MiB and 4 GiB (a repository's working set many times over, a small
// part of a laptop's disk); the floor is a fiftieth, between 256 MiB and
// 2 GiB: a journal grows by kilobytes a call, so that is days of recording,
// and a nearly full laptop still gets snapshots.
const (
	DefaultKeepRuns = 20
	DefaultKeepFor  = 7 * 24 * time.Hour
	minStoreCap     = 256 << 20
	maxStoreCap     = 4 << 30
	minFloor        = 256 << 20
	maxFloor        = 2 << 30
)

// DefaultPolicy is the policy for a state dir, sized to its disk.
func DefaultPolicy(stateDir string) Policy {
	p := Policy{KeepRuns: DefaultKeepRuns, KeepFor: DefaultKeepFor, MaxBytes: 1 << 30, MinFree: 1 << 30, MaxFileBytes: MaxFileBytes}
	if _, total, ok := diskSpace(stateDir); ok {
		p.MaxBytes = min(max(total/10, minStoreCap), maxStoreCap)
		p.MinFree = min(max(total/50, minFloor), maxFloor)
	}
	return p
}

// PolicyFor is the policy of a state dir with the user's [snapshots]
// settings over the defaults.
func PolicyFor(stateDir string, c engine.SnapshotConfig) Policy {
	p := DefaultPolicy(stateDir)
	if c.MaxStoreBytes > 0 {
		p.MaxBytes = c.MaxStoreBytes
	}
	if c.MinFreeBytes > 0 {
		p.MinFree = c.MinFreeBytes
	}
	if c.KeepRuns > 0 {
		p.KeepRuns = int(min(c.KeepRuns, 1<<20))
	}
	if c.KeepDays > 0 {
		p.KeepFor = time.Duration(min(c.KeepDays, 100*365)) * 24 * time.Hour
	}
	if c.MaxFileBytes > 0 {
		p.MaxFileBytes = c.MaxFileBytes
	}
	return p
}

// ErrPaused is a snapshot not taken because the store is at its cap or
// the disk at its floor; the error says which and what to do.
var ErrPaused = errors.New("snapshots paused")

// StoreInfo is one work tree's store.
type StoreInfo struct {
	Key    string    `json:"key"`
	Root   string    `json:"root"`
	Bytes  int64     `json:"bytes"`
	Runs   int       `json:"runs"`
	Newest time.Time `json:"newest"`
}

// runInfo is a run of a store, for a prune.
type runInfo struct {
	id, dir string
	meta    *Meta
}

// Stores lists the work trees' stores, largest first.
func Stores(h store.Home) ([]StoreInfo, error) {
	ents, err := os.ReadDir(h.StoresDir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	byKey := runsByStore(h)
	var out []StoreInfo
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		dir, err := h.CheckStoreDir(e.Name())
		if err != nil {
			continue
		}
		si := StoreInfo{Key: e.Name(), Bytes: dirBytes(filepath.Join(dir, gitDirName))}
		if b, err := store.ReadSmallFile(filepath.Join(dir, storeRoot), 64<<10); err == nil {
			si.Root = strings.TrimSpace(string(b))
		}
		for _, r := range byKey[e.Name()] {
			si.Runs++
			if r.meta.Started.After(si.Newest) {
				si.Newest = r.meta.Started
			}
		}
		out = append(out, si)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Bytes > out[j].Bytes })
	return out, nil
}

// runsByStore reads every run's run.json, by store key (runs of version 1
// have none and are left out: their content is in their own folder).
func runsByStore(h store.Home) map[string][]runInfo {
	out := map[string][]runInfo{}
	ents, err := os.ReadDir(h.RunsDir())
	if err != nil {
		return out
	}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		dir, err := h.CheckRunDir(e.Name())
		if err != nil {
			continue
		}
		m, err := readMeta(dir)
		if err != nil || m.Store == "" {
			continue
		}
		out[m.Store] = append(out[m.Store], runInfo{id: e.Name(), dir: dir, meta: m})
	}
	for _, rs := range out {
		sort.Slice(rs, func(i, j int) bool { return rs[i].meta.Started.After(rs[j].meta.Started) })
	}
	return out
}

// Pruned is what a prune of one store did.
type Pruned struct {
	Key     string   `json:"key"`
	Root    string   `json:"root"`
	Removed []string `json:"removed_runs"`
	Before  int64    `json:"bytes_before"`
	After   int64    `json:"bytes_after"`
	Busy    []string `json:"busy_runs,omitempty"` // due for removal but in use: kept this time
}

// Prune applies the policy to every store (or the one of key), never
// removing a run named in keep or one in use. A run is removed whole: its
// folder, then the content no kept run refers to.
func Prune(h store.Home, p Policy, now time.Time, key string, keep ...string) ([]Pruned, error) {
	byKey := runsByStore(h)
	ents, err := os.ReadDir(h.StoresDir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Pruned
	for _, e := range ents {
		if !e.IsDir() || key != "" && e.Name() != key {
			continue
		}
		r, err := pruneStore(h, p, now, e.Name(), byKey[e.Name()], keep)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

// pruneWait bounds how long a prune waits for a store's snapshots to end.
const pruneWait = 30 * time.Second

func pruneStore(h store.Home, p Policy, now time.Time, key string, rs []runInfo, keep []string) (Pruned, error) {
	dir, err := h.CheckStoreDir(key)
	if err != nil {
		return Pruned{Key: key}, err
	}
	lk, err := store.Acquire(filepath.Join(dir, storeLock), pruneWait)
	if err != nil {
		return Pruned{Key: key}, fmt.Errorf("prune the store: %w", err)
	}
	defer lk.Unlock()
	gitDir := filepath.Join(dir, gitDirName)
	res := Pruned{Key: key, Before: dirBytes(gitDir)}
	if b, err := store.ReadSmallFile(filepath.Join(dir, storeRoot), 64<<10); err == nil {
		res.Root = strings.TrimSpace(string(b))
	}
	pinned := map[string]bool{}
	for _, k := range keep {
		pinned[k] = true
	}
	kept := rs
	// The policy: the newest KeepRuns, and every run within KeepFor.
	var due []runInfo
	kept = nil
	for i, r := range rs {
		if i < p.KeepRuns || now.Sub(r.meta.Started) < p.KeepFor || pinned[r.id] {
			kept = append(kept, r)
		} else {
			due = append(due, r)
		}
	}
	kept, res = removeRuns(due, kept, res)
	if err := pruneObjects(gitDir, kept); err != nil {
		return res, err
	}
	res.After = dirBytes(gitDir)
	// The cap: the oldest kept runs go, one at a time, but never the newest.
	for res.After > p.MaxBytes && len(kept) > 1 {
		last := kept[len(kept)-1]
		if pinned[last.id] {
			break
		}
		kept, res = removeRuns([]runInfo{last}, kept[:len(kept)-1], res)
		if err := pruneObjects(gitDir, kept); err != nil {
			return res, err
		}
		res.After = dirBytes(gitDir)
	}
	return res, nil
}

// removeRuns removes each due run not in use (its lock free), and keeps
// the busy ones.
func removeRuns(due, kept []runInfo, res Pruned) ([]runInfo, Pruned) {
	for _, r := range due {
		lk, err := store.Acquire(filepath.Join(r.dir, lockFile), 0)
		if err != nil {
			res.Busy = append(res.Busy, r.id)
			kept = append(kept, r)
			continue
		}
		err = os.RemoveAll(r.dir)
		lk.Unlock()
		if err != nil {
			res.Busy = append(res.Busy, r.id)
			kept = append(kept, r)
			continue
		}
		res.Removed = append(res.Removed, r.id)
	}
	return kept, res
}

// pruneObjects removes the store's content that no kept run's snapshot
// refers to (git prune, with every kept tree named: a tree is kept with
// all it holds).
func pruneObjects(gitDir string, kept []runInfo) error {
	seen := map[string]bool{}
	var trees []string
	add := func(t string) {
		if t != "" && !seen[t] {
			seen[t] = true
			trees = append(trees, t)
		}
	}
	for _, r := range kept {
		add(r.meta.Baseline)
		for _, t := range runTrees(r.dir) {
			add(t)
		}
	}
	g := git{dir: gitDir, root: filepath.Dir(gitDir)}
	args := append([]string{"prune", "--expire=now"}, trees...)
	if len(args) > 4096 { // a command line's length: the rest through a ref each
		return fmt.Errorf("prune: %d snapshots to keep in one store is more than a prune names", len(trees))
	}
	_, err := g.out(nil, args...)
	return err
}

// runTrees lists the trees a run's folder refers to: its snapshots'.
func runTrees(dir string) []string {
	ns, err := steps(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, n := range ns {
		b, err := store.ReadSmallFile(snapshotPath(dir, n), maxMetaFile)
		if err != nil {
			continue
		}
		var f File
		var st State
		if json.Unmarshal(b, &f) == nil && json.Unmarshal([]byte(f.State), &st) == nil {
			out = append(out, st.Tree)
		}
	}
	return append(out, markTrees(dir)...)
}

// dirBytes is the size of the files under dir.
func dirBytes(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// roomFor checks the policy before a snapshot of a store: the disk's floor
// for every snapshot (the journal needs the room more), the store's cap
// for those the reducer asks for (a rollback's own snapshot is small and
// what makes it undoable).
func roomFor(h store.Home, p Policy, key string, capped bool) error {
	if free, _, ok := diskSpace(h.Dir); ok && free < p.MinFree {
		return fmt.Errorf("%w: the disk holding %s has %s free, under the floor of %s kept for the journal; free some space (cully snapshots prune removes old runs)",
			ErrPaused, h.Dir, humanBytes(free), humanBytes(p.MinFree))
	}
	if !capped || key == "" {
		return nil
	}
	if n := dirBytes(filepath.Join(h.StoreDir(key), gitDirName)); n > p.MaxBytes {
		return fmt.Errorf("%w: the snapshot store of this repository holds %s, over its cap of %s; cully snapshots prune removes old runs, or raise [snapshots] max_store_bytes",
			ErrPaused, humanBytes(n), humanBytes(p.MaxBytes))
	}
	return nil
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// StoreOf is the store a run's content is in (nil for a run of version 1
// or one with no baseline).
func StoreOf(h store.Home, runID string) (*StoreInfo, error) {
	m, err := ReadMeta(h, runID)
	if err != nil || m.Store == "" {
		return nil, err
	}
	dir, err := h.CheckStoreDir(m.Store)
	if err != nil {
		return nil, err
	}
	si := &StoreInfo{Key: m.Store, Root: m.Root, Bytes: dirBytes(filepath.Join(dir, gitDirName))}
	for _, r := range runsByStore(h)[m.Store] {
		si.Runs++
		if r.meta.Started.After(si.Newest) {
			si.Newest = r.meta.Started
		}
	}
	return si, nil
}

// Paused says why the policy pauses a store's snapshots now ("" when it
// does not): over its cap, or the disk under its floor.
func Paused(h store.Home, p Policy, key string) string {
	if err := roomFor(h, p, key, true); err != nil {
		return err.Error()
	}
	return ""
}

// HumanBytes prints a size as people read it (KiB, MiB, GiB).
func HumanBytes(n int64) string { return humanBytes(n) }
