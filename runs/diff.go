package runs

import (
	"errors"
	"fmt"
	"io/fs"

	"cully/store"
)

// Who changed a file since a snapshot (FileDiff.By).
const (
	ByAgent   = "agent"   // the agent's calls, and nobody after them
	ByOutside = "outside" // someone else (the user, another session) last changed it
	ByBoth    = "both"    // someone else changed it, then the agent's calls did
	ByUnknown = "unknown" // a run older than the marks: who is not known
)

// FileDiff is one file changed since a snapshot: how, by whom, and the
// change as git prints it (without colour).
type FileDiff struct {
	Path   string
	Status string // "modified", "added", "removed"
	By     string // ByAgent, ByOutside, ByBoth, ByUnknown
	Text   string // the unified diff; cut at DiffRequest.MaxText bytes
	Cut    bool   // Text was cut
}

// DiffRequest asks what changed in a run's files since a snapshot.
type DiffRequest struct {
	Run     string
	To      int     // the snapshot compared with now; 0: the run's start
	Policy  *Policy // the snapshot store's bounds (nil: the defaults)
	MaxText int     // bytes of diff kept per file; <= 0: 64 KiB
}

// maxDiffFiles bounds the files a diff prints the change of: the rest
// are listed without their text.
const maxDiffFiles = 200

// Diff lists the files that changed since a snapshot of the run, as a dry
// rollback to it sees them (the work tree now, captured without writing a
// snapshot), each marked by who changed it, with its unified diff. It
// changes nothing.
func Diff(h store.Home, req DiffRequest) ([]FileDiff, error) {
	dir, m, release, err := openRun(h, req.Run)
	if err != nil {
		return nil, err
	}
	defer release()
	target, err := readSnapshot(dir, req.To)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("run %s has no snapshot %d", m.RunID, req.To)
	}
	if err != nil {
		return nil, err
	}
	g := m.repo(h, dir)
	pol := DefaultPolicy(h.Dir)
	if req.Policy != nil {
		pol = *req.Policy
	}
	now, skips, err := dryCapture(g, dir, m, pol.MaxFileBytes)
	if err != nil {
		return nil, err
	}
	cs, err := diffTrees(g, target.State.Tree, now)
	if err != nil {
		return nil, err
	}
	by := map[string]string{}
	if m.Store != "" {
		ms, err := readMarks(dir)
		if err != nil {
			return nil, err
		}
		segs := history(ms, target.State.Marks, target.State.Tree, skipPaths(target.State.Skipped), now, skipPaths(skips), m.Root)
		agent, outside, _, err := attribute(g, segs, cs, target.State.Tree, now, skipPaths(target.State.Skipped), m.Root)
		if err != nil {
			return nil, err
		}
		for _, p := range outside {
			by[p] = ByOutside
		}
		for _, c := range agent {
			by[c.Path] = ByAgent
			if c.Tree != target.State.Tree {
				by[c.Path] = ByBoth
			}
		}
	}
	max := req.MaxText
	if max <= 0 {
		max = 64 << 10
	}
	out := make([]FileDiff, 0, len(cs))
	for i, c := range cs {
		fd := FileDiff{Path: c.Path, Status: "modified", By: by[c.Path]}
		switch {
		case !c.inA():
			fd.Status = "added"
		case !c.inB():
			fd.Status = "removed"
		}
		if fd.By == "" {
			fd.By = ByUnknown
			if m.Store != "" { // the agent put it back, someone else changed it back: outside its calls
				fd.By = ByOutside
			}
		}
		if i < maxDiffFiles {
			b, err := g.out(nil, "diff", "--no-color", "--no-ext-diff", "--no-renames", target.State.Tree, now, "--", c.Path)
			if err != nil {
				return nil, err
			}
			if len(b) > max {
				b, fd.Cut = b[:max], true
			}
			fd.Text = string(b)
		}
		out = append(out, fd)
	}
	return out, nil
}
