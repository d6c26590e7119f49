package engine

import "fmt"

// ReasonFinishUnchecked: the turn ended with code edited after the last
// check of any kind.
const ReasonFinishUnchecked Reason = "finish-unchecked"

// finishUnchecked is judged at the end of the agent's turn (a Stop event):
// the foreground agent edited code (not prose: plans and notes have nothing
// to test) since the task's last check of any kind, passing or not
// (State.EditsSinceTry), and handed the turn back. "Done" said over edits
// nothing ran is the claim a reviewer has to check by hand; a failing
// check after the edits is finishFailing's. Shown, not told, unless
// finish_tell is on: a turn that ends on a question, or on edits the user
// asked to review first, is no mistake, and only the user knows which.
var finishUnchecked = checkpointRule{
	reason: ReasonFinishUnchecked,
	action: "run the project's checks on the edits before calling them done",
	stop:   true,
	due: func(s *State, ev *Event, _ *CmdSeen, _ *Config) (string, bool) {
		if ev.Kind != KindStop || ev.Subagent != "" || s.EditsSinceTry == 0 {
			return "", false
		}
		since := "since the last check"
		if s.TaskChecks == 0 {
			since = "and no check ran in this task"
		}
		return fmt.Sprintf("the turn ended after %s of code %s", plural(s.EditsSinceTry, "edit"), since), true
	},
	tell:    func(_ *State, cfg *Config) bool { return cfg.FinishTell },
	settled: func(s *State, c *Checkpoint) bool { return s.EditsSinceTry == 0 },
}
