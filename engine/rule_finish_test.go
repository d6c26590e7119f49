package engine

import "testing"

// The turn-end checkpoints: off by default; with finish_checks, raised at a
// Stop over source code no check ran after, or over a check that failed
// last.
func TestFinishCheckpoints(t *testing.T) {
	stop := func(s *sim) { s.apply(Event{Kind: KindStop}) }
	unknown := check(OutcomeUnknown)
	cases := []struct {
		name   string
		on     bool
		calls  []Event
		reason Reason
		raised bool
	}{
		{"code edited, no check", true, []Event{edit("a.go")}, ReasonFinishUnchecked, true},
		{"off by default", false, []Event{edit("a.go")}, ReasonFinishUnchecked, false},
		{"docs and data only", true, []Event{edit("README.md"), edit("data/repos.json")}, ReasonFinishUnchecked, false},
		{"a build's own file edited", true, []Event{edit("README.md"), edit("go.mod")}, ReasonFinishUnchecked, true},
		{"checked after the edit", true, []Event{edit("a.go"), check(OutcomeFailed)}, ReasonFinishUnchecked, false},
		{"a check failed last", true, []Event{edit("a.go"), check(OutcomeFailed)}, ReasonFinishFailing, true},
		{"passed after failing", true, []Event{edit("a.go"), check(OutcomeFailed), check(OutcomeOK)}, ReasonFinishFailing, false},
		{"unknown after failing", true, []Event{edit("a.go"), check(OutcomeFailed), unknown}, ReasonFinishFailing, false},
		{"failing, nothing edited", true, []Event{check(OutcomeFailed)}, ReasonFinishFailing, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSim(t)
			s.cfg.FinishChecks = c.on
			s.prompt()
			for _, ev := range c.calls {
				s.call(ev)
			}
			stop(s)
			if got := s.open(c.reason) > 0; got != c.raised {
				t.Fatalf("%s raised %v, want %v", c.reason, got, c.raised)
			}
		})
	}
}
