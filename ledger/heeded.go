package ledger

import (
	"sort"
	"strings"

	"cully/engine"
)

// HeededWindow is how many of the agent's next tool calls a nudge is
// judged by.
const HeededWindow = 5

// HeededRate is, for one kind of nudge, how often the agent's next calls
// did what it suggested: Heeded of Told, judged over HeededWindow calls
// (Open: told so recently that the window is not over yet, not counted).
type HeededRate struct {
	Reason string `json:"reason"`
	Told   int    `json:"told"`
	Heeded int    `json:"heeded"`
	Open   int    `json:"open"`
	// Means is what heeding counts as, for this kind.
	Means string `json:"means"`
}

// heededMeans says, per reason, what the agent's next calls must show.
// Guards: not doing again what the warning was about (the call it was told
// on already runs: cully never blocks); checkpoints that ask for a check-in:
// a question to the user or the end of the turn; the held-back ones: the
// step they suggest.
func heededMeans(reason string) string {
	switch engine.Reason(reason) {
	case engine.ReasonReread, engine.ReasonLargeRead:
		return "the same file not read again"
	case engine.ReasonThirdAttempt, engine.ReasonRepeat, engine.ReasonBroadSearch, engine.ReasonGitInternals, engine.ReasonMachineChange:
		return "the same command or call not run again unchanged"
	case engine.ReasonUnverifiedEdits, engine.ReasonUncheckedCommit:
		return "a check run"
	case engine.ReasonExploring:
		return "an edit or a check"
	}
	return "a question to the user, or the turn ended, without the looping command run again"
}

// Heeded measures, from the journal's events in order, what the nudges
// changed. It is fed every event (Add) and read at the end (Rates).
type Heeded struct {
	open  map[string][]*pendingNudge // per session, nudges still being judged
	rates map[string]*HeededRate
	// raisedOn is, per session and checkpoint id, the command of the call
	// that raised it (a failure loop's command and its check family).
	raisedOn map[string]map[string]callKey
}

// callKey is what makes a later call "the same command again".
type callKey struct{ cmd, family string }

// same reports whether ev runs the command k names.
func (k callKey) same(ev *engine.Event) bool {
	return k.cmd != "" && (ev.CmdFP == k.cmd || ev.CallFP == k.cmd) || k.family != "" && ev.FamilyFP == k.family
}

type pendingNudge struct {
	reasons []string
	target  string  // the file of the call it was told on
	cmd     callKey // its command or call fingerprint, and its check family
	// loops are, per check-in reason, the command whose repetition raised
	// it: run again after the nudge (the call it was told on included), the
	// loop went on, whatever the turn's end says.
	loops map[string]callKey
	calls int // later calls seen
	left  int // calls still to see
	done  map[string]bool
	// skip: told before a call (PreToolUse), whose own result comes next
	// and is not a later step (cully never blocks the call it speaks on).
	skip bool
}

// checkpointsIn are the reasons of the checkpoints a nudge tells: each
// appears as "cully checkpoint cN (reason)".
func checkpointsIn(text string) []string {
	var out []string
	for _, c := range checkpointIDs(text) {
		out = append(out, c[1])
	}
	return out
}

// checkpointIDs are the ids and reasons of the checkpoints a nudge tells.
func checkpointIDs(text string) [][2]string {
	var out [][2]string
	for rest := text; ; {
		i := strings.Index(rest, "cully checkpoint c")
		if i < 0 {
			return out
		}
		rest = rest[i+len("cully checkpoint c"):]
		j := strings.Index(rest, " (")
		k := strings.IndexByte(rest, ')')
		if j < 0 || k < j || strings.Trim(rest[:j], "0123456789") != "" {
			continue
		}
		out = append(out, [2]string{"c" + rest[:j], rest[j+2 : k]})
	}
}

// NewHeeded starts a measurement.
func NewHeeded() *Heeded {
	return &Heeded{open: map[string][]*pendingNudge{}, rates: map[string]*HeededRate{}, raisedOn: map[string]map[string]callKey{}}
}

// Add takes the next event of the journal.
func (h *Heeded) Add(ev *engine.Event) {
	if ev.Subagent != "" {
		return // nudges are told to the foreground agent, and judged by its calls
	}
	// The event ends or advances the nudges of its session first.
	if ps := h.open[ev.Session]; len(ps) > 0 {
		var keep []*pendingNudge
		for _, p := range ps {
			if h.judge(p, ev) {
				keep = append(keep, p)
			}
		}
		h.open[ev.Session] = keep
	}
	for _, s := range ev.Signals {
		if s.Kind == engine.SignalCheckpoint && (ev.CmdFP != "" || ev.FamilyFP != "") {
			if h.raisedOn[ev.Session] == nil {
				h.raisedOn[ev.Session] = map[string]callKey{}
			}
			h.raisedOn[ev.Session][s.ID] = callKey{ev.CmdFP, ev.FamilyFP}
		}
	}
	text := engine.Nudge(ev.Signals)
	if text == "" {
		return
	}
	p := &pendingNudge{target: ev.Target, cmd: callKey{ev.CmdFP, ev.FamilyFP}, left: HeededWindow, done: map[string]bool{}, skip: ev.Kind == engine.KindPreTool}
	if p.cmd.cmd == "" {
		p.cmd.cmd = ev.CallFP
	}
	for _, s := range ev.Signals {
		if s.Kind == engine.SignalGuard && s.Reason != "" {
			p.reasons = append(p.reasons, string(s.Reason))
		}
	}
	for _, c := range checkpointIDs(text) {
		p.reasons = append(p.reasons, c[1])
		if k, ok := h.raisedOn[ev.Session][c[0]]; ok {
			if p.loops == nil {
				p.loops = map[string]callKey{}
			}
			p.loops[c[1]] = k
		}
	}
	for _, r := range p.reasons {
		h.rate(r).Told++
	}
	if len(p.reasons) > 0 {
		h.open[ev.Session] = append(h.open[ev.Session], p)
	}
}

// judge looks at one later event for a pending nudge; it reports whether
// the nudge is still being judged.
func (h *Heeded) judge(p *pendingNudge, ev *engine.Event) bool {
	ends := ev.Kind == engine.KindStop || ev.Kind == engine.KindPrompt || ev.Kind == engine.KindSessionEnd
	call := ev.Kind == engine.KindPostTool
	if call && p.skip {
		// The call it was told on runs (cully never blocks it): no later
		// step for a guard, but a loop's command run again all the same.
		p.skip = false
		for r, k := range p.loops {
			if k.same(ev) {
				p.done[r] = true
			}
		}
		return len(p.done) < len(p.reasons)
	}
	for _, r := range p.reasons {
		if p.done[r] {
			continue
		}
		switch engine.Reason(r) {
		case engine.ReasonReread, engine.ReasonLargeRead:
			if call && ev.Target == p.target && ev.Class == engine.ClassRead {
				p.done[r] = true // read again: not heeded
				continue
			}
		case engine.ReasonThirdAttempt, engine.ReasonRepeat, engine.ReasonBroadSearch, engine.ReasonGitInternals, engine.ReasonMachineChange:
			if call && p.cmd.same(ev) { // the same command, or the same check with other narrowing flags
				p.done[r] = true
				continue
			}
		case engine.ReasonUnverifiedEdits, engine.ReasonUncheckedCommit:
			if call && ev.Class == engine.ClassCheck {
				h.rate(r).Heeded++
				p.done[r] = true
			}
		case engine.ReasonExploring:
			if call && (ev.Class == engine.ClassCheck || ev.Class == engine.ClassEdit) {
				h.rate(r).Heeded++
				p.done[r] = true
			}
		default:
			if k, ok := p.loops[r]; ok && call && k.same(ev) {
				p.done[r] = true // the loop went on: not heeded, whatever follows
				continue
			}
			if call && ev.Class == engine.ClassAsk || ends {
				h.rate(r).Heeded++
				p.done[r] = true
			}
		}
	}
	if call {
		p.left--
		p.calls++
	}
	if p.left > 0 && !ends {
		return len(p.done) < len(p.reasons)
	}
	// The window is over: the guards not broken were heeded.
	for _, r := range p.reasons {
		if p.done[r] {
			continue
		}
		switch engine.Reason(r) {
		case engine.ReasonReread, engine.ReasonLargeRead:
			h.rate(r).Heeded++
		case engine.ReasonThirdAttempt, engine.ReasonRepeat, engine.ReasonBroadSearch, engine.ReasonGitInternals, engine.ReasonMachineChange:
			// The warned call ran anyway; a turn that ends before any other
			// call changed nothing: no sign the warning was heeded.
			if p.calls > 0 {
				h.rate(r).Heeded++
			}
		}
		p.done[r] = true
	}
	return false
}

func (h *Heeded) rate(reason string) *HeededRate {
	r := h.rates[reason]
	if r == nil {
		r = &HeededRate{Reason: reason, Means: heededMeans(reason)}
		h.rates[reason] = r
	}
	return r
}

// Rates are the figures so far, by reason; nudges whose window is not
// over count as Open, not as told.
func (h *Heeded) Rates() []HeededRate {
	for _, ps := range h.open {
		for _, p := range ps {
			for _, r := range p.reasons {
				if !p.done[r] {
					h.rate(r).Open++
					h.rate(r).Told--
				}
			}
		}
	}
	h.open = map[string][]*pendingNudge{}
	out := make([]HeededRate, 0, len(h.rates))
	for _, r := range h.rates {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Reason < out[j].Reason })
	return out
}
