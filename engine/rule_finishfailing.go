package engine

import "fmt"

// ReasonFinishFailing: the turn ended with the task's last check failing.
const ReasonFinishFailing Reason = "finish-failing"

// finishFailing is judged at the end of the agent's turn (a Stop event):
// the task changed code, and its last check failed with no passing or
// unknown run since (State.FailingCheck). A turn that hands back a red
// check is either an honest "I could not fix this" or a "done" the check
// contradicts — a failure called pre-existing, flaky or out of scope
// without a look at a clean tree. The closing message tells the two apart
// where it claims a passing check (Event.EndClaim): raised then, or at
// every such turn end with finish_checks (blind reviewers found 2 of 13
// of those firings on the corpus worth a look). Shown, never told.
var finishFailing = checkpointRule{
	reason: ReasonFinishFailing,
	action: "say plainly that the check fails, or show it failed the same way before the change",
	stop:   true,
	due: func(s *State, ev *Event, _ *CmdSeen, cfg *Config) (string, bool) {
		if !cfg.FinishChecks && ev.EndClaim == "" || ev.Kind != KindStop || ev.Subagent != "" || s.FailingCheck == "" || s.TaskEdits == 0 && s.EditsSinceCheck == 0 {
			return "", false
		}
		if ev.EndClaim != "" {
			return fmt.Sprintf("the turn ended with `%s` failing at its last run, after %s of code in this task, and its closing message says a check passes", s.FailingCheck, plural(max(s.TaskEdits, s.EditsSinceCheck), "edit")), true
		}
		return fmt.Sprintf("the turn ended with `%s` failing at its last run, after %s of code in this task", s.FailingCheck, plural(max(s.TaskEdits, s.EditsSinceCheck), "edit")), true
	},
	tell:    func(*State, *Config) bool { return false },
	settled: func(s *State, c *Checkpoint) bool { return s.FailingCheck == "" },
}

// bookFailingCheck keeps the preview of the foreground agent's last check
// while it fails: what finishFailing judges at the turn's end. Any other
// outcome of a check clears it: a run whose status a pipe hid may well
// have passed, and the rule speaks only of a failure it saw last.
func (s *State) bookFailingCheck(ev *Event) {
	if ev.Subagent != "" || ev.Class != ClassCheck {
		return
	}
	if ev.Outcome == OutcomeFailed {
		s.FailingCheck = preview(ev)
	} else {
		s.FailingCheck = "" // passed, or unknown: no longer known to fail
	}
}
