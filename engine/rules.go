package engine

import (
	"fmt"
	"time"
)

// The rules, each in its own rule_*.go file. The order of a list is the
// order the rules are judged in, hence the order of their signals and of
// their lines in a nudge. A new rule is one file and one line here.
var (
	guards      = []*guardRule{&largeRead, &unchangedReread, &thirdAttempt, &repeatedCall, &broadSearch, &gitInternals, &machineChange}
	checkpoints = []*checkpointRule{&failureLoop, &sameError, &sameFailure, &cycle, &emptySearch, &rerun, &exploring, &unverifiedEdits, &fixInTest, &uncheckedCommit, &reportedCommand, &finishFailing, &finishUnchecked, &idleLoop}
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
	// action is the suggested next step, a lower-case phrase the nudge puts
	// after "Suggested:"; Action exports it.
	action string
	// refused: the rule also judges calls the host refused before running
	// them, which are booked as failed commands and nothing else.
	refused bool
	// due reports whether the checkpoint is due after ev, and its evidence.
	// cmd is the history of ev's command when the reducer tracks it (see
	// tracksCommand), nil otherwise. It must not change the state.
	due func(s *State, ev *Event, cmd *CmdSeen, cfg *Config) (evidence string, ok bool)
	// stop: the rule judges the end of the agent's turn (a Stop event),
	// and nothing else; the other rules never judge one.
	stop bool
	// keyed: what Checkpoint.Key holds, for settling the checkpoint.
	keyed keyKind
	// alone: not raised by a call that raised another checkpoint (the
	// pattern rules would repeat what a more precise rule just said).
	alone bool
	// holds reports whether the call about to run may end the condition
	// (a check for unchecked edits): the nudge waits for its outcome
	// instead of interrupting the very call that answers it.
	holds func(ev *Event) bool
	// settled reports, after a booked call, whether the condition of an
	// open checkpoint has ended: it closes as resolved.
	settled func(s *State, c *Checkpoint) bool
	// tell reports whether the evidence is strong enough to tell the agent
	// (nil: always). A checkpoint it holds back stays open in status and
	// the panel for the user to judge, and is told once the evidence grows
	// strong enough (docs/rules.md, "Strength before nudging").
	tell func(s *State, cfg *Config) bool
	// told, when set, restates the evidence when the checkpoint is told
	// later than it was raised: the figures as they are now.
	told func(s *State, cfg *Config) string
}

// keyKind says what a checkpoint's Key is about.
type keyKind int

const (
	keyNone    keyKind = iota
	keyCommand         // the command (or check family) whose history raised it
	keyError           // the error signature of an error run
)

// rule finds a checkpoint reason's rule.
func rule(r Reason) *checkpointRule {
	for i := range checkpoints {
		if checkpoints[i].reason == r {
			return checkpoints[i]
		}
	}
	return nil
}

// settle closes, as resolved, the open checkpoints whose condition the
// booked call ended.
func (s *State) settle(ev *Event) []Signal {
	var sigs []Signal
	for i := range s.Checkpoints {
		c := &s.Checkpoints[i]
		if c.Status != StatusOpen {
			continue
		}
		if r := rule(c.Reason); r != nil && r.settled != nil && r.settled(s, c) {
			c.Status = StatusResolved
			t := ev.Time
			c.Closed = &t
			sigs = append(sigs, Signal{Kind: SignalAck, ID: c.ID, Reason: c.Reason, Evidence: string(c.Status)})
		}
	}
	return sigs
}

// Action is the suggested action of a checkpoint reason, in its rule's
// words (the action of each checkpoint rule in rule_*.go); "" for a reason
// no rule has. A function, not a map built at start-up: the hook binary
// initialises this package on every call.
func Action(r Reason) string {
	if c := rule(r); c != nil {
		return c.action
	}
	return ""
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

// runGuards evaluates the guards for the call about to run, in the order of
// the list, and returns the warnings raised (those whose key is new).
func (s *State) runGuards(ev *Event, cfg *Config) []Warning {
	var warned []Warning
	for _, g := range guards {
		key, evidence, ok := g.check(s, ev, cfg)
		if !ok {
			continue
		}
		if w, ok := s.warn(ev, g.reason, key, evidence); ok {
			warned = append(warned, w)
		}
	}
	return warned
}

// warn records a guard warning unless its dedup key was used before.
func (s *State) warn(ev *Event, r Reason, key, evidence string) (Warning, bool) {
	key = Fingerprint(key) // short and fixed-size in the state file
	if contains(s.Warned, key) {
		return Warning{}, false
	}
	s.Warned = append(s.Warned, key)
	if len(s.Warned) > maxWarned {
		s.Warned = s.Warned[len(s.Warned)-maxWarned:]
	}
	w := Warning{Reason: r, Time: ev.Time, Task: s.Task, Target: ev.Target, Evidence: evidence}
	s.Warnings = append(s.Warnings, w)
	if len(s.Warnings) > maxWarnings {
		s.Warnings = s.Warnings[len(s.Warnings)-maxWarnings:]
	}
	return w, true
}

// runCheckpoints raises the checkpoints due after a booked call, in the
// order of the list. refused: the call is one the host refused, judged only
// by the rules that say so.
func (s *State) runCheckpoints(ev *Event, cmd *CmdSeen, cmdKey string, cfg *Config, refused bool) []Signal {
	var sigs []Signal
	for _, r := range checkpoints {
		if refused && !r.refused || r.stop != (ev.Kind == KindStop) || r.alone && len(sigs) > 0 || s.raised(r.reason) {
			continue
		}
		if evidence, ok := r.due(s, ev, cmd, cfg); ok {
			key := ""
			switch r.keyed {
			case keyCommand:
				key = cmdKey
			case keyError:
				key = ev.ErrSig
			}
			sigs = append(sigs, s.raise(ev, r.reason, evidence, key)...)
		}
	}
	return sigs
}

// raised reports whether the task's checkpoint for r is already raised in
// this check epoch: a rule due again is not asked (its evidence, written
// with fmt, is the hook's costliest formatting: 13 µs a call, page faults
// of fmt's code and pool included, before this test).
func (s *State) raised(r Reason) bool {
	for _, c := range s.Checkpoints {
		if c.Task == s.Task && c.Reason == r && c.Epoch == s.CheckEpoch {
			return true
		}
	}
	return false
}

// raise opens a checkpoint once per (task, reason, check epoch).
func (s *State) raise(ev *Event, r Reason, evidence, key string) []Signal {
	if s.raised(r) {
		return nil
	}
	s.NextCP++
	cp := Checkpoint{ID: fmt.Sprintf("c%d", s.NextCP), Reason: r, Task: s.Task, Epoch: s.CheckEpoch, Raised: ev.Time, Evidence: evidence, Status: StatusOpen, Key: key}
	s.Checkpoints = append(s.Checkpoints, cp)
	// Closed checkpoints of earlier tasks are history: keep the last few.
	if len(s.Checkpoints) > maxCheckpoints {
		keep := s.Checkpoints[:0]
		for i, c := range s.Checkpoints {
			if c.Status == StatusOpen || i >= len(s.Checkpoints)-keptCheckpoints {
				keep = append(keep, c)
			}
		}
		s.Checkpoints = keep
	}
	return []Signal{{Kind: SignalCheckpoint, Reason: r, ID: cp.ID, Evidence: evidence}}
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
