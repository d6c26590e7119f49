package ledger

import (
	"sort"

	"cully/engine"
)

// SessionCost is what the nudges told to one session cost its agent's
// context. A nudge's text is sent to the model once when told, and then
// again in every later model request of the session, since each request
// carries the whole conversation (most hosts bill the re-sent part as cache
// reads) until a compaction or a new context folds it away. Every figure
// is an estimate (Estimate).
type SessionCost struct {
	Session string `json:"session"`
	Agent   string `json:"agent,omitempty"`
	Nudges  int    `json:"nudges"`
	Tokens  int    `json:"tokens_estimated"`        // the nudges' text, once each
	Resent  int    `json:"resent_tokens_estimated"` // the same text in the session's later requests
	// Requests is how many model requests came after the first nudge:
	// each tool result the agent sent back (Claude Code: each batch of
	// results) is followed by one.
	Requests int `json:"later_requests"`
	// HostInputTokens is the host's own count of the session's input
	// tokens, cache reads included, when it reports one (status line,
	// rollout); Share is (Tokens+Resent) of it. Both absent when unknown.
	HostInputTokens *int64   `json:"host_input_tokens,omitempty"`
	Share           *float64 `json:"share_of_host_input,omitempty"`
	// The advisor's figures for the session (Sum of its ledger entries):
	// analyses skipped and requests spent, in estimated prompt tokens, and
	// the same as shares of the host's input tokens where known.
	AvoidedTokens int      `json:"avoided_tokens_estimated"`
	SpentTokens   int      `json:"spent_tokens_estimated"`
	AvoidedShare  *float64 `json:"avoided_share_of_host_input,omitempty"`
	SpentShare    *float64 `json:"spent_share_of_host_input,omitempty"`
}

// Costs adds up SessionCost per session from the journal's events in
// order (Add), read at the end (Sessions).
type Costs struct {
	by map[string]*costState
}

type costState struct {
	SessionCost
	live    int  // tokens of the nudges still in the context
	batches bool // the host reports batches of tool results: count those as requests
	// What the tool results since the last batch added, counted one
	// request each until the host shows it reports batches.
	postTokens, postRequests int
}

// NewCosts starts a count.
func NewCosts() *Costs { return &Costs{by: map[string]*costState{}} }

// Add takes the next event of the journal.
func (c *Costs) Add(ev *engine.Event) {
	if ev.Session == "" {
		return
	}
	s := c.by[ev.Session]
	if s == nil {
		s = &costState{SessionCost: SessionCost{Session: ev.Session, Agent: ev.Agent}}
		c.by[ev.Session] = s
	}
	if ev.Subagent != "" {
		return // a subagent's requests carry its own context, not the nudges told to the agent
	}
	switch ev.Kind {
	case engine.KindBatch:
		if !s.batches { // the results before it were one request, not one each
			s.batches = true
			s.Resent -= s.postTokens
			s.Requests -= s.postRequests
		}
		s.request()
	case engine.KindPostTool:
		if !s.batches && s.live > 0 {
			s.request()
			s.postTokens += s.live
			s.postRequests++
		}
	case engine.KindCompact:
		s.live = 0 // the conversation is summarised: the nudges' text goes with it
	case engine.KindSessionStart:
		if ev.Source == "clear" || ev.Source == "compact" {
			s.live = 0
		}
	}
	if ev.Usage != nil && ev.Usage.InputTokens != nil {
		v := *ev.Usage.InputTokens
		s.HostInputTokens = &v
	}
	for _, sig := range ev.Signals {
		if sig.Kind == engine.SignalNudge {
			t := Tokens(len(sig.Text))
			s.Nudges++
			s.Tokens += t
			s.live += t
		}
	}
}

func (s *costState) request() {
	if s.live > 0 {
		s.Resent += s.live
		s.Requests++
	}
}

// AddEntries takes the advisor's ledger entries into their sessions'
// figures.
func (c *Costs) AddEntries(es []Entry) {
	for _, e := range es {
		s := c.by[e.Session]
		if s == nil {
			s = &costState{SessionCost: SessionCost{Session: e.Session}}
			c.by[e.Session] = s
		}
		t := Sum([]Entry{e})
		s.AvoidedTokens += t.AvoidedTokens
		s.SpentTokens += t.SpentTokens
	}
}

// Sessions are the figures of the sessions that were told a nudge or had
// the advisor's attention, the costliest first.
func (c *Costs) Sessions() []SessionCost {
	var out []SessionCost
	for _, s := range c.by {
		if s.Nudges == 0 && s.AvoidedTokens == 0 && s.SpentTokens == 0 {
			continue
		}
		r := s.SessionCost
		if h := r.HostInputTokens; h != nil && *h > 0 {
			share := func(n int) *float64 { v := float64(n) / float64(*h); return &v }
			r.Share = share(r.Tokens + r.Resent)
			if r.AvoidedTokens > 0 {
				r.AvoidedShare = share(r.AvoidedTokens)
			}
			if r.SpentTokens > 0 {
				r.SpentShare = share(r.SpentTokens)
			}
		} else {
			r.HostInputTokens = nil
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Tokens+out[i].Resent, out[j].Tokens+out[j].Resent
		if a != b {
			return a > b
		}
		return out[i].Session < out[j].Session
	})
	return out
}
