package engine

import (
	"fmt"
	"strings"
)

// ReasonRerun: a command run again with only its output filter changed.
const ReasonRerun Reason = "rerun-filter"

// rerunRuns is how many runs in a row make the re-runs worth a word:
// running a check a second time to see more of its output is ordinary;
// a third run of the same thing, nothing edited, is reading one result
// through ever other filters, paying for the whole run each time. Measured:
// at the second run, and with program runs counted beside checks, blind
// reviewers found 2 of 19 firings worth a look (a different grep pattern,
// another page of a document, a higher repeat count are real work), though
// moments were marked at the second run of a slow check.
const rerunRuns = 3

// rerun is raised when the same check (Event.PlainFP: the command with
// its pipeline filters, 2>&1 and verbosity flags removed)
// ran rerunRuns times in a row with nothing edited between and the same
// outcome each time it was known, in at least two spellings: only the
// output plumbing changed. Shown, not told, unless rerun_tell is set.
// The same spelling each time is the repeated-call guard's business, the
// same failure under one command line the failure loop's. Once per run.
var rerun = checkpointRule{
	reason: ReasonRerun,
	action: "read what the last run printed (or save its output once) instead of running the check again with another filter",
	alone:  true,
	due: func(s *State, ev *Event, _ *CmdSeen, _ *Config) (string, bool) {
		r := s.Rerun
		if ev.Subagent != "" || ev.Class != ClassCheck || r == nil || r.Key != ev.PlainFP || !rerunDue(r) || r.Due {
			return "", false
		}
		verb := "ran"
		switch Outcome(r.Note) {
		case OutcomeOK:
			verb = "passed"
		case OutcomeFailed:
			verb = "failed"
		}
		return fmt.Sprintf("`%s` %s %d times in a row with only the output filter changed (`%s`), and nothing was edited between",
			r.Forms[0], verb, r.N, strings.Join(r.Forms[1:], "`, `")), true
	},
	tell: func(s *State, cfg *Config) bool {
		return cfg.RerunTell > 0 && s.Rerun != nil && s.Rerun.N >= cfg.RerunTell
	},
}

// rerunDue: enough runs, in more than one spelling.
func rerunDue(r *Tally) bool { return r.N >= rerunRuns && len(r.Forms) >= 2 }
