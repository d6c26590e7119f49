package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"cully/engine"
	"cully/runs"
)

type stopOpts struct {
	which
	revert bool
	force  bool
}

// stop is seed 001's graceful shutdown. The agent's current tool call
// finishes by itself (cully cannot interrupt it); the run is paused first,
// so the agent hears it at its very next call while the rest is done;
// then the final snapshot, the summary of progress and of what is left,
// and with --revert the run's uncommitted changes undone (to its start).
func (a *app) stop(o stopOpts) error {
	h, st, _, err := a.runOf(o.which, changes)
	if err != nil {
		return err
	}
	now, _ := a.now()
	r := st.Run
	if _, err := a.record(h, &engine.Event{Agent: "cully", Session: st.Session, Hook: "stop", Kind: engine.KindPause, Run: r.ID, Note: "cully stop"}); err != nil {
		return fail(errorCode(err), err, "cannot pause run %s: %s", shortID(r.ID), plain(err))
	}
	req := runs.Request{Session: st.Session, Run: r.ID, Task: r.Task, Reason: string(engine.SnapStop), Calls: r.Calls, Dir: st.Cwd, Now: now, Policy: a.policy(h)}
	var (
		final   *runs.Snapshot
		plan    *runs.Plan
		failure error
	)
	if o.revert {
		// The rollback's own first snapshot is the final one.
		var rerr error
		plan, rerr = runs.Rollback(h, runs.RollbackRequest{Request: req, To: 0, Uncommitted: true, Force: o.force})
		if plan != nil && plan.Undo >= 0 {
			final = &runs.Snapshot{File: runs.File{RunID: r.ID, Step: plan.Undo, Timestamp: now.UTC().Format(time.RFC3339), Files: plan.Modified}}
		}
		if plan != nil {
			rerr = a.afterRollback(h, st, plan, rerr, now, string(engine.SnapStop))
		} else {
			a.recordSnapshot(h, st.Session, r.ID, string(engine.SnapStop), runs.NextStep(h, r.ID), nil, rerr)
			rerr = runError(rerr, "the final snapshot failed")
		}
		failure = rerr
	} else {
		step := runs.NextStep(h, r.ID)
		snap, serr := runs.Take(h, req)
		if snap != nil {
			step = snap.Step
		}
		a.recordSnapshot(h, st.Session, r.ID, string(engine.SnapStop), step, snap, serr)
		final = snap
		if serr != nil {
			failure = runError(serr, "the final snapshot failed")
		}
	}
	if now2, err := h.ReadState(st.Session, nil); err == nil && now2.Run != nil {
		st = now2
	}
	printStop(termSafe{a.stdout}, st, final, plan, o.revert && failure == nil)
	return failure
}

// printStop is the summary: what the run did, what is left as cully knows
// it, what was reverted, and how to go on.
func printStop(w io.Writer, st *engine.State, final *runs.Snapshot, plan *runs.Plan, reverted bool) {
	r := st.Run
	fmt.Fprintf(w, "cully stop: run %s (session %s, task %d) is paused\n", r.ID, shortID(st.Session), r.Task)
	if final != nil {
		fmt.Fprintf(w, "final snapshot: step %d, %s\n", final.Step, final.Timestamp)
	} else {
		fmt.Fprintln(w, "final snapshot: none (see the error below)")
	}
	files := "files modified since the run's start: unknown (no snapshot)"
	if final != nil {
		files = countFiles(len(final.Files)) + " modified since the run's start" + listed(final.Files)
	}
	fmt.Fprintf(w, "progress: %d tool calls, %d edits; %s\n", r.Calls, r.Edits, files)
	if len(r.Checks) == 0 {
		fmt.Fprintln(w, "checks: none run")
	} else {
		var cs []string
		for _, c := range r.Checks {
			runs := "1 run"
			if c.Runs != 1 {
				runs = fmt.Sprintf("%d runs", c.Runs)
			}
			cs = append(cs, fmt.Sprintf("`%s` %s (%s)", c.Cmd, outcomeWord(c.Outcome), runs))
		}
		fmt.Fprintf(w, "checks, last outcome: %s\n", strings.Join(cs, "; "))
	}
	if left := st.Remaining(); len(left) == 0 {
		fmt.Fprintln(w, "remaining, as cully knows it: nothing open (cully does not know the task's own goal)")
	} else {
		fmt.Fprintln(w, "remaining, as cully knows it:")
		for _, l := range left {
			fmt.Fprintf(w, "  - %s\n", l)
		}
	}
	if plan != nil && reverted {
		switch n := len(plan.Restore) + len(plan.Remove); {
		case n == 0 && len(plan.Kept) == 0:
			fmt.Fprintln(w, "reverted: nothing, the files were as they were at the run's start")
		default:
			fmt.Fprintf(w, "reverted to the run's start (snapshot 0): %d restored, %d removed", len(plan.Restore), len(plan.Remove))
			if len(plan.Kept) > 0 {
				fmt.Fprintf(w, "; kept, committed during the run: %s", strings.Join(plan.Kept, ", "))
			}
			fmt.Fprintf(w, "; undo with: cully rollback --to %d\n", plan.Undo)
		}
	}
	fmt.Fprintln(w, "the agent is told at its next tool call that the run is paused; to go on: cully resume --reason \"why\"")
}

func outcomeWord(o engine.Outcome) string {
	switch o {
	case engine.OutcomeOK:
		return "passed"
	case engine.OutcomeFailed:
		return "failed"
	}
	return "unknown"
}

type resumeOpts struct {
	which
	reason string
}

// resume ends a pause (and a failed rollback's escalation) with the user's
// note, which the journal keeps, and doubles every budget the run has
// exceeded (seed 001's answer to a false positive). A run that exceeded a
// budget may be resumed without a pause: the doubling is what it asks for.
func (a *app) resume(o resumeOpts) error {
	reason := strings.TrimSpace(o.reason)
	if reason == "" {
		return fmt.Errorf("%w: cully resume needs --reason TEXT: why the run may go on (it is recorded)", errUsage)
	}
	h, st, _, err := a.runOf(o.which, changes)
	if err != nil {
		return err
	}
	r := st.Run
	now, _ := a.now()
	cfg := a.config()
	exceeded := exceededBudgets(st, now, &cfg)
	if r.Paused == nil && r.RollbackFailed == nil && len(exceeded) == 0 {
		return fail(codeNotPaused, nil, "run %s of session %s is not paused (`cully stop` pauses it)", shortID(r.ID), shortID(st.Session))
	}
	if _, err := a.record(h, &engine.Event{Agent: "cully", Session: st.Session, Hook: "resume", Kind: engine.KindResume, Run: r.ID, Note: reason}); err != nil {
		return fail(errorCode(err), err, "cannot resume run %s: %s", shortID(r.ID), plain(err))
	}
	fmt.Fprintf(termSafe{a.stdout}, "resumed run %s (session %s); recorded: %q\n", shortID(r.ID), shortID(st.Session), reason)
	if len(exceeded) == 0 {
		fmt.Fprintln(a.stdout, "the agent is no longer told the run is paused; no budget was exceeded, so none was doubled")
		return nil
	}
	fmt.Fprintf(a.stdout, "doubled: %s (the budgets the run had exceeded)\n", strings.Join(exceeded, ", "))
	return nil
}

// exceededBudgets names the budgets the run has used up as of now: those a
// resume doubles (the reducer decides the same from the resume event).
func exceededBudgets(st *engine.State, now time.Time, cfg *engine.Config) []string {
	var out []string
	for _, f := range st.Figures(now, cfg) {
		if f.Known && f.Limit > 0 && f.Used >= f.Limit {
			out = append(out, strings.ReplaceAll(string(f.Res), "_", " "))
		}
	}
	return out
}
