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

// runReport is the run in `cully status --json` (docs/json.md).
type runReport struct {
	ID             string          `json:"id"`
	Task           int             `json:"task"`
	Started        time.Time       `json:"started"`
	State          string          `json:"state"` // running, paused, halted, rollback failed
	ToolCalls      int             `json:"tool_calls"`
	Edits          int             `json:"edits"`
	Dir            string          `json:"dir"`
	Snapshots      snapshotsReport `json:"snapshots"`
	Checks         []checkReport   `json:"checks"`
	Remaining      []string        `json:"remaining"`
	Paused         *noteReport     `json:"paused"`
	Resumed        *noteReport     `json:"resumed"`
	RollbackFailed *rollbackFailed `json:"rollback_failed"`
	Halted         *noteReport     `json:"halted"` // enforce mode: every tool call refused until a resume
	Budget         runBudgetReport `json:"budget"`
}

// runBudgetReport is the run's budgets (docs/run-control.md, "Budgets").
type runBudgetReport struct {
	Class   engine.TaskClass  `json:"class"`
	Limits  []limitReport     `json:"limits"`
	Alerts  []alertReport     `json:"alerts"`
	Doubled []engine.Resource `json:"doubled"` // by the last resume
}

type limitReport struct {
	Resource engine.Resource `json:"resource"`
	Used     *float64        `json:"used"` // null: the host gives no figure
	Known    bool            `json:"known"`
	Limit    *float64        `json:"limit"` // null: no budget
	Default  *float64        `json:"recommended"`
}

type alertReport struct {
	Kind string    `json:"kind"`
	Key  string    `json:"key"`
	At   time.Time `json:"at"`
	Text string    `json:"text"`
	Told bool      `json:"told"`
}

func optFloat(v float64, ok bool) *float64 {
	if !ok {
		return nil
	}
	return &v
}

func buildBudget(st *engine.State, now time.Time, cfg *engine.Config) runBudgetReport {
	r := st.Run
	b := runBudgetReport{Class: r.Class(cfg), Limits: []limitReport{}, Alerts: []alertReport{}, Doubled: []engine.Resource{}}
	for _, f := range st.Figures(now, cfg) {
		b.Limits = append(b.Limits, limitReport{Resource: f.Res, Used: optFloat(f.Used, f.Known), Known: f.Known,
			Limit: optFloat(f.Limit, f.Limit > 0), Default: optFloat(f.Default, f.Default > 0)})
	}
	for _, a := range r.Budget.Alerts {
		b.Alerts = append(b.Alerts, alertReport{Kind: a.Kind, Key: a.Key, At: unixTime(a.At), Text: a.Text, Told: a.Told})
	}
	if r.Resumed != nil {
		b.Doubled = append(b.Doubled, r.Resumed.Doubled...)
	}
	return b
}

// printBudget is the run's budget lines: one per resource, then each
// alert.
func printBudget(w io.Writer, b runBudgetReport) {
	// With no budget, usage is shown plainly; with one, each resource as
	// used / limit ("no budget" for the ones without).
	var parts []string
	set := false
	for _, l := range b.Limits {
		set = set || l.Limit != nil
	}
	for _, l := range b.Limits {
		name := strings.ReplaceAll(string(l.Resource), "_", " ")
		used := "unknown"
		if l.Used != nil {
			used = budgetNum(l.Resource, *l.Used)
		}
		switch {
		case l.Limit != nil:
			used += " / " + budgetNum(l.Resource, *l.Limit)
		case set:
			used += " / no budget"
		}
		parts = append(parts, name+" "+used)
	}
	if set {
		fmt.Fprintf(w, "limits   %s\n", strings.Join(parts, " · "))
	} else {
		fmt.Fprintf(w, "usage    %s (no budget: [budget] in your config sets one)\n", strings.Join(parts, " · "))
	}
	for _, a := range b.Alerts {
		text := a.Text
		if text == "" {
			continue // a warning the exceeded alert said more than
		}
		told := "shown"
		if a.Told {
			told = "told"
		}
		fmt.Fprintf(w, "  %s %s at %s (%s)\n", a.Kind, strings.TrimPrefix(strings.TrimPrefix(text, "cully "), a.Kind+": "), a.At.Format(time.RFC3339), told)
	}
}

func budgetNum(r engine.Resource, v float64) string {
	switch r {
	case engine.ResWallClock:
		return fmt.Sprintf("%ds", int64(v))
	case engine.ResCost:
		return engine.USD(v)
	}
	return fmt.Sprintf("%d", int64(v))
}

type snapshotsReport struct {
	Count         int            `json:"count"`
	LastStep      *int           `json:"last_step"`
	LastAt        *time.Time     `json:"last_at"`
	FilesModified *int           `json:"files_modified"` // at the last snapshot, since the run's start
	Pending       int            `json:"pending"`
	Failed        *failureReport `json:"failed"`
	// Recoverable is the snapshot before the run's last destructive
	// command: `cully rollback --to` it brings back what it threw away.
	Recoverable *recoverableReport `json:"recoverable"`
}

type recoverableReport struct {
	Step int       `json:"step"`
	At   time.Time `json:"at"`
}

type checkReport struct {
	Cmd     string         `json:"cmd"`
	Outcome engine.Outcome `json:"outcome"`
	Runs    int            `json:"runs"`
	LastRun time.Time      `json:"last_run"`
}

type noteReport struct {
	At   time.Time `json:"at"`
	Note string    `json:"note"`
	// A halt's: what halted the run ("cully stop", "enforce mode: a
	// budget") and the command that lets it go on.
	By     string `json:"by,omitempty"`
	Resume string `json:"resume,omitempty"`
}

type failureReport struct {
	Step  int       `json:"step"`
	At    time.Time `json:"at"`
	Error string    `json:"error"`
}

type rollbackFailed struct {
	failureReport
	Problems []runs.Problem `json:"problems"` // null when the run's record of it is gone
	Modified []string       `json:"modified"`
}

func unixTime(s int64) time.Time { return time.Unix(s, 0).UTC() }

// buildRunReport is the session's run, or nil before it has one.
func buildRunReport(h store.Home, st *engine.State, now time.Time, cfg *engine.Config) *runReport {
	r := st.Run
	if r == nil {
		return nil
	}
	rep := &runReport{ID: r.ID, Task: r.Task, Started: r.Started.UTC(), State: "running", ToolCalls: r.Calls, Edits: r.Edits, Dir: h.RunDir(r.ID),
		Snapshots: snapshotsReport{Count: r.Snapshots, Pending: r.Pending()}, Checks: []checkReport{}, Remaining: st.Remaining()}
	if rep.Remaining == nil {
		rep.Remaining = []string{}
	}
	rep.Budget = buildBudget(st, now, cfg)
	if r.Snapshots > 0 {
		step, at, files := r.LastStep, unixTime(r.LastAt), r.LastFiles
		rep.Snapshots.LastStep, rep.Snapshots.LastAt, rep.Snapshots.FilesModified = &step, &at, &files
	}
	if f := r.Failed; f != nil {
		rep.Snapshots.Failed = &failureReport{Step: f.Step, At: unixTime(f.At), Error: f.Error}
	}
	if rc := r.Recoverable; rc != nil {
		rep.Snapshots.Recoverable = &recoverableReport{Step: rc.Step, At: unixTime(rc.At)}
	}
	for _, c := range r.Checks {
		rep.Checks = append(rep.Checks, checkReport{Cmd: c.Cmd, Outcome: c.Outcome, Runs: c.Runs, LastRun: unixTime(c.At)})
	}
	if p := r.Paused; p != nil {
		rep.Paused, rep.State = &noteReport{At: unixTime(p.At), Note: p.Note}, "paused"
	}
	if p := r.Resumed; p != nil {
		rep.Resumed = &noteReport{At: unixTime(p.At), Note: p.Note}
	}
	if p := r.Halted; p != nil {
		rep.Halted, rep.State = &noteReport{At: unixTime(p.At), Note: p.Note, By: engine.HaltCause(p), Resume: engine.ResumeCommand(p)}, "halted"
		if p.By == engine.HaltStop {
			rep.State = "stopped"
		}
	}
	if f := r.RollbackFailed; f != nil {
		rf := &rollbackFailed{failureReport: failureReport{Step: f.Step, At: unixTime(f.At), Error: f.Error}}
		if rec, err := runs.ReadFailure(h, r.ID); err == nil && rec != nil {
			rf.Problems, rf.Modified = rec.Problems, rec.Modified
		}
		rep.RollbackFailed, rep.State = rf, "rollback failed"
	}
	return rep
}

func printRun(w io.Writer, r *runReport, now time.Time) {
	if r == nil {
		fmt.Fprintln(w, "run      none yet (a run starts at the agent's first prompt or tool call)")
		return
	}
	state := ""
	switch {
	case r.RollbackFailed != nil:
		state = " · ROLLBACK FAILED"
	case r.Halted != nil:
		word := "HALTED"
		if r.State == "stopped" {
			word = "STOPPED"
		}
		state = fmt.Sprintf(" · %s since %s (%s: every tool call refused; `%s` goes on)", word, r.Halted.At.Format(time.RFC3339), r.Halted.By, r.Halted.Resume)
	case r.Paused != nil:
		state = fmt.Sprintf(" · PAUSED since %s (cully stop --soft: the agent is told, nothing refused; `cully resume` goes on)", r.Paused.At.Format(time.RFC3339))
	}
	fmt.Fprintf(w, "run      %s (task %d) · %d calls · %d edits%s\n", shortID(r.ID), r.Task, r.ToolCalls, r.Edits, state)
	s := r.Snapshots
	line := fmt.Sprintf("snapshots %d", s.Count)
	if s.LastStep != nil {
		line += fmt.Sprintf(" · last step %d at %s (%s) · %s modified since the run's start", *s.LastStep, s.LastAt.Format(time.RFC3339), since(now, *s.LastAt), countFiles(*s.FilesModified))
	}
	if s.Pending > 0 {
		line += fmt.Sprintf(" · %d pending", s.Pending)
	}
	fmt.Fprintln(w, line)
	if rc := s.Recoverable; rc != nil {
		fmt.Fprintf(w, "  recoverable: `cully rollback --to %d` brings back what the destructive command at %s threw away\n", rc.Step, rc.At.Format(time.RFC3339))
	}
	if f := s.Failed; f != nil {
		fmt.Fprintf(w, "  ! snapshot %d FAILED at %s: %s (what changes now cannot be rolled back until one succeeds)\n", f.Step, f.At.Format(time.RFC3339), f.Error)
	}
	if f := r.RollbackFailed; f != nil {
		fmt.Fprintf(w, "  ! rollback to snapshot %d FAILED at %s: %s\n", f.Step, f.At.Format(time.RFC3339), f.Error)
		if len(f.Modified) > 0 {
			fmt.Fprintf(w, "    the run's modified files: %s%s\n", countFiles(len(f.Modified)), listed(f.Modified))
		}
	}
	if r.Resumed != nil && r.Paused == nil {
		fmt.Fprintf(w, "  resumed at %s: %s\n", r.Resumed.At.Format(time.RFC3339), r.Resumed.Note)
	}
	printBudget(w, r.Budget)
}
