package engine

import (
	"fmt"
	"strconv"
)

// ReasonIdleLoop: turns keep ending with no tool call and the same closing
// message — an automation (a goal or autopilot mode, a /loop, a "ralph"
// Stop hook that blocks the stop and re-feeds the prompt) keeps
// continuing an agent that has nothing left to do but say so again.
const ReasonIdleLoop Reason = "idle-loop"

// idleSketchBits is how far apart (in bits, SketchDistance) two closing
// messages' sketches may be and still count as the same message. Measured
// with `go run ./bench/closings` on the development corpus (990 closing
// messages of 136 sessions): consecutive closings of healthy sessions are
// within 8 bits 0.9% of the time, all but 0.1 point of it messages equal
// once normalised ("No findings." after each review); a message with one
// word dropped or added, or its last sentence cut, is within 8 bits 90.6%
// of the time (within 10: 94.4%, against 3.2% of healthy pairs).
const idleSketchBits = 8

// The idle-loop rule, judged at each turn's end of the foreground agent
// (KindStop). It counts the turns in a row that ended with no tool call
// since the turn end before (no pre-tool, post-tool or refused call, the
// subagents' included) and whose closing messages are near-identical (the
// same fingerprint, or sketches within idleSketchBits), or each say that
// the agent is paused, blocked, waiting for the user or done. At
// cfg.IdleTurns of them (default 3) it fires:
//
//   - attended: a checkpoint, its evidence stated as fact ("the last 3
//     turns ended with no tool call and the same closing message");
//     told to the agent with the next prompt that repeats the last one;
//   - unattended: the agent is told once, with the next prompt (the one
//     channel to the model a turn-less loop has); at the next such turn
//     end, in enforce mode, the run halts (`cully resume` lets it go on).
//     A loop that sends no prompt (a Stop hook that blocks the stop) has
//     no channel to tell it on: it halts at that next turn end all the
//     same, and the note says the agent could not be told.
//
// Why 3: one turn that ends "Done." is the norm; a second alike can be the
// user asking twice. A third with nothing done in between is what every
// public report of this failure shows before it runs for hours (each turn
// a full model call): Claude Code's own cap on a Stop hook's blocks is 8
// (CLAUDE_CODE_STOP_HOOK_BLOCK_CAP), and cully halts at the 4th. Replayed
// over the development corpus, no healthy session reaches 3
// (docs/rules.md, "Idle loop").
//
// A tool call resets the count, and so does a user prompt that differs
// from the one before: the user steered. The same prompt again is an
// automation re-sending it and resets nothing. A turn whose closing
// message the host does not give (Copilot CLI) ends the count: unknown is
// no evidence.
var idleLoop = checkpointRule{
	reason: ReasonIdleLoop,
	action: "say once what would let the work go on (an answer, an outside event) or that it is finished, and end the turns that repeat it",
	// Raised at a turn's end (idleEnd), never after a booked call.
	due: func(*State, *Event, *CmdSeen, *Config) (string, bool) { return "", false },
	// Never nudged before a tool call: the call itself ends the loop.
	holds:   func(*Event) bool { return true },
	settled: func(s *State, _ *Checkpoint) bool { return s.Idle == nil || s.Idle.Acted },
}

// IdleRun is what the idle-loop rule follows across events (State.Idle).
type IdleRun struct {
	// Same is the turns in a row with no tool call between whose closing
	// messages are alike, Stuck those that each said the agent is paused,
	// blocked, waiting or done; Forced how many of the turns since the
	// count began a Stop hook forced on.
	Same   int `json:"same,omitempty"`
	Stuck  int `json:"stuck,omitempty"`
	Forced int `json:"forced,omitempty"`
	// The last turn end's closing message (Event.EndFP, EndSketch, EndSays).
	FP     string `json:"fp,omitempty"`
	Sketch string `json:"sketch,omitempty"`
	Says   string `json:"says,omitempty"`
	// Prompt is the last user prompt's fingerprint.
	Prompt string `json:"prompt,omitempty"`
	// Acted: a tool call since the last turn end.
	Acted bool `json:"acted,omitempty"`
	// Raised: the rule fired for this count (a checkpoint, or the note for
	// an unattended run); Tell: the note waits for a channel to the model;
	// Told: it was delivered.
	Raised bool `json:"raised,omitempty"`
	Tell   bool `json:"tell,omitempty"`
	Told   bool `json:"told,omitempty"`
}

// turns is the count that decides.
func (i *IdleRun) turns() int { return max(i.Same, i.Stuck) }

// restart forgets the count (the closing message and the prompt stay: the
// next turn end is compared with them).
func (i *IdleRun) restart() {
	i.Same, i.Stuck, i.Forced = 0, 0, 0
	i.Raised, i.Tell, i.Told = false, false, false
}

// idleActed notes a tool call: the loop, if any, is broken.
func (s *State) idleActed() {
	if s.Idle != nil {
		s.Idle.Acted = true
		s.Idle.Tell = false
	}
}

// idleEvidence states what was seen, as fact.
func (i *IdleRun) evidence() string {
	n := i.turns()
	what := "the same closing message"
	if i.Same < n {
		what = "a closing message that says the agent is " + i.saysWord()
	}
	e := fmt.Sprintf("the last %d turns ended with no tool call and %s", n, what)
	if i.Forced > 0 {
		e += fmt.Sprintf(" (%d of them continued by a Stop hook, not by the user)", i.Forced)
	}
	return e
}

func (i *IdleRun) saysWord() string {
	switch i.Says {
	case SaysWaiting:
		return "waiting for the user"
	case "":
		return "paused, blocked, waiting or done"
	}
	return i.Says
}

// idleEnd judges a turn's end.
func (s *State) idleEnd(ev *Event, cfg *Config) []Signal {
	if ev.Subagent != "" {
		return nil
	}
	if s.Idle == nil {
		s.Idle = &IdleRun{}
	}
	i := s.Idle
	if i.Acted {
		i.restart()
		i.Acted = false
	}
	if ev.EndFP == "" { // no closing message: nothing to compare
		i.restart()
		i.FP, i.Sketch, i.Says = "", "", ""
		return nil
	}
	alike := i.FP != "" && (ev.EndFP == i.FP || SketchDistance(ev.EndSketch, i.Sketch) <= idleSketchBits)
	if !alike && (ev.EndSays == "" || i.Stuck == 0) { // this turn continues no count: a new one begins
		i.restart()
	}
	if alike {
		i.Same++
	} else {
		i.Same = 1
	}
	if ev.EndSays != "" {
		i.Stuck++
	} else {
		i.Stuck = 0
	}
	if ev.Forced {
		i.Forced++
	}
	i.FP, i.Sketch, i.Says = ev.EndFP, ev.EndSketch, ev.EndSays
	if i.turns() < cfg.IdleTurns {
		return nil
	}
	switch {
	case s.attended():
		if i.Raised {
			return nil
		}
		i.Raised = true
		return s.raise(ev, ReasonIdleLoop, i.evidence(), "")
	case !i.Raised:
		i.Raised, i.Tell = true, true
		return nil
	case s.Run != nil && s.Run.Halted == nil && cfg.Budget.enforces(false):
		told := "cully told the agent so after the " + ordinal(cfg.IdleTurns) + " and it went on the same way"
		if !i.Told {
			told = "no prompt came between the turns to tell the agent on"
		}
		note := "cully: " + i.evidence() + "; " + told + ". `cully resume --reason TEXT` lets the run go on."
		s.Run.Halted = &RunNote{At: ev.Time.Unix(), Note: note, By: HaltRunaway}
		i.Tell = false
		return nil // Apply answers a halted run's turn end with SignalHalt
	}
	return nil
}

// idlePrompt folds a user prompt into the count, before it opens a task: a
// prompt that differs from the last one resets it; the same one again is
// an automation and does not. It returns what the agent is told with this
// prompt: the idle-loop checkpoint still open (attended) or the note kept
// for it (unattended), once.
func (s *State) idlePrompt(ev *Event, cfg *Config) []Signal {
	if ev.Subagent != "" {
		return nil
	}
	if s.Idle == nil {
		if ev.PromptFP == "" { // nothing to remember, nothing to reset
			return nil
		}
		s.Idle = &IdleRun{}
	}
	i := s.Idle
	same := ev.PromptFP != "" && ev.PromptFP == i.Prompt
	i.Prompt = ev.PromptFP
	if !same {
		i.restart()
		return nil
	}
	if ev.Quiet {
		return nil
	}
	var text string
	switch {
	case i.Tell:
		i.Tell, i.Told = false, true
		text = "cully: " + i.evidence() + " (an automation re-sends this prompt)."
		if s.Run != nil && s.Run.Halted == nil && cfg.Budget.enforces(s.attended()) {
			text += " Another such turn halts this run (enforce mode)."
		}
		text += " Suggested: act on the task with a tool call, or say in one line what would let it go on, once."
	default:
		for k := range s.Checkpoints {
			c := &s.Checkpoints[k]
			if c.Reason == ReasonIdleLoop && c.Status == StatusOpen && !c.Nudged {
				c.Nudged = true
				text = composeNudge([]*Checkpoint{c}, nil, nil, s.attended(), cfg)
			}
		}
	}
	if text == "" {
		return nil
	}
	s.Counts.Nudges++
	return []Signal{{Kind: SignalNudge, Text: text}}
}

// ordinal: "3rd".
func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(n) + suffix
}
