package engine

import "fmt"

// ReasonUnverifiedEdits: many edits and no successful check.
const ReasonUnverifiedEdits Reason = "unverified-edits"

// unverifiedEdits is raised after cfg.UnverifiedEdits edits without a
// successful check (State.EditsSinceCheck: failed edits do not count; a
// check known to pass and a new task reset it, a failed or unknown check
// does not).
var unverifiedEdits = checkpointRule{
	reason: ReasonUnverifiedEdits,
	action: "Review the approach and verification plan before widening the change.",
	due: func(s *State, ev *Event, _ *CmdSeen, cfg *Config) (string, bool) {
		if ev.Class != ClassEdit || ev.Outcome == OutcomeFailed || s.EditsSinceCheck < cfg.UnverifiedEdits {
			return "", false
		}
		return fmt.Sprintf("%d edits since the last successful check", s.EditsSinceCheck), true
	},
}
