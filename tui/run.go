package tui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"cully/engine"
)

// Run control in the panel: the run's section and its details. What the
// run is and what is left of it come from the reducer (State.Run,
// State.Remaining); the panel only says it.

// resumeHint is how a paused run goes on (docs/run-control.md).
const resumeHint = "cully resume --reason TEXT"

// snapshotsOff: the run asked for no snapshot (CULLY_SNAPSHOTS=off) and
// none was recorded.
func snapshotsOff(r *engine.Run) bool { return r.Asked == 0 && r.Snapshots == 0 && r.Failed == nil }

// runHasRow: the run's section has a row to select. With snapshots off,
// no alert told to the agent and nothing wrong it is a single dim line,
// nothing to read further (a runaway shown and not told is in the Budget
// section).
func runHasRow(r *engine.Run) bool {
	return !snapshotsOff(r) || r.Paused != nil || r.Halted != nil || r.RollbackFailed != nil || slices.ContainsFunc(r.Budget.Alerts, func(a engine.BudgetAlert) bool { return a.Told })
}

// closestBudget is the run's budget nearest its limit (the largest share
// of those with a figure and a limit); ok is false when there is none.
func (m Model) closestBudget(st *engine.State) (engine.BudgetFigure, bool) {
	var best engine.BudgetFigure
	ok := false
	for _, f := range st.Figures(m.budgetNow(), &m.rules) {
		if f.Known && f.Limit > 0 && (!ok || f.Used/f.Limit > best.Used/best.Limit) {
			best, ok = f, true
		}
	}
	return best, ok
}

// budgetNow is the time the followed session's budgets are read at: its
// last record (the budgets are judged at each call, and an idle session's
// run does not go on spending its wall clock), the panel's clock before one.
func (m Model) budgetNow() time.Time {
	if ss := m.sess[m.follow]; ss != nil {
		if t := ss.last(); !t.IsZero() && t.Before(m.now) {
			return t
		}
	}
	return m.now
}

// gaugeWidth is a budget gauge's bar, in cells.
const gaugeWidth = 10

// resourceName is a budget's resource in words.
func resourceName(r engine.Resource) string {
	switch r {
	case engine.ResWallClock:
		return "wall clock"
	case engine.ResToolCalls:
		return "tool calls"
	case engine.ResTokens:
		return "tokens"
	case engine.ResCost:
		return "cost"
	}
	return string(r)
}

// amount is a resource's figure in its unit.
func amount(r engine.Resource, v float64) string {
	switch r {
	case engine.ResWallClock:
		d := dur(time.Duration(v * float64(time.Second)))
		if mins, ok := strings.CutSuffix(d, "m0s"); ok {
			return mins + "m" // 5m, not 5m0s
		}
		return d
	case engine.ResCost:
		return engine.USD(v)
	case engine.ResTokens:
		return kilo(int64(v))
	}
	return fmt.Sprintf("%.0f", v)
}

// gauge is a budget's used share as a bar, filled to the nearest tenth:
// in the accent colour from 90% (the warning's threshold) on. A run has
// a budget only where the user set one, or cully armed a run nobody
// watches: there is no bar otherwise.
func (m Model) gauge(f engine.BudgetFigure) string {
	s := m.styles
	share := f.Used / f.Limit
	n := min(gaugeWidth, max(0, int(share*gaugeWidth+0.5)))
	bar := strings.Repeat("█", n) + strings.Repeat("░", gaugeWidth-n)
	if share >= 0.9 {
		return s.Accent.Render(bar)
	}
	return s.Text.Render(bar)
}

// runBudgetLines are the run's budgets, one gauge a line: used of the limit,
// the share, and the burn rate per minute of the run so far; a resource
// the host gives no figure for, or with no budget, says so.
func (m Model) runBudgetLines(w int, st *engine.State) []string {
	r := st.Run
	at := m.budgetNow()
	figs := st.Figures(at, &m.rules)
	if len(figs) == 0 {
		return nil
	}
	s := m.styles
	minutes := at.Sub(r.Started).Minutes()
	out := []string{"", s.Dim.Render(cut("budget", w))}
	if !slices.ContainsFunc(figs, func(f engine.BudgetFigure) bool { return f.Limit > 0 }) {
		out = append(out, styleLines(s.Dim, wrapIndent("no budget: usage only ([budget] in your config sets one; a run nobody watches gets cully's cap)", w, 2))...)
	}
	for _, f := range figs {
		name := fmt.Sprintf("  %-10s ", resourceName(f.Res))
		var rest string
		switch {
		case !f.Known:
			rest = s.Dim.Render("unknown: the host gives no figure")
		case f.Limit == 0:
			rest = s.Dim.Render(amount(f.Res, f.Used) + " · no budget")
		default:
			text := fmt.Sprintf(" %s of %s (%.0f%%)", amount(f.Res, f.Used), amount(f.Res, f.Limit), 100*f.Used/f.Limit)
			if f.Res != engine.ResWallClock && minutes >= 1 {
				text += " · " + amount(f.Res, f.Used/minutes) + "/min"
			}
			rest = m.gauge(f) + s.Text.Render(cut(text, max(0, w-width(name)-gaugeWidth)))
		}
		out = append(out, s.Dim.Render(name)+rest)
	}
	var alerts []string
	for i := len(r.Budget.Alerts) - 1; i >= 0; i-- {
		a := r.Budget.Alerts[i]
		told := "shown, not told"
		if a.Told {
			told = "told to the agent"
		}
		text := a.Text
		if text == "" {
			text = a.Key
		}
		alerts = append(alerts, fmt.Sprintf("%s %s (%s): %s", a.Kind, agoShort(m.now, unixTime(a.At)), told, clean(text)))
	}
	return append(out, m.bullets(w, "budget alerts and runaways, newest first", alerts)...)
}

// runAlert is the run's state that needs the user, if any: the words in
// the accent colour, the rest of the line, and the next step.
func (m Model) runAlert(r *engine.Run) (word, rest, next string) {
	now := m.now
	switch {
	case r.RollbackFailed != nil:
		f := r.RollbackFailed
		return "✗ ROLLBACK FAILED", fmt.Sprintf(" · to step %d · %s · %s", f.Step, agoShort(now, unixTime(f.At)), clean(f.Error)),
			fmt.Sprintf("cully rollback --to %d retries · %s gives up", f.Step, resumeHint)
	case r.Halted != nil:
		if r.Halted.By == engine.HaltStop {
			return "■ STOPPED", " since " + clock(now, unixTime(r.Halted.At)) + " · every call refused", engine.ResumeCommand(r.Halted)
		}
		return "■ HALTED", " since " + clock(now, unixTime(r.Halted.At)) + " · " + engine.HaltCause(r.Halted), engine.ResumeCommand(r.Halted)
	case r.Paused != nil:
		p := r.Paused
		rest := " since " + clock(now, unixTime(p.At))
		if p.Note != "" {
			rest += " · " + clean(p.Note)
		}
		return "■ PAUSED", rest, "cully resume"
	case r.Failed != nil:
		f := r.Failed
		lost := "nothing of the run can be rolled back yet"
		if r.Snapshots > 0 {
			lost = fmt.Sprintf("changes since step %d cannot be rolled back", r.LastStep)
		}
		return fmt.Sprintf("✗ snapshot %d FAILED", f.Step), " · " + agoShort(now, unixTime(f.At)) + " · " + clean(f.Error),
			"cully snapshot retries; until one succeeds, " + lost
	}
	return "", "", ""
}

// snapshotSummary is the run's snapshots in a line: "4 snapshots · last
// step 3, 2m ago · 7 files".
func (m Model) snapshotSummary(r *engine.Run, w int) string {
	var parts []string
	switch {
	case snapshotsOff(r):
		parts = append(parts, "snapshots off")
	case r.Snapshots == 0:
		parts = append(parts, "no snapshot yet")
	default:
		parts = append(parts, fmt.Sprintf("%d snapshot%s", r.Snapshots, plural(r.Snapshots, "", "s")))
		last := fmt.Sprintf("last step %d, %s", r.LastStep, ago(m.now, unixTime(r.LastAt)))
		if w < 44 {
			last = fmt.Sprintf("step %d %s", r.LastStep, agoShort(m.now, unixTime(r.LastAt)))
		}
		parts = append(parts, last, fmt.Sprintf("%d file%s", r.LastFiles, plural(r.LastFiles, "", "s")))
	}
	if n := r.Pending(); n > 0 {
		parts = append(parts, fmt.Sprintf("%d pending", n))
	}
	if rc := r.Recoverable; rc != nil { // first: what a narrow pane must not cut off
		rec := fmt.Sprintf("recoverable: cully rollback --to %d", rc.Step)
		if w < 44 {
			rec = fmt.Sprintf("undo: rollback --to %d", rc.Step)
		}
		parts = append([]string{rec}, parts...)
	}
	return strings.Join(parts, " · ")
}

// runLines is the run's section: its head, the state that needs the user
// (in the accent colour, with the next step), and its snapshots. With
// snapshots off and nothing wrong, one dim line.
func (m Model) runLines(w, lvl int) []string {
	st := m.followed()
	r := st.Run
	if r == nil {
		return nil
	}
	s := m.styles
	if !runHasRow(r) {
		line := "Run " + shortRun(r.ID) + " · snapshots off"
		if w >= 56 {
			line += " (CULLY_SNAPSHOTS=off)"
		}
		return []string{s.Dim.Render(cut(line, w))}
	}
	sel := m.sel == "r:"+r.ID
	word, rest, next := m.runAlert(r)
	if word == "" {
		// Nothing needs the user: one line, gone once the guards are
		// only counted.
		if lvl >= lvlNoGuards && !sel {
			return nil
		}
		if sel {
			return []string{s.Selected.Render(pad("▸ "+m.runLine(r, w-2), w))}
		}
		line := m.runLine(r, w)
		return []string{m.sectionHead(w, "Run", s.Dim.Render(strings.TrimPrefix(line, "Run ")))}
	}
	if lvl >= lvlNoGuards && !sel {
		return []string{m.sectionHead(w, "Run", s.Dim.Render(shortRun(r.ID))+" "+s.Accent.Render(strings.TrimLeft(word, "✗■ ")))}
	}
	counts := shortRun(r.ID)
	if w >= 44 {
		counts += fmt.Sprintf(" · %d call%s · %d edit%s", r.Calls, plural(r.Calls, "", "s"), r.Edits, plural(r.Edits, "", "s"))
	}
	out := []string{m.sectionHead(w, "Run", s.Dim.Render(counts))}
	out = append(out, m.titleLine(w, sel, []part{{word, s.Accent.Render}, {rest, s.Dim.Render}}))
	if lvl < lvlShortOpen || sel && lvl < lvlShortSelected {
		if width(next) > w-4 { // the command alone, whole; the details say the rest
			next, _, _ = strings.Cut(next, " · ")
			next, _, _ = strings.Cut(next, "; ")
		}
		out = append(out, styleLines(s.Dim, wrapIndent(next, w, 4))...)
	}
	if lvl < lvlNoGuards {
		out = append(out, "  "+s.Dim.Render(cut(m.snapshotSummary(r, w), w-2)))
	}
	return out
}

// runLine is the run in one line, the longest form that fits: "Run 3f2a…
// · 4 snapshots · last step 4, 2m ago · 7 files".
func (m Model) runLine(r *engine.Run, w int) string {
	head := "Run " + shortRun(r.ID) + " · "
	if l := head + m.snapshotSummary(r, 80); width(l) <= w {
		return l
	}
	if l := head + m.snapshotSummary(r, 0); width(l) <= w || r.Snapshots == 0 {
		return l
	}
	if rc := r.Recoverable; rc != nil { // what a destructive command threw away comes back: never cut off
		head += fmt.Sprintf("undo --to %d · ", rc.Step)
	}
	l := fmt.Sprintf("%sstep %d %s · %d file%s", head, r.LastStep, agoShort(m.now, unixTime(r.LastAt)), r.LastFiles, plural(r.LastFiles, "", "s"))
	if n := r.Pending(); n > 0 {
		l += fmt.Sprintf(" · %d pending", n)
	}
	return l
}

// shortRun is a run id's first four characters: enough beside the session.
func shortRun(id string) string { return cutNoTail(clean(id), 4) + "…" }

// runDetail is the run in full: its state, snapshots, the files it
// modified, the checks it ran, what is left, and a failure's paths.
func (m Model) runDetail(w int, r *engine.Run) []string {
	s, now := m.styles, m.now
	ss := m.sess[m.follow]
	word, _, next := m.runAlert(r)
	state := s.Good.Render("running")
	if word != "" {
		state = s.Accent.Render(strings.TrimLeft(word, "✗■ "))
	}
	out := []string{m.sectionHead(w, "Run "+shortID(r.ID), state), s.Dim.Render(cut(m.closeHint(), w)), ""}
	status, stStyle := "running: the agent works, cully follows", s.Text.Render
	switch {
	case r.RollbackFailed != nil:
		f := r.RollbackFailed
		status, stStyle = fmt.Sprintf("the rollback to snapshot %d failed %s: %s", f.Step, when(now, unixTime(f.At)), clean(f.Error)), s.Accent.Render
	case r.Halted != nil:
	case r.Halted != nil && r.Halted.By == engine.HaltStop:
		status, stStyle = "stopped "+when(now, unixTime(r.Halted.At))+" (cully stop): every tool call is refused until `cully resume`", s.Accent.Render
	case r.Halted != nil:
		status, stStyle = "halted "+when(now, unixTime(r.Halted.At))+" ("+engine.HaltCause(r.Halted)+"): every tool call is refused until `"+engine.ResumeCommand(r.Halted)+"`: "+clean(r.Halted.Note), s.Accent.Render
	case r.Paused != nil:
		status, stStyle = "paused "+when(now, unixTime(r.Paused.At))+" (cully stop --soft): the agent is told before each call to make no further changes", s.Accent.Render
	}
	fs := []field{
		{"state", status, stStyle},
		{"id", clean(r.ID), nil},
		{"started", fmt.Sprintf("%s · task %d", when(now, r.Started), r.Task), nil},
		{"calls", fmt.Sprintf("%d · %d edit%s", r.Calls, r.Edits, plural(r.Edits, "", "s")), nil},
	}
	if p := r.Paused; p != nil && p.Note != "" {
		fs = append(fs, field{"pause note", clean(p.Note), nil})
	}
	snaps := m.snapshotSummary(r, w)
	if !snapshotsOff(r) && r.Snapshots > 0 {
		snaps = fmt.Sprintf("%d · last step %d %s · %d file%s modified since the run's start", r.Snapshots, r.LastStep,
			when(now, unixTime(r.LastAt)), r.LastFiles, plural(r.LastFiles, "", "s"))
		if n := r.Pending(); n > 0 {
			snaps += fmt.Sprintf(" · %d pending", n)
		}
	}
	fs = append(fs, field{"snapshots", snaps, nil})
	if f := r.Failed; f != nil {
		fs = append(fs, field{"failed", fmt.Sprintf("snapshot %d %s: %s (what changes now cannot be rolled back until one succeeds)", f.Step, when(now, unixTime(f.At)), clean(f.Error)), s.Accent.Render})
	}
	if p := r.Resumed; p != nil && r.Paused == nil {
		note := when(now, unixTime(p.At))
		if p.Note != "" {
			note += ": " + clean(p.Note)
		}
		fs = append(fs, field{"resumed", note, nil})
	}
	if ev := lastFailure(ss, r); ev != nil {
		fs = append(fs, field{"last failure", failureText(m.now, ev), s.Bad.Render})
	}
	out = append(out, m.fields(w, fs)...)
	out = append(out, m.runBudgetLines(w, m.followed())...)
	if f := r.RollbackFailed; f != nil && ss.run.Rollback != nil {
		var ps []string
		for _, p := range ss.run.Rollback.Problems {
			ps = append(ps, clean(p.Path)+": "+clean(p.Why))
		}
		out = append(out, m.bullets(w, "why it could not restore", ps)...)
		out = append(out, m.bullets(w, fmt.Sprintf("the run's modified files when it failed (%d)", len(ss.run.Rollback.Modified)), ss.run.Rollback.Modified)...)
	}
	if len(ss.run.Modified) > 0 {
		out = append(out, m.bullets(w, fmt.Sprintf("files modified at step %d (%d)", r.LastStep, len(ss.run.Modified)), ss.run.Modified)...)
	}
	var checks []string
	for i := len(r.Checks) - 1; i >= 0; i-- {
		c := r.Checks[i]
		checks = append(checks, fmt.Sprintf("%s: %s (%d run%s, last %s)", clean(c.Cmd), c.Outcome, c.Runs, plural(c.Runs, "", "s"), agoShort(now, unixTime(c.At))))
	}
	out = append(out, m.bullets(w, "checks, last run first", checks)...)
	left := m.followed().Remaining()
	for i := range left {
		left[i] = clean(left[i])
	}
	if len(left) == 0 {
		left = []string{"nothing cully knows of (it does not know the task's own goal)"}
	}
	out = append(out, m.bullets(w, "remaining, as cully knows it", left)...)
	if ss.run.Err != "" {
		out = append(out, "", s.Dim.Render(cut("run folder: "+clean(ss.run.Err), w)))
	}
	if next != "" {
		out = append(out, "", s.Dim.Render("next:"))
		for _, n := range strings.Split(next, " · ") { // one command a line: a wrap never splits one
			out = append(out, styleLines(s.Accent, wrapIndent(n, w, 2))...)
		}
	}
	return out
}

// lastFailure is the run's last failed call in the journal the panel
// read (nil: none there): its whole command, which the activity list
// wraps and a guard's evidence shortens.
func lastFailure(ss *session, r *engine.Run) *engine.Event {
	for i := len(ss.recent) - 1; i >= 0; i-- {
		ev := ss.recent[i]
		if ev.Time.Before(r.Started) {
			return nil
		}
		if ev.Kind == engine.KindPostTool && ev.Outcome == engine.OutcomeFailed && ev.Subagent == "" {
			return ev
		}
	}
	return nil
}

// failureText is a failed call in a sentence: "`go test ./...` exit 1,
// 2m ago (11:58:00)".
func failureText(now time.Time, ev *engine.Event) string {
	what := clean(ev.Cmd)
	if what == "" {
		what = clean(ev.Tool) + " " + clean(ev.Target)
	}
	out := "failed"
	if ev.Exit != nil {
		out = fmt.Sprintf("exit %d", *ev.Exit)
	}
	return "`" + what + "` " + out + ", " + when(now, ev.Time)
}

// bullets is a labelled list, one item a line, wrapped under its bullet;
// nothing when the list is empty.
func (m Model) bullets(w int, label string, items []string) []string {
	if len(items) == 0 {
		return nil
	}
	s := m.styles
	out := []string{"", s.Dim.Render(cut(label, w))}
	for _, it := range items {
		for i, l := range wrap(it, w-4) {
			lead := "    "
			if i == 0 {
				lead = "  • "
			}
			out = append(out, s.Dim.Render(lead)+s.Text.Render(l))
		}
	}
	return out
}

func unixTime(sec int64) time.Time { return time.Unix(sec, 0) }
