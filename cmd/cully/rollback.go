package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"cully/engine"
	"cully/runs"
	"cully/store"
)

type rollbackOpts struct {
	which
	to     int // -1: the run's last snapshot
	dryRun bool
	force  bool
	json   bool
}

// rollbackReport is `cully rollback --json`.
type rollbackReport struct {
	Schema      int      `json:"schema_version"`
	Session     string   `json:"session"`
	RunID       string   `json:"run_id"`
	Root        string   `json:"root"`
	DryRun      bool     `json:"dry_run"`
	ToStep      int      `json:"to_step"`
	ToTimestamp string   `json:"to_timestamp"`
	UndoStep    *int     `json:"undo_step"`
	Restored    []string `json:"restored"`
	Removed     []string `json:"removed"`
	Kept        []string `json:"kept"`
	NotCaptured []string `json:"not_captured"`
	// Skipped says why each not captured file is not (too large, a
	// secret, …); Left are the files --force left as they are.
	Skipped []runs.Skip `json:"skipped"`
	Left    []runs.Skip `json:"left"`
	// Outside are files changed since the snapshot by someone other than
	// the agent (the user, another session): left as they are.
	Outside  []string `json:"outside"`
	Modified []string `json:"modified"`
}

func (a *app) rollback(o rollbackOpts) error {
	acc := changes
	if o.dryRun { // it changes nothing: like status, it may show another folder's run, saying so
		acc = reads
	}
	h, st, p, err := a.runOf(o.which, acc)
	if err != nil {
		return err
	}
	if note := p.elsewhere(); note != "" && !o.json {
		fmt.Fprintf(termSafe{a.stdout}, "note: %s\n", note)
	}
	now, _ := a.now()
	r := st.Run
	plan, err := runs.Rollback(h, runs.RollbackRequest{
		Request: runs.Request{Session: st.Session, Run: r.ID, Task: r.Task, Reason: string(engine.SnapRollback), Calls: r.Calls, Now: now, Policy: a.policy(h)},
		To:      o.to, DryRun: o.dryRun, Force: o.force,
	})
	if err := a.afterRollback(h, st, plan, err, now, string(engine.SnapRollback)); err != nil {
		return err
	}
	rep := newRollbackReport(st.Session, plan, o.dryRun)
	if o.json {
		enc := json.NewEncoder(jsonSafe{a.stdout})
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	printRollback(termSafe{a.stdout}, rep)
	return nil
}

// afterRollback records what a rollback did (the snapshot it took first,
// for reason, and its outcome) and turns a failure into the error the user reads: every
// path the run modified, what stood in the way, and that the files are as
// they were.
func (a *app) afterRollback(h store.Home, st *engine.State, plan *runs.Plan, err error, now time.Time, reason string) error {
	r := st.Run
	if plan == nil {
		return runError(err, "cannot roll back run "+shortID(r.ID))
	}
	if plan.Undo >= 0 {
		a.recordSnapshot(h, st.Session, r.ID, reason, plan.Undo, &runs.Snapshot{File: runs.File{Files: plan.Modified}}, nil)
	}
	to := plan.To
	var re *runs.RollbackError
	if errors.As(err, &re) {
		var bad []string
		for _, p := range re.Problems {
			bad = append(bad, p.Path)
		}
		if werr := runs.WriteFailure(h, re, now); werr != nil {
			_ = h.LogError("rollback", fmt.Errorf("record the failed rollback: %w", werr), map[string]any{"session": st.Session, "run": r.ID})
		}
		_ = h.LogError("rollback", err, map[string]any{"session": st.Session, "run": r.ID, "modified": plan.Modified, "problems": re.Problems})
		if _, rerr := a.record(h, &engine.Event{Agent: "cully", Session: st.Session, Hook: "rollback", Kind: engine.KindRollback, Run: r.ID, Step: &to,
			Outcome: engine.OutcomeFailed, Note: err.Error(), Paths: firstPaths(bad), PathCount: len(bad)}); rerr != nil {
			_ = h.LogError("rollback", rerr, nil)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%v.\nThe run's modified files, as they are now", err)
		if plan.Undo >= 0 {
			fmt.Fprintf(&b, " (snapshot %d holds them)", plan.Undo)
		}
		fmt.Fprintf(&b, ", %d:", len(plan.Modified))
		for _, p := range plan.Modified {
			b.WriteString("\n  " + p)
		}
		fmt.Fprintf(&b, "\nFix what stands in the way and roll back again, or keep the files as they are (`cully status` shows this until a rollback succeeds or `cully resume`).")
		return &userError{code: codeRollback, msg: b.String(), err: err, paths: plan.Modified, problems: re.Problems}
	}
	if err != nil {
		return runError(err, "cannot roll back run "+shortID(r.ID))
	}
	if plan.Undo < 0 { // a dry run
		return nil
	}
	changed := append(append([]string{}, plan.Restore...), plan.Remove...)
	note := ""
	if plan.Undo >= 0 {
		note = fmt.Sprintf("undo: cully rollback --to %d", plan.Undo)
	}
	if _, rerr := a.record(h, &engine.Event{Agent: "cully", Session: st.Session, Hook: "rollback", Kind: engine.KindRollback, Run: r.ID, Step: &to,
		Outcome: engine.OutcomeOK, Note: note, Paths: firstPaths(changed), PathCount: len(changed)}); rerr != nil {
		_ = h.LogError("rollback", rerr, nil)
	}
	runs.ClearFailure(h, r.ID)
	return nil
}

func newRollbackReport(session string, p *runs.Plan, dry bool) rollbackReport {
	// Every list goes through the hook's path redaction: a token in a
	// file's name never reaches the terminal or a script's JSON.
	nz := func(s []string) []string {
		if s == nil {
			return []string{}
		}
		return runs.RedactPaths(s)
	}
	skips := func(ks []runs.Skip) []runs.Skip {
		out := []runs.Skip{}
		for _, k := range ks {
			out = append(out, runs.Skip{Path: runs.RedactPaths([]string{k.Path})[0], Why: k.Why})
		}
		return out
	}
	rep := rollbackReport{Schema: jsonSchema, Session: session, RunID: p.RunID, Root: p.Root, DryRun: dry, ToStep: p.To, ToTimestamp: p.ToTime,
		Restored: nz(p.Restore), Removed: nz(p.Remove), Kept: nz(p.Kept), NotCaptured: nz(p.NotCaptured), Skipped: skips(p.Skipped), Left: skips(p.Left), Outside: nz(p.Outside), Modified: nz(p.Modified)}
	if p.Undo >= 0 {
		undo := p.Undo
		rep.UndoStep = &undo
	}
	return rep
}

func printRollback(w io.Writer, r rollbackReport) {
	verb := "rolled back"
	if r.DryRun {
		verb = "would roll back"
	}
	n := len(r.Restored) + len(r.Removed)
	if n == 0 {
		fmt.Fprintf(w, "nothing to roll back: the files of run %s are as they were at snapshot %d (%s)\n", shortID(r.RunID), r.ToStep, r.ToTimestamp)
	} else {
		fmt.Fprintf(w, "%s run %s to snapshot %d (%s) in %s: %d restored, %d removed\n", verb, shortID(r.RunID), r.ToStep, r.ToTimestamp, r.Root, len(r.Restored), len(r.Removed))
		for _, p := range r.Restored {
			fmt.Fprintf(w, "  restored  %s\n", p)
		}
		for _, p := range r.Removed {
			fmt.Fprintf(w, "  removed   %s (created since)\n", p)
		}
	}
	for _, p := range r.Kept {
		fmt.Fprintf(w, "  kept      %s (committed during the run)\n", p)
	}
	for _, p := range r.Outside {
		fmt.Fprintf(w, "  left      %s (changed outside the agent's calls)\n", p)
	}
	for _, k := range r.Left {
		fmt.Fprintf(w, "  left      %s (%s)\n", k.Path, k.Why)
	}
	for _, k := range r.Skipped {
		if slices.ContainsFunc(r.Left, func(l runs.Skip) bool { return l.Path == k.Path }) {
			continue
		}
		fmt.Fprintf(w, "  untouched %s (%s)\n", k.Path, k.Why)
	}
	if r.UndoStep != nil && n > 0 {
		fmt.Fprintf(w, "every other file is as it was; undo with: cully rollback --to %d\n", *r.UndoStep)
	}
}
