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
//	    the task's progress read from the agent's own plan (PlanProgress:
//	    Claude Code's TodoWrite, Codex's update_plan, Gemini CLI's
//	    write_todos); with no plan seen, a run that has modified no file
//	    yet has done none of it. With no token figure it never fires.
//	(c) no progress in the last stallCalls tool calls of a run that has
//	    modified files (active execution: a run still looking around
//	    before its first change is the exploring checkpoint's business).
//	    Progress is a modification, or a check run for the first time
//	    since one: the seed's "no file modified in 10 calls" fired
//	    whenever an agent ran lint and tests after editing. Waiting on a
//	    background task or a subagent, keeping the task list and asking
//	    the user are not counted: on the corpus they made a third of the
//	    rule's windows.
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
	p := r.Budget.Plan
	idle := p == nil && r.Budget.LastMod == 0 // no plan, nothing changed: none of the task is done
	if p != nil && p.Total > 0 && p.Done*5 < p.Total*progressFifths || idle {
		var buf figureBuf
		for _, f := range s.figures(ev.Time, cfg, &buf) {
			if f.Res != ResTokens || !f.Known || f.Limit <= 0 || f.Used*10 <= f.Limit*runawayTenths {
				continue
			}
			done := "no file modified yet"
			if !idle {
				done = fmt.Sprintf("%d of its %s done", p.Done, plural(p.Total, "plan item"))
			}
			r.alert(AlertRunaway, runawayKeyStart+RunawayTokens+":"+strconv.FormatFloat(f.Limit, 'f', -1, 64), fmt.Sprintf(
				"cully runaway: this run has used %s of its %s (%d%%) with %s. Suggested: stop and tell the user what the tokens went on and what remains.",
				quantity(f.Res, f.Used), amount(f.Res, f.Limit), percent(f.Used, f.Limit), done), at, false)
		}
	}
	if b := r.Budget; b.LastMod > 0 && b.Stall >= stallCalls {
		r.alert(AlertRunaway, runawayKeyStart+RunawayStalled+":"+strconv.Itoa(b.LastProgress), fmt.Sprintf(
			"cully runaway: %d tool calls since this run last modified a file or ran a new check (at its call %d). Suggested: say what the calls are for, or summarise and end the turn.",
			b.Stall, b.LastProgress), at, false)
	}
}

// bookRepeat books a repeated-call warning as the runaway it is (rule
// (a)); the guard's own line tells the agent (told: unless the host
// has no channel to it). In enforce mode (the user's choice: a run
// nobody watches is armed with budgets, not with a rule's judgement) it
// halts the run: the call about to repeat is refused.
func (s *State) bookRepeat(ev *Event, w Warning, cfg *Config) {
	r := s.Run
	if r == nil {
		return
	}
	key, text := runawayKeyStart+RunawayRepeat+":"+Fingerprint(w.Evidence, ev.CallFP), "cully runaway: "+w.Evidence
	if r.alert(AlertRunaway, key, text, ev.Time.Unix(), !ev.Quiet) && r.Halted == nil && cfg.Budget.Mode == ModeEnforce && s.tells(key, cfg) {
		r.Halted = &RunNote{At: ev.Time.Unix(), Note: text, By: HaltRunaway}
	}
}
