package engine

import (
	"fmt"
	"time"
)

// The rules, each in its own rule_*.go file. The order of a list is the
// order the rules are judged in, hence the order of their signals and of
// their lines in a nudge. A new rule is one file and one line here.
var (
	guards      = []guardRule{largeRead, unchangedReread, thirdAttempt}
	checkpoints = []checkpointRule{failureLoop, exploring, unverifiedEdits}
)

// A guardRule warns before a tool call that is likely to waste context or
// work. Its warning is raised once per dedup key (State.Warned) and goes
// into the nudge for that same call.
type guardRule struct {
	reason Reason
	// advice follows the evidence in the nudge: what to do instead.
	advice string
	// check judges the call about to run. It returns the warning's dedup
	// key and its evidence, and must not change the state.
	check func(s *State, ev *Event, cfg *Config) (key, evidence string, ok bool)
}

// A checkpointRule judges a finished call once the reducer has booked it
// (counts, command history, files read, activity since the last edit or
// check). Its checkpoint is raised at most once per (task, reason, check
// epoch) and nudged to the foreground agent before its next call.
type checkpointRule struct {
	reason Reason
	// action is what the nudge asks of the agent; Action exports it.
	action string
	// refused: the rule also judges calls the host refused before running
	// them, which are booked as failed commands and nothing else.
	refused bool
	// due reports whether the checkpoint is due after ev, and its evidence.
	// cmd is the history of ev's command when the reducer tracks it (see
	// tracksCommand), nil otherwise. It must not change the state.
	due func(s *State, ev *Event, cmd *CmdSeen, cfg *Config) (evidence string, ok bool)
}

// Action is the suggested action of each checkpoint reason.
var Action = checkpointActions()

func checkpointActions() map[Reason]string {
	m := make(map[Reason]string, len(checkpoints))
	for _, r := range checkpoints {
		m[r.reason] = r.action
	}
	return m
}

// guardAdvice is a guard warning's line in a nudge: its evidence, then what
// its rule advises instead.
func guardAdvice(w Warning) string {
	for _, g := range guards {
		if g.reason == w.Reason {
			return w.Evidence + ". " + g.advice
		}
	}
	return w.Evidence
}

// wholeRead reports whether ev reads a known file whole (no offset, limit or
// range) and its size is known: what the read guards judge.
func wholeRead(ev *Event) bool {
	return ev.Class == ClassRead && ev.Target != "" && !ev.Ranged && ev.Size != nil
}

// sizeMtime identifies a version of the file a whole read reads, for the
// read guards' dedup keys: the same file warned again once it changed.
func sizeMtime(ev *Event) string {
	return fmt.Sprintf("%d:%d", *ev.Size, unixNano(ev.Mtime))
}

func unixNano(t *time.Time) int64 {
	if t == nil {
		return 0
	}
	return t.UnixNano()
}
