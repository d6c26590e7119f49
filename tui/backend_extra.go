package tui

import (
	"errors"
	"io/fs"
	"os"
	"sync"
	"time"

	"cully/advisor"
	"cully/engine"
	"cully/ledger"
	"cully/runs"
)

// RunFiles is what a run's folder holds beyond the session's state.
type RunFiles struct {
	Modified []string      // the last snapshot's files_modified
	Rollback *runs.Failure // the failed rollback's record, while the state says one failed
	Err      string        // why they could not be read
}

// AdvisorInfo is the advisor's standing for a session, as `cully status`
// reports it, and the impact ledger's totals, as `cully ledger` sums them
// (every session's).
type AdvisorInfo struct {
	Status  advisor.Status
	Totals  ledger.Totals
	Entries int    // the ledger's lines: none, and the totals say nothing
	Err     string // why the ledger could not be read
}

// configured: the user's config names an advisor command.
func (a AdvisorInfo) configured() bool { return a.Status.State != "" && a.Status.State != "off" }

// ReadCache keeps what the backend read of files that rarely change, keyed
// by what says they did not: the ledger by its size and mtime, a snapshot
// by its run and step. The zero value is ready; a nil one caches nothing.
type ReadCache struct {
	mu      sync.Mutex
	ledKey  string
	led     ledgerRead
	snapKey string
	snap    []string
}

type ledgerRead struct {
	totals ledger.Totals
	n      int
}

// Run reads the last snapshot's modified paths and a failed rollback's
// record: one small file each, the snapshot's once per step.
func (b HomeBackend) Run(st *engine.State) RunFiles {
	var out RunFiles
	r := st.Run
	if r == nil {
		return out
	}
	if r.Snapshots > 0 {
		key := r.ID + "\x00" + itoa(r.LastStep)
		paths, ok := b.Cache.snapshot(key)
		if !ok {
			s, err := runs.ReadSnapshot(b.Home, r.ID, r.LastStep)
			switch {
			case err == nil:
				paths = s.Files
				b.Cache.keepSnapshot(key, paths)
			case !errors.Is(err, fs.ErrNotExist):
				out.Err = err.Error()
			}
		}
		out.Modified = paths
	}
	if r.RollbackFailed != nil {
		f, err := runs.ReadFailure(b.Home, r.ID)
		if err != nil {
			out.Err = err.Error()
		}
		out.Rollback = f
	}
	return out
}

// Advisor is the session's advisor standing at now (the accounting read
// without its lock, as status reads it) and the ledger's totals, read
// again only when the ledger changed.
func (b HomeBackend) Advisor(st *engine.State, now time.Time) AdvisorInfo {
	info := AdvisorInfo{Status: advisor.StatusOf(b.Home, st, b.Workers, b.DiscoveryOff, now, nil)}
	if !info.configured() {
		return info
	}
	files := ledger.Files{Home: b.Home}
	fi, err := os.Stat(files.LedgerPath())
	if errors.Is(err, fs.ErrNotExist) {
		return info
	}
	if err != nil {
		info.Err = err.Error()
		return info
	}
	key := fi.ModTime().Format(time.RFC3339Nano) + "\x00" + itoa(int(fi.Size()))
	lr, ok := b.Cache.ledger(key)
	if !ok {
		es, _, err := files.Entries()
		if err != nil {
			info.Err = err.Error()
			return info
		}
		lr = ledgerRead{totals: ledger.Sum(es), n: len(es)}
		b.Cache.keepLedger(key, lr)
	}
	info.Totals, info.Entries = lr.totals, lr.n
	return info
}

func (c *ReadCache) snapshot(key string) ([]string, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.snap, c.snapKey == key
}

func (c *ReadCache) keepSnapshot(key string, paths []string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.snapKey, c.snap = key, paths
	c.mu.Unlock()
}

func (c *ReadCache) ledger(key string) (ledgerRead, bool) {
	if c == nil {
		return ledgerRead{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.led, c.ledKey == key
}

func (c *ReadCache) keepLedger(key string, lr ledgerRead) {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.ledKey, c.led = key, lr
	c.mu.Unlock()
}
