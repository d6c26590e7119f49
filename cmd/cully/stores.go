package main

import (
	"encoding/json"
	"fmt"
	"time"

	"cully/runs"
	"cully/store"
)

// storeReport is a repository's snapshot store, in `cully snapshots` and
// `cully snapshots prune --json`.
type storeReport struct {
	Root   string `json:"root"`
	Bytes  int64  `json:"bytes"`
	Cap    int64  `json:"cap"`
	Runs   int    `json:"runs"`
	Paused string `json:"paused,omitempty"` // why snapshots pause now
}

func newStoreReport(h store.Home, pol runs.Policy, si runs.StoreInfo) storeReport {
	return storeReport{Root: si.Root, Bytes: si.Bytes, Cap: pol.MaxBytes, Runs: si.Runs, Paused: runs.Paused(h, pol, si.Key)}
}

// storeLine is a store in one line.
func storeLine(s storeReport) string {
	line := fmt.Sprintf("%s of %s for %s (%d run%s)", runs.HumanBytes(s.Bytes), runs.HumanBytes(s.Cap), s.Root, s.Runs, plural(s.Runs, "", "s"))
	if s.Paused != "" {
		line += "; " + s.Paused
	}
	return line
}

type pruneOpts struct {
	keepRuns int
	keepDays int
	json     bool
}

// pruneReport is `cully snapshots prune --json`.
type pruneReport struct {
	Schema int           `json:"schema_version"`
	Stores []runs.Pruned `json:"stores"`
}

// snapshotsPrune applies the store's policy now (with --keep-runs and
// --keep-days over it for this once): old runs go whole, then the content
// no kept run refers to. A run in use and each repository's newest run
// are kept.
func (a *app) snapshotsPrune(o pruneOpts) error {
	h, err := a.home()
	if err != nil {
		return err
	}
	now, _ := a.now()
	pol := *a.policy(h)
	if o.keepRuns > 0 {
		pol.KeepRuns = o.keepRuns
	}
	if o.keepDays >= 0 {
		pol.KeepFor = time.Duration(o.keepDays) * 24 * time.Hour
	}
	pruned, err := runs.Prune(h, pol, now, "")
	if err != nil {
		return fail(codeSnapshot, err, "prune the snapshot stores: %s", plain(err))
	}
	if o.json {
		if pruned == nil {
			pruned = []runs.Pruned{}
		}
		enc := json.NewEncoder(jsonSafe{a.stdout})
		enc.SetIndent("", "  ")
		return enc.Encode(pruneReport{Schema: jsonSchema, Stores: pruned})
	}
	w := termSafe{a.stdout}
	if len(pruned) == 0 {
		fmt.Fprintln(w, "no snapshot store yet: nothing to prune")
		return nil
	}
	for _, p := range pruned {
		fmt.Fprintf(w, "%s: %d run%s removed, %s → %s", p.Root, len(p.Removed), plural(len(p.Removed), "", "s"), runs.HumanBytes(p.Before), runs.HumanBytes(p.After))
		if len(p.Busy) > 0 {
			fmt.Fprintf(w, " (%d in use, kept)", len(p.Busy))
		}
		fmt.Fprintln(w)
	}
	return nil
}

// plural is one or many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
