package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"cully/engine"
	"cully/runs"
	"cully/store"
)

type stopOpts struct {
	which
	revert bool
	force  bool
	soft   bool
}

// stop is seed 001's graceful shutdown. The agent's current tool call
// finishes by itself (cully cannot interrupt it); the run is halted first,
// so the host refuses the agent's very next call (and ends its loop where
// it can) while the rest is done — with --soft only paused: the agent is
// told at each call, never refused;
// then the final snapshot, the summary of progress and of what is left,
// and with --revert the run's uncommitted changes undone (to its start).
func (a *app) stop(o stopOpts) error {
	h, st, _, err := a.runOf(o.which, changes)
	if err != nil {
		return err
	}
	now, _ := a.now()
	r := st.Run
	note := "cully stop"
	if o.soft {
		note = "cully stop --soft"
	}
	if err := a.pauseRun(h, st, o.soft, note); err != nil {
		return err
	}
	var (
		final   *runs.Snapshot
		plan    *runs.Plan
		failure error
	)
	if o.revert {
		req := runs.Request{Session: st.Session, Run: r.ID, Task: r.Task, Reason: string(engine.SnapStop), Calls: r.Calls, Dir: st.Cwd, Now: now, Policy: a.policy(h)}
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
		final, failure = a.finalSnapshot(h, st, now)
	}
	if now2, err := h.ReadState(st.Session, nil); err == nil && now2.Run != nil {
		st = now2
	}
	printStop(termSafe{a.stdout}, st, final, plan, o.revert && failure == nil)
	return failure
}

// pauseRun records a stop of st's run, what `cully stop` and the panel's
// p do first: halted, the host refuses the agent's very next call; soft,
// the agent is told at each call and nothing is refused. note says who
// stopped it.
func (a *app) pauseRun(h store.Home, st *engine.State, soft bool, note string) error {
	how := engine.PauseHalt
	if soft {
		how = engine.PauseSoft
	}
	if _, err := a.record(h, &engine.Event{Agent: "cully", Session: st.Session, Hook: "stop", Kind: engine.KindPause, Source: how, Run: st.Run.ID, Note: note}); err != nil {
		return fail(errorCode(err), err, "cannot pause run %s: %s", shortID(st.Run.ID), plain(err))
	}
	return nil
}

// finalSnapshot is a stop's final snapshot, its outcome recorded.
func (a *app) finalSnapshot(h store.Home, st *engine.State, now time.Time) (*runs.Snapshot, error) {
	r := st.Run
	req := runs.Request{Session: st.Session, Run: r.ID, Task: r.Task, Reason: string(engine.SnapStop), Calls: r.Calls, Dir: st.Cwd, Now: now, Policy: a.policy(h)}
	step := runs.NextStep(h, r.ID)
	snap, err := runs.Take(h, req)
	if snap != nil {
		step = snap.Step
	}
	a.recordSnapshot(h, st.Session, r.ID, string(engine.SnapStop), step, snap, err)
	if err != nil {
		return snap, runError(err, "the final snapshot failed")
	}
	return snap, nil
}

// printStop is the summary: what the run did, what is left as cully knows
// it, what was reverted, and how to go on.
func printStop(w io.Writer, st *engine.State, final *runs.Snapshot, plan *runs.Plan, reverted bool) {
	r := st.Run
	if r.Halted != nil {
		fmt.Fprintf(w, "cully stop: run %s (session %s, task %d) is stopped\n", r.ID, shortID(st.Session), r.Task)
	} else {
		fmt.Fprintf(w, "cully stop: run %s (session %s, task %d) is paused\n", r.ID, shortID(st.Session), r.Task)
	}
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
	if r.Halted != nil {
		fmt.Fprintln(w, "the agent's next tool call is refused, and its host ends the turn where it can; to go on: cully resume")
		return
	}
	fmt.Fprintln(w, "the agent is told at each tool call that the run is paused (--soft: nothing is refused); to go on: cully resume")
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
	raise  bool
}

// resume ends a stop, a pause or a halt (and a failed rollback's
// escalation). --raise doubles every budget the run has reached (seed
// 001's answer to a false positive: legitimate, repetitive work, resumed
// at 2× with a note of why); a run halted at its budget needs it, as
// without it the next call would be past the budget again. The note
// (--reason, recorded in the journal) is what overrides cully: it is
// required but for lifting the user's own stop.
func (a *app) resume(o resumeOpts) error {
	reason := strings.TrimSpace(o.reason)
	h, st, _, err := a.runOf(o.which, changes)
	if err != nil {
		return err
	}
	r := st.Run
	exceeded, err := a.resumeRun(h, st, o.raise, reason, func(no resumeRefusal, exceeded []string) error {
		switch no {
		case refuseNotStopped:
			return fail(codeNotPaused, nil, "run %s of session %s is not stopped (`cully stop` stops it)", shortID(r.ID), shortID(st.Session))
		case refuseRaiseNoReason:
			return fmt.Errorf("%w: cully resume --raise needs --reason TEXT: why the run may use more (it is recorded)", errUsage)
		case refuseHaltNoReason:
			return fmt.Errorf("%w: cully halted this run (%s); cully resume needs --reason TEXT: why it may go on (it is recorded)", errUsage, engine.HaltCause(r.Halted))
		}
		return fmt.Errorf("%w: run %s stopped at its budget (%s): `cully resume --raise --reason TEXT` doubles it and lets the run go on", errUsage, shortID(r.ID), strings.Join(exceeded, ", "))
	})
	if err != nil {
		return err
	}
	out := termSafe{a.stdout}
	if reason != "" {
		fmt.Fprintf(out, "resumed run %s (session %s); recorded: %q\n", shortID(r.ID), shortID(st.Session), reason)
	} else {
		fmt.Fprintf(out, "resumed run %s (session %s)\n", shortID(r.ID), shortID(st.Session))
	}
	switch {
	case o.raise && len(exceeded) > 0:
		fmt.Fprintf(out, "doubled: %s (the budgets the run had reached)\n", strings.Join(exceeded, ", "))
	case o.raise:
		fmt.Fprintln(out, "no budget was reached, so none was raised")
	case len(exceeded) > 0:
		fmt.Fprintf(out, "still past its budget: %s (`cully resume --raise` doubles it)\n", strings.Join(exceeded, ", "))
	}
	fmt.Fprintln(out, "the agent's calls run again")
	return nil
}

// resumeRefusal is why a resume is refused, nothing recorded.
type resumeRefusal int

const (
	refuseNotStopped    resumeRefusal = iota + 1 // nothing to resume
	refuseRaiseNoReason                          // a raise needs its reason
	refuseHaltNoReason                           // cully halted it (not the user): going on needs a reason
	refuseBudgetNoRaise                          // halted at its budget, still past it: only a raise lets it go on
)

// resumeRun checks and records a resume of st's run, what `cully resume`
// and the panel's r and + do; refused, it records nothing and returns
// what refused says in the caller's words. It returns the budgets the run
// has reached (a raise doubles them).
func (a *app) resumeRun(h store.Home, st *engine.State, raise bool, reason string, refused func(resumeRefusal, []string) error) ([]string, error) {
	r := st.Run
	now, _ := a.now()
	cfg := a.config()
	exceeded := exceededBudgets(st, now, &cfg)
	byUser := r.Halted == nil || r.Halted.By == engine.HaltStop
	switch {
	case r.Paused == nil && r.Halted == nil && r.RollbackFailed == nil && len(exceeded) == 0:
		return exceeded, refused(refuseNotStopped, exceeded)
	case raise && reason == "":
		return exceeded, refused(refuseRaiseNoReason, exceeded)
	case !byUser && reason == "":
		return exceeded, refused(refuseHaltNoReason, exceeded)
	case !raise && r.Halted != nil && r.Halted.By == engine.HaltBudget && len(exceeded) > 0:
		return exceeded, refused(refuseBudgetNoRaise, exceeded)
	}
	how := engine.ResumeKeep
	if raise {
		how = engine.ResumeRaise
	}
	if _, err := a.record(h, &engine.Event{Agent: "cully", Session: st.Session, Hook: "resume", Kind: engine.KindResume, Source: how, Run: r.ID, Note: reason}); err != nil {
		return exceeded, fail(errorCode(err), err, "cannot resume run %s: %s", shortID(r.ID), plain(err))
	}
	return exceeded, nil
}

// exceededBudgets names the budgets a resume with --raise doubles as of
// now (the reducer decides the same from the resume event).
func exceededBudgets(st *engine.State, now time.Time, cfg *engine.Config) []string {
	var out []string
	for _, r := range st.Raisable(now, cfg) {
		out = append(out, strings.ReplaceAll(string(r), "_", " "))
	}
	return out
}
