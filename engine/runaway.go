package engine

import (
	"fmt"
	"strconv"
)

// The seed's runaway rules, each raised once per dedup key in the run and
// shown in status:
//
//	(a) 3 consecutive identical tool calls: the repeated-call guard
//	    (rule_repeat.go) already judges exactly this (tool and whole
//	    input, with the same result, before the fourth call); its warning
//	    is booked here as a runaway, not said twice. Identical calls that
//	    fail are the failure loop's (rule_failureloop.go).
//	(b) tokens past 80% of the budget with under 20% of the task done,
//	    the task's progress read from the agent's own plan (PlanProgress);
//	    with no plan seen, or no token figure, it never fires.
//	(c) no file modified in the last 10 tool calls of a run that has
//	    modified files (active execution: a run still looking around
//	    before its first change is the exploring checkpoint's business).
const (
	stallCalls     = 10 // seed 001: no new file modifications in the last 10 tool calls
	runawayTenths  = 8  // seed 001: token usage past 80% of budget …
	progressFifths = 1  // … with under 20% (a fifth) of the task complete
)

// Runaway rule names, in an alert's key.
const (
	RunawayRepeat   = "repeat"
	RunawayTokens   = "tokens-progress"
	RunawayStalled  = "no-modification"
	runawayKeyStart = AlertRunaway + ":"
)

// judgeRunaway raises the runaways (b) and (c) due before a call.
func (s *State) judgeRunaway(ev *Event, cfg *Config) {
	r := s.Run
	at := ev.Time.Unix()
	if p := r.Budget.Plan; p != nil && p.Total > 0 && p.Done*5 < p.Total*progressFifths {
		var buf figureBuf
		for _, f := range s.figures(ev.Time, cfg, &buf) {
			if f.Res != ResTokens || !f.Known || f.Limit <= 0 || f.Used*10 <= f.Limit*runawayTenths {
				continue
			}
			r.alert(AlertRunaway, runawayKeyStart+RunawayTokens+":"+strconv.FormatFloat(f.Limit, 'f', -1, 64), fmt.Sprintf(
				"cully runaway: this run has used %s of its %s (%d%%) with %d of its %s done. Suggested: stop and tell the user what the tokens went on and what remains.",
				quantity(f.Res, f.Used), amount(f.Res, f.Limit), percent(f.Used, f.Limit), p.Done, plural(p.Total, "plan item")), at, false)
		}
	}
	if r.Budget.LastMod > 0 && r.Calls-r.Budget.LastMod >= stallCalls {
		r.alert(AlertRunaway, runawayKeyStart+RunawayStalled+":"+strconv.Itoa(r.Budget.LastMod), fmt.Sprintf(
			"cully runaway: %d tool calls since this run last modified a file (at its call %d). Suggested: say what the calls are for, or summarise and end the turn.",
			r.Calls-r.Budget.LastMod, r.Budget.LastMod), at, false)
	}
}

// bookRepeat books a repeated-call warning as the runaway it is (rule
// (a)); the guard's own line tells the agent.
func (s *State) bookRepeat(ev *Event, w Warning) {
	if s.Run == nil {
		return
	}
	s.Run.alert(AlertRunaway, runawayKeyStart+RunawayRepeat+":"+Fingerprint(w.Evidence, ev.CallFP),
		"cully runaway: "+w.Evidence, ev.Time.Unix(), true)
}
