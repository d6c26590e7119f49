package runs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"cully/store"
)

// RollbackRequest asks for a run's files back as they were at a snapshot.
type RollbackRequest struct {
	// Request is the snapshot of the current state taken first (Reason
	// "rollback", or "stop" for cully stop --revert), so that the rollback
	// can itself be rolled back.
	Request
	To     int  // the step to go back to; -1: the run's last snapshot
	DryRun bool // plan only: no snapshot written, no file changed
	// Uncommitted keeps the files the run committed: those whose content
	// now is the repository's HEAD's, where HEAD has moved since the run's
	// start and did not hold that content then (cully stop --revert).
	Uncommitted bool
	// Force proceeds when a path the rollback would overwrite or remove is
	// held by no snapshot (over the size cap, unreadable, a special or
	// secret file): that path is left as it is (Plan.Left), the rest
	// rolled back. Without it such a path fails the rollback, nothing
	// changed.
	Force bool
}

// Plan is what a rollback does, or did.
type Plan struct {
	RunID   string
	Root    string
	To      int
	ToTime  string
	Undo    int      // the snapshot of the state before, written first; -1 in a dry run
	Restore []string // written back as they were at To
	Remove  []string // created since To: removed
	Kept    []string // committed during the run, left as they are (Uncommitted)
	// NotCaptured are files present now that no snapshot could hold (see
	// State.NotCaptured): left alone.
	NotCaptured []string
	// Skipped says why each of NotCaptured is not captured.
	Skipped []Skip
	// Left are paths the rollback would have changed but left as they are:
	// no snapshot holds their content now, so changing them could not be
	// undone (Force), or none held what they were then.
	Left []Skip
	// Outside are files changed since the target by someone other than
	// the agent (the user, another session), or changed by someone else
	// after the agent: left as they are.
	Outside []string
	// Modified is every file the run has modified since its start, as the
	// state before the rollback shows it.
	Modified []string
}

// Problem is a path a rollback cannot restore, and why.
type Problem struct {
	Path string `json:"path"`
	Why  string `json:"why"`
}

// RollbackError is a rollback that failed. Nothing was changed when
// Applied is empty; otherwise the paths it had changed were put back as
// they were before (Reverted), or could not all be (RevertErr).
type RollbackError struct {
	Plan      *Plan
	Problems  []Problem
	Applied   []string
	Reverted  bool
	RevertErr error
}

func (e *RollbackError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "rollback to snapshot %d failed: ", e.Plan.To)
	for i, p := range e.Problems {
		if i == 3 {
			fmt.Fprintf(&b, "; and %d more", len(e.Problems)-3)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(p.Path + ": " + p.Why)
	}
	switch {
	case len(e.Applied) == 0:
		b.WriteString("; nothing was changed")
	case e.Reverted:
		fmt.Fprintf(&b, "; the %d file(s) already changed were put back as they were (snapshot %d)", len(e.Applied), e.Plan.Undo)
	default:
		fmt.Fprintf(&b, "; putting back the %d file(s) already changed failed too (%v): snapshot %d holds them", len(e.Applied), e.RevertErr, e.Plan.Undo)
	}
	return b.String()
}

// openRun opens a run's folder for a rollback or its dry run: under the
// run's lock and its store's, its meta read and its root checked. release
// frees both locks.
func openRun(h store.Home, run string) (dir string, m *Meta, release func(), err error) {
	dir, err = h.CheckRunDir(run)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil, nil, ErrNoBaseline
	}
	if err != nil {
		return "", nil, nil, err
	}
	lk, err := store.Acquire(filepath.Join(dir, lockFile), LockWait)
	if err != nil {
		return "", nil, nil, err
	}
	if m, err = readMeta(dir); errors.Is(err, fs.ErrNotExist) {
		err = ErrNoBaseline
	}
	if err == nil {
		err = checkRoot(m)
	}
	var sl *store.Lock
	if err == nil {
		sl, err = m.lockStore(h)
	}
	if err != nil {
		lk.Unlock()
		return "", nil, nil, err
	}
	return dir, m, func() { unlock(sl); lk.Unlock() }, nil
}

// Rollback restores the run's files to their content at a snapshot:
// only the files that differ between that snapshot and now are touched
// (written back, or removed when created since), after a snapshot of now
// that undoes it (Plan.Undo). Every path is checked first; a path that
// cannot be restored fails the whole rollback with nothing changed.
func Rollback(h store.Home, req RollbackRequest) (*Plan, error) {
	dir, m, release, err := openRun(h, req.Run)
	if err != nil {
		return nil, err
	}
	defer release()
	ns, err := steps(dir)
	if err != nil {
		return nil, err
	}
	if len(ns) == 0 {
		return nil, ErrNoBaseline
	}
	to := req.To
	if to < 0 {
		to = ns[len(ns)-1]
	}
	target, err := readSnapshot(dir, to)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("run %s has no snapshot %d (it has %s)", m.RunID, to, stepList(ns))
	}
	if err != nil {
		return nil, err
	}
	g := m.repo(h, dir)
	plan := &Plan{RunID: m.RunID, Root: m.Root, To: to, ToTime: target.Timestamp, Undo: -1}
	var now string
	var skips []Skip
	if req.DryRun {
		if now, skips, err = dryCapture(g, dir, m, req.policy(h).MaxFileBytes); err != nil {
			return nil, err
		}
	} else {
		s, err := takeLocked(h, dir, req.Request)
		if err != nil {
			return nil, fmt.Errorf("snapshot the state before the rollback (it would undo it): %w", err)
		}
		now, plan.Undo, skips = s.State.Tree, s.Step, s.skips
	}
	for _, k := range skips {
		plan.NotCaptured = append(plan.NotCaptured, k.Path)
	}
	plan.Skipped = skips
	run, err := diffTrees(g, m.Baseline, now)
	if err != nil {
		return nil, err
	}
	plan.Modified = paths(run)
	cs, err := diffTrees(g, target.State.Tree, now)
	if err != nil {
		return nil, err
	}
	for i := range cs {
		cs[i].Tree = target.State.Tree
	}
	// A run of version 2 reverts only the changes its agent's calls made
	// (marks.go): with no mark since the target, none.
	ms, err := readMarks(dir)
	if err != nil {
		return nil, err
	}
	if m.Store != "" {
		segs := history(ms, target.State.Marks, target.State.Tree, skipPaths(target.State.Skipped), now, skipPaths(skips), m.Root)
		var left []Skip
		if cs, plan.Outside, left, err = attribute(g, segs, cs, target.State.Tree, now, skipPaths(target.State.Skipped), m.Root); err != nil {
			return nil, err
		}
		plan.Left = append(plan.Left, left...)
	}
	if req.Uncommitted {
		if cs, plan.Kept, err = uncommitted(m, cs); err != nil {
			return nil, err
		}
	}
	var notHeld []Problem
	var forced []Skip
	cs, forced, notHeld = held(cs, skips, req.Force)
	plan.Left = append(plan.Left, forced...)
	for _, c := range cs {
		if c.inA() {
			plan.Restore = append(plan.Restore, c.Path)
		} else {
			plan.Remove = append(plan.Remove, c.Path)
		}
	}
	if len(notHeld) > 0 {
		return plan, &RollbackError{Plan: plan, Problems: notHeld}
	}
	if req.DryRun {
		return plan, nil
	}
	if len(cs) == 0 {
		return plan, markRollback(h, g, dir, m, req, plan, now, skips, false)
	}
	if probs := preflight(m.Root, plan); len(probs) > 0 {
		return plan, &RollbackError{Plan: plan, Problems: probs}
	}
	applied, err := apply(g, dir, m.Root, target.State.Tree, cs, false)
	if err != nil {
		e := &RollbackError{Plan: plan, Problems: []Problem{problemOf(m.Root, err)}, Applied: applied}
		if len(applied) > 0 {
			back := undoOf(cs, applied, now)
			_, e.RevertErr = apply(g, dir, m.Root, now, back, true)
			e.Reverted = e.RevertErr == nil
		}
		return plan, e
	}
	return plan, markRollback(h, g, dir, m, req, plan, now, skips, true)
}

// markRollback marks the rollback's own change as a call's, so that its
// undo reverts it; a rollback that changed nothing is marked too, as the
// look at the tree it was (what others changed before it and after it are
// two changes, not one that may cancel out).
func markRollback(h store.Home, g git, dir string, m *Meta, req RollbackRequest, plan *Plan, now string, skips []Skip, changed bool) error {
	if m.Store == "" {
		return nil
	}
	call := fmt.Sprintf("rollback-%d", plan.Undo)
	after, afterSkips := now, skips
	var err error
	wall := time.Now().UnixNano()
	if changed {
		after, afterSkips, err = capture(g, m, nil, false, req.policy(h).MaxFileBytes)
	}
	if err == nil {
		err = appendMark(dir, m.Root, Mark{Kind: "pre", Call: call, Tree: now, At: req.Now.Unix(), Skipped: skipPaths(skips)})
	}
	if err == nil {
		wrote := slices.Concat(plan.Restore, plan.Remove)
		err = appendMark(dir, m.Root, Mark{Kind: "post", Call: call, Tree: after, At: req.Now.Unix(), Skipped: skipPaths(afterSkips), Paths: wrote, Exact: true, Wall: wall})
	}
	if err != nil {
		return fmt.Errorf("the rollback is done, but recording it for its undo failed (cully rollback --to %d still restores the state before): %w", plan.Undo, err)
	}
	return nil
}

// held splits the changes into those a rollback may make and those whose
// path holds content no snapshot has (skips: a file over the size cap, a
// secret, …): changing such a path could never be undone. Without force
// each is a problem; with it, the path is left as it is.
func held(cs []change, skips []Skip, force bool) ([]change, []Skip, []Problem) {
	if len(skips) == 0 {
		return cs, nil, nil
	}
	why := map[string]string{}
	for _, k := range skips {
		why[k.Path] = k.Why
	}
	var keep []change
	var left []Skip
	var probs []Problem
	for _, c := range cs {
		w, ok := why[c.Path]
		switch {
		case !ok:
			keep = append(keep, c)
		case force:
			left = append(left, Skip{Path: c.Path, Why: w + ": no snapshot holds it as it is now, so it was not changed"})
		default:
			probs = append(probs, Problem{Path: c.Path, Why: "no snapshot holds it as it is now (" + w + "), so changing it could not be undone: move it aside, or --force to roll back the rest and leave it"})
		}
	}
	return keep, left, probs
}

// dryCapture is the tree of the work tree now, from a copy of the index:
// a dry run writes no snapshot and leaves the run's index as it was.
func dryCapture(g git, dir string, m *Meta, maxFile int64) (string, []Skip, error) {
	idx := filepath.Join(dir, "index.dry")
	defer os.Remove(idx)
	orig := g.indexPath()
	if b, err := os.ReadFile(orig); err == nil {
		if err := store.WriteFileAtomic(idx, b); err != nil {
			return "", nil, err
		}
		// The copy keeps the index's time: git trusts an entry's stat
		// only when the file's time is older than the index's own, and a
		// fresh copy would vouch for a file rewritten just after the last
		// snapshot with the same size (a dry run then missed it under load).
		if fi, err := os.Stat(orig); err == nil {
			if err := os.Chtimes(idx, fi.ModTime(), fi.ModTime()); err != nil {
				return "", nil, err
			}
		}
	}
	return capture(g.withIndex(idx), m, nil, false, maxFile)
}

// uncommitted splits the changes into those to revert and the files the
// run committed (see RollbackRequest.Uncommitted).
func uncommitted(m *Meta, cs []change) ([]change, []string, error) {
	if !m.Git {
		return cs, nil, nil
	}
	user := git{root: m.Root}
	out, err := user.out(nil, "rev-parse", "-q", "--verify", "HEAD")
	head := strings.TrimSpace(string(out))
	if err != nil || head == "" || head == m.Head {
		return cs, nil, nil // nothing committed during the run
	}
	now, err := headFiles(user, head)
	if err != nil {
		return nil, nil, err
	}
	before := map[string]string{}
	if m.Head != "" {
		if before, err = headFiles(user, m.Head); err != nil {
			return nil, nil, err
		}
	}
	var keep []change
	var kept []string
	for _, c := range cs {
		cur := ""
		if c.inB() {
			cur = c.ModeB + " " + c.IDB
		}
		if now[c.Path] == cur && before[c.Path] != cur {
			kept = append(kept, c.Path)
			continue
		}
		keep = append(keep, c)
	}
	return keep, kept, nil
}

// headFiles maps each file of a commit to "mode id".
func headFiles(user git, commit string) (map[string]string, error) {
	out, err := user.out(nil, "ls-tree", "-r", "-z", "--full-tree", commit)
	if err != nil {
		return nil, err
	}
	files := map[string]string{}
	for _, f := range nulFields(out) {
		meta, path, ok := strings.Cut(f, "\t")
		if !ok {
			continue
		}
		w := strings.Fields(meta) // mode type id
		if len(w) == 3 {
			files[path] = w[0] + " " + w[2]
		}
	}
	return files, nil
}

func stepList(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return "steps " + strings.Join(s, ", ")
}

// WriteFailure records a failed rollback in the run's folder
// (rollback-failed.json), for status and for the user: the problems and
// every file the run has modified.
func WriteFailure(h store.Home, e *RollbackError, at time.Time) error {
	dir, err := h.CheckRunDir(e.Plan.RunID)
	if err != nil {
		return err
	}
	f := Failure{At: at.UTC(), To: e.Plan.To, Undo: e.Plan.Undo, Error: e.Error(), Problems: e.Problems, Modified: e.Plan.Modified}
	if f.Modified == nil {
		f.Modified = []string{}
	}
	return writeJSON(filepath.Join(dir, rollbackFailed), f)
}

// ClearFailure removes the record of a failed rollback once one succeeds.
func ClearFailure(h store.Home, runID string) {
	if dir, err := h.CheckRunDir(runID); err == nil {
		_ = os.Remove(filepath.Join(dir, rollbackFailed))
	}
}
