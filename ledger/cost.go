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

// Sessions are the figures of the sessions that were told a nudge, the
// costliest first.
func (c *Costs) Sessions() []SessionCost {
	var out []SessionCost
	for _, s := range c.by {
		if s.Nudges == 0 {
			continue
		}
		r := s.SessionCost
		if r.HostInputTokens != nil && *r.HostInputTokens > 0 {
			v := float64(r.Tokens+r.Resent) / float64(*r.HostInputTokens)
			r.Share = &v
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
