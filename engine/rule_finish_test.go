package engine

import "testing"

// The turn-end checkpoints: raised at a Stop over source code no check ran
// after, or over a check that failed last, when the closing message claims
// a passing check, or at every such Stop with finish_checks.
func TestFinishCheckpoints(t *testing.T) {
	unknown := check(OutcomeUnknown)
	cases := []struct {
		name    string
		on      bool
		calls   []Event
		reason  Reason
		raised  bool
		closing string
	}{
		{"code edited, no check", true, []Event{edit("a.go")}, ReasonFinishUnchecked, true, ""},
		{"off by default", false, []Event{edit("a.go")}, ReasonFinishUnchecked, false, ""},
		{"docs and data only", true, []Event{edit("README.md"), edit("data/repos.json")}, ReasonFinishUnchecked, false, ""},
		{"a build's own file edited", true, []Event{edit("README.md"), edit("go.mod")}, ReasonFinishUnchecked, true, ""},
		{"checked after the edit", true, []Event{edit("a.go"), check(OutcomeFailed)}, ReasonFinishUnchecked, false, ""},
		{"a check failed last", true, []Event{edit("a.go"), check(OutcomeFailed)}, ReasonFinishFailing, true, ""},
		{"passed after failing", true, []Event{edit("a.go"), check(OutcomeFailed), check(OutcomeOK)}, ReasonFinishFailing, false, ""},
		{"unknown after failing", true, []Event{edit("a.go"), check(OutcomeFailed), unknown}, ReasonFinishFailing, false, ""},
		{"failing, nothing edited", true, []Event{check(OutcomeFailed)}, ReasonFinishFailing, false, ""},
		{"claimed, code unchecked", false, []Event{edit("a.go")}, ReasonFinishUnchecked, true, "Done. All tests pass."},
		{"claimed, checked after the edit", false, []Event{edit("a.go"), check(OutcomeOK)}, ReasonFinishUnchecked, false, "Done. All tests pass."},
		{"claimed, docs only", false, []Event{edit("README.md")}, ReasonFinishUnchecked, false, "Build passes."},
		{"no claim, code unchecked", false, []Event{edit("a.go")}, ReasonFinishUnchecked, false, "Renamed the flag; I have not run the tests."},
		{"claimed, a check failed last", false, []Event{edit("a.go"), check(OutcomeFailed)}, ReasonFinishFailing, true,
			"Build passes. The 4 failing tests are pre-existing."},
		{"claimed, passed after failing", false, []Event{edit("a.go"), check(OutcomeFailed), check(OutcomeOK)}, ReasonFinishFailing, false, "Tests pass."},
		{"honest failure", false, []Event{edit("a.go"), check(OutcomeFailed)}, ReasonFinishFailing, false, "The tests still fail on the parser; I could not fix it."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSim(t)
			s.cfg.FinishChecks = c.on
			s.prompt()
			for _, ev := range c.calls {
				s.call(ev)
			}
			var end Event
			end.Kind = KindStop
			end.SetClosing(c.closing)
			s.apply(end)
			if got := s.open(c.reason) > 0; got != c.raised {
				t.Fatalf("%s raised %v, want %v", c.reason, got, c.raised)
			}
		})
	}
}
