package engine

import "fmt"

// ReasonFailureLoop: one command failing the same way again and again.
const ReasonFailureLoop Reason = "failure-loop"

// failureLoop is raised when the same command fails with the same failure
// signature cfg.LoopFailures times in a row. Edits between the failures do
// not break the loop (the same error after each edit is exactly a loop); a
// success or a different error does (CmdSeen.SigStreak). Calls the host
// refused count as failed runs, so an Edit whose old_string never matches
// loops too.
var failureLoop = checkpointRule{
	reason:  ReasonFailureLoop,
	action:  "explain the blocker and propose a different next step",
	refused: true,
	keyed:   keyCommand,
	// The command succeeding, or its history restarting, ends the loop.
	settled: func(s *State, c *Checkpoint) bool {
		cs := s.Commands[c.Key]
		return c.Key != "" && (cs == nil || cs.Fails == 0)
	},
	due: func(s *State, ev *Event, cmd *CmdSeen, cfg *Config) (string, bool) {
		if cmd == nil || ev.Outcome != OutcomeFailed || cmd.SigStreak < cfg.LoopFailures {
			return "", false
		}
		evidence := fmt.Sprintf("`%s` failed %d times in a row with the same error", cmd.Preview, cmd.SigStreak)
		if ev.FamilyFP != "" && cmd == s.Commands[familyKey(ev)] {
			evidence = fmt.Sprintf("`%s` and its runs with other narrowing flags failed %d times in a row with the same error", cmd.Preview, cmd.SigStreak)
		}
		if ev.Exit != nil {
			evidence += fmt.Sprintf(" (exit %d)", *ev.Exit)
		}
		return evidence, true
	},
}
