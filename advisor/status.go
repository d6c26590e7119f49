package advisor

import (
	"fmt"
	"time"

	"cully/config"
	"cully/engine"
	"cully/ledger"
	"cully/store"
)

// Status is the advisor's standing for one session: what `cully status`
// prints and the panel shows. It reads the accounting without its lock
// and changes nothing.
type Status struct {
	State string `json:"state"` // off, ready, deferred, waiting
	Why   string `json:"why,omitempty"`
	// Until is when a deferral or a wait ends (null when it ends with a
	// change: a readable file, new evidence).
	Until     *time.Time     `json:"until"`
	Budget    *ledger.Status `json:"budget"`    // null when the accounting cannot be read
	Discovery string         `json:"discovery"` // off, on, disabled (CULLY_DISCOVERY=off)
	// Research is tool-gap research's standing: it runs on the discovery
	// command, so it is what Discovery is.
	Research string `json:"research"`
	// Gaps are the tool gaps the session's evidence shows, and whether
	// each was researched ([] when none).
	Gaps    []GapStatus    `json:"tool_gaps"`
	Pending *engine.Advice `json:"advice"` // the latest advice and whether the agent was told
}

// GapStatus is one tool gap in status.
type GapStatus struct {
	Gap
	// Researched: an attempt was made for it (whatever became of it: the
	// journal's advice events and the ledger say).
	Researched bool `json:"researched"`
}

// StatusOf is a session's advisor standing at now, under the user's
// workers; discoveryOff is CULLY_DISCOVERY=off. describe words a read
// error for people (nil: its own text).
func StatusOf(h store.Home, st *engine.State, w config.Workers, discoveryOff bool, now time.Time, describe func(error) string) Status {
	if describe == nil {
		describe = func(err error) string { return err.Error() }
	}
	r := Status{State: "ready", Pending: st.Advice, Discovery: "off", Gaps: []GapStatus{}}
	switch {
	case len(w.Discovery) > 0 && discoveryOff:
		r.Discovery = "disabled (CULLY_DISCOVERY=off)"
	case len(w.Discovery) > 0:
		r.Discovery = "on"
	}
	r.Research = r.Discovery
	for _, g := range Gaps(st) {
		r.Gaps = append(r.Gaps, GapStatus{Gap: g})
	}
	if len(w.Advisor) == 0 {
		r.State, r.Why = "off", "no [advisor] command in your config: nothing runs, nothing is counted as avoided (`cully advisor setup` proposes one)"
		return r
	}
	b, err := ledger.Files{Home: h}.Read()
	if err != nil {
		r.State, r.Why = "deferred", "accounting unreadable ("+describe(err)+"): optional model work waits until it reads again; the file is left as it is; local rules go on"
		return r
	}
	if now.Unix() < b.Last {
		u := time.Unix(b.Last, 0).UTC()
		r.State, r.Why, r.Until = "deferred", "the clock is before the last recorded timestamp: optional model work waits until it passes it; local rules go on", &u
	}
	s := ledger.StatusOf(b, st.Session, st.Agent, now)
	r.Budget = &s
	for i := range r.Gaps {
		r.Gaps[i].Researched = ledger.Researched(b, st.Session, r.Gaps[i].Hash)
	}
	if r.State == "ready" && s.NextSlot.After(now) {
		u := s.NextSlot
		r.State, r.Until = "waiting", &u
		r.Why = fmt.Sprintf("%d request(s) left this hour; next slot %s", s.Left, u.Format(time.RFC3339))
	}
	return r
}
