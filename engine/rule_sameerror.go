package engine

import (
	"fmt"
	"strings"
)

// ReasonSameError: different commands, one error.
const ReasonSameError Reason = "same-error"

// sameError is raised when cfg.LoopFailures failed calls in a row, of at
// least two different commands, fail with the same error (Event.ErrSig:
// the error text with names and paths blanked): the trouble is not the
// command but something under all of them — the shell rejecting a syntax,
// a missing tool, the environment. A call that works (a run, a check or an
// edit) ends the run; reads do not. One command failing alone is the
// failure loop's business.
var sameError = checkpointRule{
	reason: ReasonSameError,
	action: "look at the error itself rather than trying more commands: it may be the shell, a missing tool or the environment",
	keyed:  keyError,
	alone:  true,
	due: func(s *State, ev *Event, _ *CmdSeen, cfg *Config) (string, bool) {
		r := s.ErrRun
		if ev.Outcome != OutcomeFailed || ev.Subagent != "" || r == nil || r.Sig != ev.ErrSig || r.N < cfg.LoopFailures || len(r.Cmds) < 2 {
			return "", false
		}
		return fmt.Sprintf("%d calls in a row (`%s`) failed with the same error", r.N, strings.Join(r.Cmds, "`, `")), true
	},
	settled: func(s *State, c *Checkpoint) bool { return s.ErrRun == nil || s.ErrRun.Sig != c.Key },
}
