package engine

import (
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"time"
)

// Run control (seed 001). A run is a task: it starts at an accepted prompt
// (or at the first tool call cully sees in a session that showed it no
// prompt) and lasts until the next one. The reducer follows it (its calls,
// edits and checks, for the stop summary) and decides when a recovery
// snapshot is due: at the run's start (its baseline), every snapshotCalls
// tool calls or snapshotSeconds, whichever comes first, and when the agent
// ends its turn. It says so with a SignalSnapshot; the hook starts the
// snapshot in the background, and `cully snapshot` records what came of it
// as a KindSnapshot event. The user's pause, resume and rollback arrive as
// events too, so a replayed journal rebuilds all of it.
const (
	snapshotCalls   = 10  // seed 001: a snapshot every N tool calls (default N=10) …
	snapshotSeconds = 120 // … or every M seconds (default M=120), whichever comes first
	maxRunChecks    = 8   // distinct checks a run remembers for the stop summary: the few a task runs, newest kept
	maxRunNote      = 300 // runes of an error or a note a run keeps: a sentence, not a log
	// MaxEventPaths is how many paths a run-control event carries in the
	// journal (PathCount counts them all; the snapshot file has every one).
	MaxEventPaths = 20
)

// Why a snapshot was taken (Signal.Reason, and Event.Source of its
// KindSnapshot event).
const (
	SnapBaseline Reason = "baseline" // the run's start state
	SnapCalls    Reason = "calls"    // snapshotCalls tool calls since the last one
	SnapTime     Reason = "time"     // snapshotSeconds since the last one
	SnapEnd      Reason = "end"      // the agent ended its turn
	SnapManual   Reason = "manual"   // `cully snapshot`
	SnapRollback Reason = "rollback" // the state before a rollback, so that it can be undone
	SnapStop     Reason = "stop"     // `cully stop`'s final snapshot
	// SnapFirst is a baseline taken by the run's first mark (SignalMark):
	// the state before the agent's first change, when the prompt's own
	// baseline had not run yet. Not one the reducer asked for.
	SnapFirst Reason = "first-change"
	// SnapDestructive is the snapshot before a destructive command.
	SnapDestructive Reason = "destructive"
)

// asked reports whether the reducer asks for snapshots of this reason; the
// others a cully command takes itself, while the user waits.
func (r Reason) asked() bool {
	return r == SnapBaseline || r == SnapCalls || r == SnapTime || r == SnapEnd
}

// Run is the session's current run.
type Run struct {
	ID      string    `json:"id"` // a UUID derived from the session, the task and the start (RunID)
	Task    int       `json:"task"`
	Started time.Time `json:"started"`
	Calls   int       `json:"calls"`           // tool calls finished in the run
	Edits   int       `json:"edits,omitempty"` // of which edits that did not fail
	// The snapshot cadence: the run's calls and the Unix second when the
	// last snapshot was asked for.
	SnapCalls int   `json:"snap_calls"`
	SnapAt    int64 `json:"snap_at"`
	// Asked counts the snapshots asked for in the session, Done those whose
	// outcome was recorded (written or failed): `cully snapshot --wait`
	// waits for Done to reach Asked. Carried from run to run.
	Asked int `json:"asked,omitempty"`
	Done  int `json:"done,omitempty"`
	// What the run's snapshots recorded: how many were written, the last
	// one's step, Unix second and number of files modified since the start.
	Snapshots int   `json:"snapshots,omitempty"`
	LastStep  int   `json:"last_step,omitempty"`
	LastAt    int64 `json:"last_at,omitempty"`
	LastFiles int   `json:"last_files,omitempty"`
	// Failed is the last snapshot failure, until a snapshot succeeds.
	Failed *RunFailure `json:"failed,omitempty"`
	// Checks are the checks the run ran, the most recently run last.
	Checks []RunCheck `json:"checks,omitempty"`
	// The user's run control, carried from run to run: a pause lasts
	// until a resume, whatever the agent is prompted meanwhile; a failed
	// rollback stays until a rollback succeeds or the user resumes.
	Paused         *RunNote    `json:"paused,omitempty"`
	Resumed        *RunNote    `json:"resumed,omitempty"` // the last resume and its note
	RollbackFailed *RunFailure `json:"rollback_failed,omitempty"`
	// Halted: the run is stopped, by the user (`cully stop`) or, in
	// enforce mode, by an exceeded budget or a runaway told to the agent
	// (By says which, Note what was said); every later tool call is
	// refused, the agent's loop ended where the host can, until a resume.
	// Carried, as a pause is.
	Halted *RunNote `json:"halted,omitempty"`
	// Notice is said once, before the foreground agent's next call (a
	// rollback changed files under it). Carried.
	Notice string `json:"notice,omitempty"`
	// Budget is the run's budgets and what they raised (budget.go).
	Budget RunBudget `json:"budget"`
	// Recoverable is the snapshot taken before the run's last destructive
	// command (git reset --hard, git clean -f, rm -r …): what it threw away
	// comes back with `cully rollback --to` its Step.
	Recoverable *Recoverable `json:"recoverable,omitempty"`
	// GoodStep is the last snapshot step taken while no counted check of
	// the run was worse than its baseline: where a rollback trigger would
	// go back to (0: the run's start).
	GoodStep int `json:"good_step,omitempty"`
}

// Recoverable is a snapshot before a destructive command.
type Recoverable struct {
	Step int   `json:"step"`
	At   int64 `json:"at"` // Unix seconds
}

// RunNote is a moment of run control and what was said with it.
type RunNote struct {
	At   int64  `json:"at"` // Unix seconds
	Note string `json:"note,omitempty"`
	// By is what halted a run (Halt*): "" in a run halted before it was
	// kept, which then reads as an enforce-mode halt.
	By string `json:"by,omitempty"`
	// Doubled are the budgets a resume doubled: those the run had
	// exceeded.
	Doubled []Resource `json:"doubled,omitempty"`
}

// RunFailure is a snapshot or a rollback that failed.
type RunFailure struct {
	Step  int    `json:"step"` // the snapshot's step (a rollback's target)
	At    int64  `json:"at"`   // Unix seconds
	Error string `json:"error"`
	Told  bool   `json:"told,omitempty"` // the agent was told (snapshot failures)
}

// RunCheck is one check the run ran and how it last came out.
type RunCheck struct {
	Cmd     string  `json:"cmd"` // its preview
	Outcome Outcome `json:"outcome"`
	Runs    int     `json:"runs"`
	At      int64   `json:"at"` // Unix seconds of its last run
	// Base is the check's first counted result in the run (its own
	// figures: tests failed, linter errors), the baseline a later run is
	// held to; Bad the failures and errors of its last counted run.
	Base *TestCounts `json:"base,omitempty"`
	Bad  int         `json:"bad,omitempty"`
}

// worse reports whether a counted check of the run is worse now than at
// its baseline.
func (r *Run) worse() bool {
	for _, c := range r.Checks {
		if c.Base != nil && c.Bad > c.Base.Failed+c.Base.Errors {
			return true
		}
	}
	return false
}

// Pending is how many snapshots were asked for and have no outcome yet.
func (r *Run) Pending() int { return max(r.Asked-r.Done, 0) }

// RunID is the id of the run a session starts at task, at time t: a UUID
// (version 8, RFC 9562: derived, not random) of their FNV-1a 128 hash. The
// reducer reads no random source, and a replayed journal gives every run
// its id again.
func RunID(session string, task int, t time.Time) string {
	h := fnv.New128a()
	h.Write([]byte(session))
	h.Write([]byte{0})
	h.Write(strconv.AppendInt(nil, int64(task), 10))
	h.Write([]byte{0})
	h.Write(strconv.AppendInt(nil, t.UnixNano(), 10))
	b := h.Sum(nil)
	b[6] = b[6]&0x0f | 0x80 // version 8
	b[8] = b[8]&0x3f | 0x80 // the RFC 9562 variant
	x := hex.EncodeToString(b)
	return x[0:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32]
}

// startRun opens a run at ev and asks for its baseline. What the user set
// (a pause, a failed rollback, a notice) and the session's snapshot
// accounting carry over from the run before.
func (s *State) startRun(ev *Event) []Signal {
	r := &Run{ID: RunID(s.Session, s.Task, ev.Time), Task: s.Task, Started: ev.Time, SnapAt: ev.Time.Unix()}
	if old := s.Run; old != nil {
		r.Asked, r.Done = old.Asked, old.Done
		r.Paused, r.Resumed, r.RollbackFailed, r.Notice, r.Halted = old.Paused, old.Resumed, old.RollbackFailed, old.Notice, old.Halted
	}
	s.Run = r
	s.budgetUsage()
	return s.askSnapshot(ev, SnapBaseline)
}

// askSnapshot asks the hook for a snapshot of the run.
func (s *State) askSnapshot(ev *Event, why Reason) []Signal {
	r := s.Run
	r.SnapCalls, r.SnapAt = r.Calls, ev.Time.Unix()
	if ev.NoSnapshots {
		return nil
	}
	r.Asked++
	return []Signal{{Kind: SignalSnapshot, Reason: why, ID: r.ID, N: r.Calls}}
}

// mark asks for a capture of the work tree around a call that may change
// files (SignalMark): an edit, a check or any command not known to only
// read. A halted run's call is refused, and changes nothing to capture.
func (s *State) mark(ev *Event, when Reason) []Signal {
	if s.Run == nil || ev.NoSnapshots {
		return nil
	}
	switch ev.Class {
	case ClassEdit, ClassCheck, ClassRun:
	default:
		return nil
	}
	if when == "pre" && s.Run.Halted != nil {
		return nil
	}
	sig := Signal{Kind: SignalMark, Reason: when, ID: s.Run.ID, N: s.Run.Calls}
	if when == "pre" {
		sig.Evidence = ev.Destructive // the snapshot goes before the command
	}
	return []Signal{sig}
}

// runCall books a finished tool call into the run and asks for the
// snapshot that is due after it.
func (s *State) runCall(ev *Event) []Signal {
	var sigs []Signal
	if s.Run == nil {
		sigs = s.startRun(ev)
	}
	r := s.Run
	r.Calls++
	r.budgetCall(ev)
	switch ev.Class {
	case ClassEdit:
		if ev.Outcome != OutcomeFailed {
			r.Edits++
		}
	case ClassCheck:
		r.bookCheck(ev)
	}
	switch since := r.Calls - r.SnapCalls; {
	case since >= snapshotCalls:
		sigs = append(sigs, s.askSnapshot(ev, SnapCalls)...)
	case since > 0 && ev.Time.Unix()-r.SnapAt >= snapshotSeconds:
		sigs = append(sigs, s.askSnapshot(ev, SnapTime)...)
	}
	return sigs
}

// StopError is the Source of a turn's end the host reports as an error it
// could not recover from (Claude Code's StopFailure).
const StopError = "error"

// runEnd asks for a snapshot of where the agent's turn ended, when it made
// calls since the last one. A turn that ended on the host's unrecoverable
// error with the run's files changed is a rollback trigger (seed 001): the
// work may be half done. Shown; with auto_rollback in enforce mode the
// run halts and its files go back to the last good snapshot.
func (s *State) runEnd(ev *Event, cfg *Config) []Signal {
	r := s.Run
	if r == nil || ev.Subagent != "" {
		return nil
	}
	var sigs, rollback []Signal
	if ev.Source == StopError && r.Edits > 0 {
		what := "an error of its host"
		if ev.Note != "" {
			what += " (" + cutNote(ev.Note) + ")"
		}
		text := fmt.Sprintf("cully: the agent's turn ended on %s after %s; its work may be half done. Suggested: check it, or roll the run back to snapshot %d (`cully rollback --to %d`; `--dry-run` shows what it restores).",
			what, plural(r.Edits, "edit"), r.GoodStep, r.GoodStep)
		if r.alert(AlertRollback, fmt.Sprintf("%s:host-error:%d", AlertRollback, ev.Time.Unix()), text, ev.Time.Unix(), false) &&
			cfg.Budget.AutoRollback && r.Halted == nil && cfg.Budget.enforces(s.attended()) {
			r.Halted = &RunNote{At: ev.Time.Unix(), Note: text + fmt.Sprintf(" auto_rollback is on: cully rolls the run's files back to snapshot %d now.", r.GoodStep), By: HaltRollback}
			r.Budget.Alerts[len(r.Budget.Alerts)-1].Told = true // no one to tell: the turn is over; the halt says it
			rollback = []Signal{{Kind: SignalRollback, ID: r.ID, N: r.GoodStep}}
		}
	}
	if r.Calls != r.SnapCalls {
		sigs = append(sigs, s.askSnapshot(ev, SnapEnd)...)
	}
	return append(sigs, rollback...) // after the turn's own snapshot
}

func (r *Run) bookCheck(ev *Event) {
	c := RunCheck{Cmd: preview(ev), Outcome: ev.Outcome, Runs: 1, At: ev.Time.Unix()}
	if c.Outcome == "" {
		c.Outcome = OutcomeUnknown
	}
	for i, old := range r.Checks {
		if old.Cmd == c.Cmd {
			c.Runs += old.Runs
			c.Base, c.Bad = old.Base, old.Bad
			r.Checks = append(r.Checks[:i], r.Checks[i+1:]...)
			break
		}
	}
	if t := ev.Tests; t != nil && t.Counted {
		c.Bad = t.Failed + t.Errors
		if c.Base == nil {
			b := *t
			c.Base = &b
		}
		base := c.Base.Failed + c.Base.Errors
		if c.Bad > base {
			kind := "failing test"
			if c.Base.Passed == 0 && t.Passed == 0 {
				kind = "error" // a linter or a type checker: problems, no passes
			}
			r.alert(AlertRollback, fmt.Sprintf("%s:%s:%d", AlertRollback, c.Cmd, c.Bad), fmt.Sprintf(
				"cully: `%s` now reports %s, against %d at this run's start: the run made it worse. Suggested: fix that first, or ask the user to roll the run back to snapshot %d (`cully rollback --to %d`; `--dry-run` shows what it restores).",
				c.Cmd, plural(c.Bad, kind), base, r.GoodStep, r.GoodStep), ev.Time.Unix(), false)
		}
	}
	r.Checks = append(r.Checks, c)
	if len(r.Checks) > maxRunChecks {
		r.Checks = r.Checks[len(r.Checks)-maxRunChecks:]
	}
}

// runEvent folds the run-control events that cully's commands record.
func (s *State) runEvent(ev *Event, cfg *Config) {
	r := s.Run
	if r == nil {
		return // the commands refuse a session with no run
	}
	at := ev.Time.Unix()
	switch ev.Kind {
	case KindSnapshot:
		if Reason(ev.Source).asked() && r.Done < r.Asked {
			r.Done++
		}
		step := 0
		if ev.Step != nil {
			step = *ev.Step
		}
		if ev.Outcome == OutcomeFailed {
			f := &RunFailure{Step: step, At: at, Error: cutNote(ev.Note)}
			if r.Failed != nil && ev.Run == r.ID {
				f.Told = r.Failed.Told // said once per run of failures, not once per failure
			}
			if ev.Run == r.ID {
				r.Failed = f
			} else if r.Notice == "" { // an earlier run's last snapshot
				r.Notice = snapshotFailedText(f, -1)
			}
			return
		}
		if ev.Run != r.ID {
			return
		}
		r.Snapshots++
		r.LastStep, r.LastAt, r.LastFiles = step, at, ev.PathCount
		if Reason(ev.Source) == SnapDestructive {
			r.Recoverable = &Recoverable{Step: step, At: at}
		}
		r.Failed = nil
		if !r.worse() {
			r.GoodStep = step
		}
	case KindPause:
		r.Paused = &RunNote{At: at, Note: cutNote(ev.Note)}
		if ev.Source == PauseHalt {
			r.Halted = &RunNote{At: at, Note: cutNote(ev.Note), By: HaltStop}
		}
	case KindResume:
		r.Paused, r.RollbackFailed, r.Halted = nil, nil, nil
		if s.Idle != nil { // the user let the run go on: the idle turns so far are theirs to judge
			s.Idle.restart()
		}
		r.Resumed = &RunNote{At: at, Note: cutNote(ev.Note)}
		if ev.Source != ResumeKeep { // a resume recorded before --raise doubled whatever was exceeded
			r.Resumed.Doubled = s.resumeBudgets(ev.Time, cfg)
		}
	case KindRollback:
		step := 0
		if ev.Step != nil {
			step = *ev.Step
		}
		if ev.Outcome == OutcomeFailed {
			r.RollbackFailed = &RunFailure{Step: step, At: at, Error: cutNote(ev.Note)}
			return
		}
		r.RollbackFailed = nil
		if r.Recoverable != nil && step <= r.Recoverable.Step {
			// Back to the snapshot before the destructive command, or
			// earlier: what it threw away is in the tree again.
			r.Recoverable = nil
		}
		if ev.PathCount > 0 {
			r.Notice = fmt.Sprintf("cully: the user rolled %s of this run back to snapshot %d (`cully rollback`): %s. What was read of them before is out of date.",
				plural(ev.PathCount, "file"), step, listPaths(ev.Paths, ev.PathCount))
			s.forgetReads()
		}
	}
}

// runNotes is what run control tells the agent before a call: that the run
// is paused (on every call, until the user resumes it), that a snapshot
// failed (once per run of failures), a notice (once). Subagents hear of
// the pause only: they cannot tell the user anything.
func (s *State) runNotes(ev *Event, cfg *Config) string {
	r := s.Run
	if r == nil {
		return ""
	}
	var lines []string
	if p := r.Paused; p != nil && r.Halted == nil {
		lines = append(lines, "cully: this run is paused: the user ran `cully stop` at "+clock(p.At)+
			" and asked for no further changes until they resume it (`cully resume`). Suggested: end the turn with a short summary of what is done and what remains.")
	}
	lines = append(lines, s.budgetNotes(ev, cfg)...)
	if ev.Subagent == "" {
		if f := r.Failed; f != nil && !f.Told {
			f.Told = true
			last := -1
			if r.Snapshots > 0 {
				last = r.LastStep
			}
			text := snapshotFailedText(f, last)
			// Seed 001: a failed snapshot halts in enforce mode. Only when
			// the user chose enforce: unset, an unattended run in a folder
			// cully cannot snapshot would stop at its first call. The
			// halt's refusal says it.
			if cfg.Budget.Mode == ModeEnforce && r.Halted == nil {
				r.Halted = &RunNote{At: f.At, Note: text, By: HaltSnapshot}
			} else {
				lines = append(lines, text)
			}
		}
		if r.Notice != "" {
			lines = append(lines, r.Notice)
			r.Notice = ""
		}
	}
	return strings.Join(lines, "\n")
}

// snapshotFailedText warns of a failed snapshot; last is the run's last
// written step, -1 when none was.
func snapshotFailedText(f *RunFailure, last int) string {
	lost := "nothing the run changes can be rolled back until one succeeds"
	if last >= 0 {
		lost = fmt.Sprintf("what changed since snapshot %d cannot be rolled back until one succeeds", last)
	}
	return fmt.Sprintf("cully: recovery snapshot %d of this run failed (%s): %s. Suggested: tell the user (`cully status` shows it).", f.Step, f.Error, lost)
}

// Remaining is the work left in the run as cully knows it: edits not yet
// verified, checks whose last run did not pass, open checkpoints, a
// snapshot or a rollback that failed. It knows nothing of the task's own
// goal.
func (s *State) Remaining() []string {
	var out []string
	if n := s.EditsSinceCheck; n > 0 {
		out = append(out, plural(n, "edit")+" since the last successful check")
	}
	if r := s.Run; r != nil {
		for _, c := range r.Checks {
			switch c.Outcome {
			case OutcomeFailed:
				out = append(out, "`"+c.Cmd+"` failed on its last run")
			case OutcomeUnknown:
				out = append(out, "`"+c.Cmd+"` last ran with no known outcome")
			}
		}
		if f := r.Failed; f != nil {
			out = append(out, fmt.Sprintf("snapshot %d failed: %s", f.Step, f.Error))
		}
		if f := r.RollbackFailed; f != nil {
			out = append(out, fmt.Sprintf("the rollback to snapshot %d failed: %s", f.Step, f.Error))
		}
	}
	for _, c := range s.OpenCheckpoints() {
		out = append(out, fmt.Sprintf("checkpoint %s (%s) is open: %s", c.ID, c.Reason, c.Evidence))
	}
	return out
}

func cutNote(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > maxRunNote {
		s = string(r[:maxRunNote-1]) + "…"
	}
	return s
}

// listPaths names a few paths: "a.go, b.go and 3 more".
func listPaths(paths []string, total int) string {
	const most = 5
	shown := paths
	if len(shown) > most {
		shown = shown[:most]
	}
	s := strings.Join(shown, ", ")
	if rest := total - len(shown); rest > 0 {
		s += fmt.Sprintf(" and %d more", rest)
	}
	return s
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// clock renders a Unix second for a nudge: 12:03:09 UTC.
func clock(unix int64) string { return time.Unix(unix, 0).UTC().Format("15:04:05 UTC") }
