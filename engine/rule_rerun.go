package engine

import (
	"fmt"
	"strings"
)

// ReasonRerun: a passing check run again with only its output filter changed.
const ReasonRerun Reason = "rerun-passing"

// rerunRuns is how many passes in a row make the re-runs worth a word:
// running a check a second time to see more of its output is ordinary;
// a third pass of the same run, nothing edited, is reading one result
// through ever other filters.
const rerunRuns = 3

// rerun is raised when the same check (Event.PlainFP: the command with its
// pipeline filters, 2>&1 and verbosity flags removed) passed rerunRuns
// times in a row with nothing edited between, in at least two spellings:
// only the output plumbing changed. The same spelling each time is the
// repeated-call guard's business. Once per run of passes.
var rerun = checkpointRule{
	reason: ReasonRerun,
	action: "read what the last run printed instead of running the check again with another filter",
	alone:  true,
	due: func(s *State, ev *Event, _ *CmdSeen, _ *Config) (string, bool) {
		r := s.Rerun
		if ev.Subagent != "" || ev.Class != ClassCheck || ev.Outcome != OutcomeOK || r == nil || r.Key != ev.PlainFP || !rerunDue(r) || r.Due {
			return "", false
		}
		return fmt.Sprintf("`%s` passed %d times in a row with only the output filter changed (`%s`), and nothing was edited between",
			r.Forms[0], r.N, strings.Join(r.Forms[1:], "`, `")), true
	},
	tell: func(s *State, cfg *Config) bool {
		return cfg.RerunTell > 0 && s.Rerun != nil && s.Rerun.N >= cfg.RerunTell
	},
}

// rerunDue: enough passes, in more than one spelling.
func rerunDue(r *Tally) bool { return r.N >= rerunRuns && len(r.Forms) >= 2 }
