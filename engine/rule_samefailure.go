package engine

import (
	"fmt"
	"strings"
)

// ReasonSameFailure: one program failing the same way under different arguments.
const ReasonSameFailure Reason = "same-failure"

// sameFailure is raised when one program (a check: `go vet`, `npm test`,
// `golangci-lint run` … wrappers and arguments aside) failed
// cfg.LoopFailures times in a task with the same error (Event.ErrSig:
// names and paths blanked), under at least two different command lines,
// successes between or not. It fires only where the other failure rules do
// not: one command failing alone is the failure loop's, different commands
// failing in a row the same-error rule's; a call that raised either, or a
// task and check epoch where either was raised, raises none of this.
// Once per program and error.
var sameFailure = checkpointRule{
	reason: ReasonSameFailure,
	action: "look at what the error says about the program or its setup rather than varying the arguments",
	alone:  true,
	due: func(s *State, ev *Event, _ *CmdSeen, cfg *Config) (string, bool) {
		if ev.Subagent != "" || ev.Class != ClassCheck || ev.Outcome != OutcomeFailed || ev.ErrSig == "" ||
			s.raised(ReasonFailureLoop) || s.raised(ReasonSameError) {
			return "", false
		}
		p := program(ev.Cmd)
		if p == "" {
			return "", false
		}
		key := Fingerprint(p, ev.ErrSig)
		for i := range s.ProgFails {
			t := &s.ProgFails[i]
			if t.Key != key || !sameFailureDue(t, cfg) || t.Due {
				continue
			}
			return fmt.Sprintf("`%s` failed %d times in this task with the same error, under %d different command lines (`%s`)",
				p, t.N, len(t.Forms), strings.Join(t.Forms, "`, `")), true
		}
		return "", false
	},
	tell: func(s *State, cfg *Config) bool {
		return cfg.SameFailureTell > 0 && maxTally(s.ProgFails) >= cfg.SameFailureTell
	},
}

// sameFailureDue: enough failures, under more than one command line.
func sameFailureDue(t *Tally, cfg *Config) bool { return t.N >= cfg.LoopFailures && len(t.Forms) >= 2 }
