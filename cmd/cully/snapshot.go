package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"cully/engine"
	"cully/runs"
	"cully/store"
)

// runOf is the session a command acts on (sessionFor: this folder's, or
// the one w names) and its current run.
func (a *app) runOf(w which, acc access) (store.Home, *engine.State, picked, error) {
	h, err := a.home()
	if err != nil {
		return h, nil, picked{}, err
	}
	p, err := a.sessionFor(h, w, acc)
	if err != nil {
		return h, nil, p, err
	}
	id := p.id
	st, err := h.ReadState(id, nil)
	if errors.Is(err, os.ErrNotExist) {
		return h, nil, p, unknownSession(h, id, nil)
	}
	if err != nil {
		return h, nil, p, fail(codeState, err, "cannot read session %s: %s (run `cully status --rebuild` to rebuild it from the journal)", shortID(id), plain(err))
	}
	if st.Run == nil {
		return h, nil, p, fail(codeNoRun, nil, "session %s has no run yet: a run starts at the agent's first prompt or tool call", shortID(id))
	}
	return h, st, p, nil
}

// runError puts a snapshot's or a rollback's failure in plain words.
func runError(err error, what string) error {
	switch {
	case errors.Is(err, runs.ErrNoBaseline), errors.Is(err, runs.ErrNoGit):
		return fail(codeSnapshot, err, "%s: %v", what, err)
	case errors.Is(err, store.ErrLockTimeout):
		return fail(codeLocked, err, "%s: another snapshot or rollback of this run held its lock for %v: try again", what, runs.LockWait)
	}
	return fail(codeSnapshot, err, "%s: %s", what, plain(err))
}

// recordSnapshot records a snapshot's outcome in the journal, where the
// hook's state (status, the agent's next nudge) picks it up.
func (a *app) recordSnapshot(h store.Home, session, run, reason string, step int, snap *runs.Snapshot, err error) {
	ev := &engine.Event{Agent: "cully", Session: session, Hook: "snapshot", Kind: engine.KindSnapshot, Run: run, Source: reason, Step: &step, Outcome: engine.OutcomeOK}
	if err != nil {
		ev.Outcome, ev.Note = engine.OutcomeFailed, err.Error()
	} else {
		ev.Paths, ev.PathCount = firstPaths(snap.Files), len(snap.Files)
	}
	// A state dir removed while the snapshot ran (a demo's or a test's
	// folder, a user's rm -rf) stays removed: recording the outcome would
	// make it again, with a journal of this one record.
	if _, lerr := os.Lstat(h.Dir); errors.Is(lerr, fs.ErrNotExist) {
		return
	}
	if _, rerr := a.record(h, ev); rerr != nil {
		_ = h.LogError("snapshot", fmt.Errorf("record the snapshot's outcome: %w", rerr), map[string]any{"session": session, "run": run})
	}
}

// policy bounds the snapshot store: the user's [snapshots] over the
// defaults sized to the state dir's disk.
func (a *app) policy(h store.Home) *runs.Policy {
	p := runs.PolicyFor(h.Dir, a.config().Snapshots)
	return &p
}

// firstPaths are the paths an event carries, redacted as the hook's
// targets are.
func firstPaths(ps []string) []string {
	if len(ps) > engine.MaxEventPaths {
		ps = ps[:engine.MaxEventPaths]
	}
	return runs.RedactPaths(ps)
}

type snapshotOpts struct {
	which
	wait    bool
	timeout time.Duration
	// The snapshot server the hook starts, and the single background
	// snapshot it starts where there is none (Windows).
	serve      bool
	background bool
	run        string
	task       int
	reason     string
	calls      int
	dir        string
	// The hook's marks around a call (--mark=pre|post).
	mark, call, destructive string
	paths                   []string
}

func (a *app) snapshot(o snapshotOpts) error {
	if o.serve {
		return a.snapshotServe()
	}
	if o.mark != "" {
		return a.snapshotMark(o)
	}
	if o.background {
		return a.snapshotBackground(o)
	}
	if o.wait {
		return a.snapshotWait(o)
	}
	h, st, _, err := a.runOf(o.which, changes)
	if err != nil {
		return err
	}
	now, _ := a.now()
	r := st.Run
	step := runs.NextStep(h, r.ID)
	snap, err := runs.Take(h, runs.Request{Session: st.Session, Run: r.ID, Task: r.Task, Reason: string(engine.SnapManual), Calls: r.Calls, Dir: st.Cwd, Now: now, Policy: a.policy(h)})
	if snap != nil {
		step = snap.Step
	}
	a.recordSnapshot(h, st.Session, r.ID, string(engine.SnapManual), step, snap, err)
	if err != nil {
		return runError(err, "cannot snapshot run "+shortID(r.ID))
	}
	fmt.Fprintf(termSafe{a.stdout}, "snapshot %d of run %s: %s modified since the run's start%s\n%s\n",
		snap.Step, shortID(r.ID), countFiles(len(snap.Files)), listed(snap.Files), snap.Path)
	return nil
}

// snapshotBackground is the snapshot the hook starts: it records its own
// outcome, and its errors go to errors.log (nobody reads its stderr).
func (a *app) snapshotBackground(o snapshotOpts) error {
	h, err := a.home()
	if err != nil {
		return err
	}
	now, _ := a.now()
	step := runs.NextStep(h, o.run)
	var snap *runs.Snapshot
	inBackground(func() {
		snap, err = runs.Take(h, runs.Request{Session: o.session, Run: o.run, Task: o.task, Reason: o.reason, Calls: o.calls, Dir: o.dir, Now: now, Policy: a.policy(h)})
	})
	if snap != nil {
		step = snap.Step
	}
	a.recordSnapshot(h, o.session, o.run, o.reason, step, snap, err)
	if err != nil {
		_ = h.LogError("snapshot", err, map[string]any{"session": o.session, "run": o.run, "reason": o.reason})
		return err
	}
	return nil
}

// snapshotMark is the hook's capture around a call that may change files
// (`cully snapshot --mark=pre|post`), which the hook waits for. A baseline
// it takes (the run's first change) and a snapshot before a destructive
// command are recorded as snapshots; its errors go to errors.log.
func (a *app) snapshotMark(o snapshotOpts) error {
	if o.mark != "pre" && o.mark != "post" {
		return fmt.Errorf("%w: --mark is pre or post, not %q", errUsage, o.mark)
	}
	h, err := a.home()
	if err != nil {
		return err
	}
	now, _ := a.now()
	var res *runs.MarkResult
	inBackground(func() {
		res, err = runs.TakeMark(h, runs.MarkRequest{Session: o.session, Run: o.run, Task: o.task, Kind: o.mark, Call: o.call, Calls: o.calls,
			Dir: o.dir, Now: now, Destructive: o.destructive, Paths: o.paths, Policy: a.policy(h)})
	})
	if err != nil {
		_ = h.LogError("snapshot", fmt.Errorf("mark (%s the call): %w", o.mark, err), map[string]any{"session": o.session, "run": o.run})
		if o.destructive != "" {
			a.recordSnapshot(h, o.session, o.run, string(engine.SnapDestructive), runs.NextStep(h, o.run), nil, fmt.Errorf("before %s: %w", o.destructive, err))
		}
		return err
	}
	if res.Baseline && res.Snapshot == nil {
		a.recordSnapshot(h, o.session, o.run, string(engine.SnapFirst), 0, &runs.Snapshot{}, nil)
	}
	if s := res.Snapshot; s != nil {
		a.recordSnapshot(h, o.session, o.run, string(engine.SnapDestructive), s.Step, s, nil)
	}
	return nil
}

// snapshotServe is `cully snapshot --serve`, the process the hook starts
// when it asks for a snapshot and no server is serving the state dir's
// queue: it takes that ask and the ones that follow, each one as
// --background takes its own, until nothing has been asked for
// CULLY_SNAPSHOT_LINGER (10 minutes by default; docs/run-control.md).
func (a *app) snapshotServe() error {
	h, err := a.home()
	if err != nil {
		return err
	}
	linger := runs.DefaultLinger
	if v := a.getenv("CULLY_SNAPSHOT_LINGER"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			_ = h.LogErrorHere("snapshot", fmt.Errorf("CULLY_SNAPSHOT_LINGER=%q is not a positive duration (like 10m): lingering %v", v, linger), nil)
		} else {
			linger = d
		}
	}
	err = runs.Serve(h, runs.ServeOptions{
		Linger: linger,
		Stale:  replaced(),
		Log:    func(err error) { _ = h.LogErrorHere("snapshot", err, nil) },
		Take: func(k store.SnapshotAsk) {
			_ = a.askedAt(k.At).snapshotBackground(snapshotOpts{which: which{session: k.Session}, run: k.Run, task: k.Task, reason: k.Reason, calls: k.Calls, dir: k.Dir})
		},
	})
	if err != nil {
		_ = h.LogErrorHere("snapshot", fmt.Errorf("serve the snapshot queue: %w", err), nil)
	}
	return err
}

// askedAt is the app that takes an ask. On the wall clock it is a itself;
// on a set clock (CULLY_NOW: tests, demos) the clock reads the ask's time,
// as the snapshot process a hook started read the hook's own CULLY_NOW:
// a server started by an earlier call would stamp every later snapshot
// with that call's time.
func (a *app) askedAt(at time.Time) *app {
	if a.getenv("CULLY_NOW") == "" || at.IsZero() {
		return a
	}
	b := *a
	b.getenv = func(k string) string {
		if k == "CULLY_NOW" {
			return at.UTC().Format(time.RFC3339Nano)
		}
		return a.getenv(k)
	}
	return &b
}

// replaced reports when the running binary's file has been replaced (an
// upgrade): a server that lingers on an old binary would take every
// snapshot of the day with it.
func replaced() func() bool {
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return nil
	}
	return func() bool {
		now, err := os.Stat(exe)
		return err != nil || !os.SameFile(fi, now) || !now.ModTime().Equal(fi.ModTime())
	}
}

// snapshotPoll is how often --wait looks at the session's state: a
// snapshot of a small repository takes tens of milliseconds.
const snapshotPoll = 20 * time.Millisecond

// snapshotWait waits until every snapshot the hook asked for has recorded
// its outcome, and fails when the last one failed.
func (a *app) snapshotWait(o snapshotOpts) error {
	deadline := time.Now().Add(o.timeout)
	noted := false
	for {
		h, st, p, err := a.runOf(o.which, reads)
		if err != nil {
			return err
		}
		if note := p.elsewhere(); note != "" && !noted {
			fmt.Fprintf(termSafe{a.stdout}, "note: %s\n", note)
			noted = true
		}
		o.session = p.id // the same session at every look
		r := st.Run
		if r.Pending() == 0 {
			if f := r.Failed; f != nil {
				return fail(codeSnapshot, nil, "snapshot %d of run %s failed: %s", f.Step, shortID(r.ID), f.Error)
			}
			last := "none written"
			if r.Snapshots > 0 {
				last = fmt.Sprintf("the last, step %d, at %s", r.LastStep, time.Unix(r.LastAt, 0).UTC().Format(time.RFC3339))
			}
			fmt.Fprintf(a.stdout, "run %s: no snapshot pending; %d written in this run, %s\n", shortID(r.ID), r.Snapshots, last)
			return nil
		}
		if time.Now().After(deadline) {
			return fail(codeSnapshot, nil, "run %s: %d snapshot(s) asked for have not finished after %v (a background snapshot that died says why in %s)",
				shortID(r.ID), r.Pending(), o.timeout, h.ErrorsLog())
		}
		time.Sleep(snapshotPoll)
	}
}

type snapshotsOpts struct {
	which
	json bool
}

// snapshotList is `cully snapshots --json`.
type snapshotList struct {
	Schema  int    `json:"schema_version"`
	Session string `json:"session"`
	// Where the session works, and whether that holds the folder the
	// command ran in (false: no session works there, this is the latest).
	ProjectRoot *string         `json:"project_root"`
	ThisFolder  bool            `json:"this_folder"`
	RunID       string          `json:"run_id"`
	Dir         string          `json:"dir"`
	Snapshots   []snapshotEntry `json:"snapshots"`
	// Store is the repository's snapshot store: its size, cap, runs, and
	// why snapshots pause when they do (null before a baseline).
	Store *storeReport `json:"store"`
}

type snapshotEntry struct {
	Step        int       `json:"step"`
	Timestamp   time.Time `json:"timestamp"`
	Reason      string    `json:"reason"`
	ToolCalls   int       `json:"tool_calls"`
	Files       []string  `json:"files_modified"`
	NotCaptured []string  `json:"not_captured"`
	File        string    `json:"file"`
}

func (a *app) snapshots(o snapshotsOpts) error {
	h, st, p, err := a.runOf(o.which, reads)
	if err != nil {
		return err
	}
	r := st.Run
	ss, err := runs.List(h, r.ID)
	if err != nil {
		return fail(codeSnapshot, err, "cannot read the snapshots of run %s: %s", shortID(r.ID), plain(err))
	}
	out := snapshotList{Schema: jsonSchema, Session: st.Session, ProjectRoot: p.ref().Root, ThisFolder: p.mine, RunID: r.ID, Dir: h.RunDir(r.ID), Snapshots: []snapshotEntry{}}
	if si, err := runs.StoreOf(h, r.ID); err == nil && si != nil {
		rep := newStoreReport(h, *a.policy(h), *si)
		out.Store = &rep
	}
	for _, s := range ss {
		e := snapshotEntry{Step: s.Step, Timestamp: s.Time(), Reason: s.State.Reason, ToolCalls: s.State.ToolCalls, Files: s.Files, NotCaptured: s.State.NotCaptured, File: s.Path}
		if e.NotCaptured == nil {
			e.NotCaptured = []string{}
		}
		out.Snapshots = append(out.Snapshots, e)
	}
	if o.json {
		enc := json.NewEncoder(jsonSafe{a.stdout})
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	w := termSafe{a.stdout}
	if note := p.elsewhere(); note != "" {
		fmt.Fprintf(w, "note: %s\n", note)
	}
	fmt.Fprintf(w, "run %s (session %s, task %d): %d snapshot(s) in %s\n", r.ID, shortID(st.Session), r.Task, len(ss), out.Dir)
	if len(ss) == 0 {
		fmt.Fprintln(w, "none written yet")
		return nil
	}
	fmt.Fprintf(w, "%5s  %-20s  %-8s  %5s  %s\n", "step", "time", "reason", "calls", "files modified since the run's start")
	for _, e := range out.Snapshots {
		fmt.Fprintf(w, "%5d  %-20s  %-8s  %5d  %d%s\n", e.Step, e.Timestamp.UTC().Format(time.RFC3339), e.Reason, e.ToolCalls, len(e.Files), listed(e.Files))
	}
	fmt.Fprintln(w, "roll back with: cully rollback --to STEP (--dry-run first shows what it changes)")
	if out.Store != nil {
		fmt.Fprintf(w, "store: %s; cully snapshots prune removes old runs\n", storeLine(*out.Store))
	}
	return nil
}

func countFiles(n int) string {
	if n == 1 {
		return "1 file"
	}
	return fmt.Sprintf("%d files", n)
}

// listed names up to five files after a count: ": a.go, b.go and 3 more".
func listed(files []string) string {
	const most = 5
	if len(files) == 0 {
		return ""
	}
	shown := files
	if len(shown) > most {
		shown = shown[:most]
	}
	s := ": " + strings.Join(shown, ", ")
	if len(files) > most {
		s += fmt.Sprintf(" and %d more", len(files)-most)
	}
	return s
}
