package engine

import (
	"strings"
	"testing"
)

func TestThirdAttemptGuard(t *testing.T) {
	t.Run("blind retry", func(t *testing.T) {
		s := newSim(t)
		s.prompt()
		s.call(fail("make", "x"))
		if n := s.call(fail("make", "x")); n != "" {
			t.Fatalf("second attempt: %q", n)
		}
		n := s.call(fail("make", "y"))
		if !strings.Contains(n, "failed on its last 2 runs") {
			t.Fatalf("third attempt: %q", n)
		}
	})
	t.Run("retry after an edit", func(t *testing.T) {
		s := newSim(t)
		s.prompt()
		s.call(fail("make", "x"))
		s.call(fail("make", "x"))
		s.call(edit("a.go"))
		if n := s.call(fail("make", "x")); strings.Contains(n, "failed on its last") {
			t.Fatalf("a retry after a fix is not blind: %q", n)
		}
	})
	t.Run("deduplicated", func(t *testing.T) {
		s := newSim(t)
		s.prompt()
		s.call(fail("make", "x"))
		s.call(fail("make", "x"))
		s.call(fail("make", "y"))
		if n := s.call(fail("make", "z")); strings.Contains(n, "failed on its last") {
			t.Fatalf("same situation, warned once: %q", n)
		}
	})
}

func TestThirdAttemptRule(t *testing.T) {
	// history: the command "make" (fp-make) failed at these change counts,
	// and the session's change count is now seq.
	history := func(seq int, fails int, changeAt ...int) func(s *State) {
		return func(s *State) {
			s.ChangeSeq = seq
			s.Commands["fp-make"] = &CmdSeen{Preview: "make", Runs: fails, Fails: fails, SigStreak: fails, LastSig: "x", ChangeAt: changeAt}
		}
	}
	run := Event{Time: ruleNow, Kind: KindPreTool, Tool: "Bash", Class: ClassCheck, Cmd: "make", CmdFP: "fp-make"}
	poll, noFP := run, run
	poll.Class = ClassPoll
	noFP.CmdFP = ""
	three := func(c *Config) { c.BlindRetryFailures = 3 }
	runGuardCases(t, thirdAttempt, []guardCase{
		{name: "two failures, nothing changed", state: history(3, 2, 3, 3), ev: run, evidence: "`make` failed on its last 2 runs and nothing changed since"},
		{name: "older failures changed, the last two did not", state: history(3, 4, 1, 2, 3, 3), ev: run, evidence: "`make` failed on its last 4 runs and nothing changed since"},
		{name: "one failure", state: history(3, 1, 3), ev: run},
		{name: "a change between the failures", state: history(3, 2, 2, 3), ev: run},
		{name: "a change since the last failure", state: history(4, 2, 3, 3), ev: run},
		{name: "never failed", ev: run},
		{name: "threshold 3, two failures", state: history(3, 2, 3, 3), cfg: three, ev: run},
		{name: "threshold 3, three failures", state: history(3, 3, 3, 3, 3), cfg: three, ev: run, evidence: "`make` failed on its last 3 runs and nothing changed since"},
		// A command keeps maxFailChanges change counts: a higher threshold cannot be judged.
		{name: "threshold above the kept history", state: history(3, 6, 3, 3, 3, 3), cfg: func(c *Config) { c.BlindRetryFailures = maxFailChanges + 1 }, ev: run},
		{name: "a poll", state: history(3, 2, 3, 3), ev: poll},
		{name: "no fingerprint", state: history(3, 2, 3, 3), ev: noFP},
	})
}

// The key is the command and the change count: once something changed and
// the command failed as often again, it is warned again.
func TestThirdAttemptKey(t *testing.T) {
	s := NewState("s")
	s.ensure()
	s.Commands["fp-make"] = &CmdSeen{Preview: "make", Fails: 2, ChangeAt: []int{3, 3}}
	s.Commands["fp-test"] = &CmdSeen{Preview: "go test", Fails: 2, ChangeAt: []int{3, 3}}
	s.ChangeSeq = 3
	run := Event{Kind: KindPreTool, Class: ClassRun, CmdFP: "fp-make"}
	base := keyOf(t, thirdAttempt, s, run)
	other := run
	other.CmdFP = "fp-test"
	if keyOf(t, thirdAttempt, s, other) == base {
		t.Error("another command: same key")
	}
	s.ChangeSeq = 5
	s.Commands["fp-make"].ChangeAt = []int{3, 3, 5, 5}
	if keyOf(t, thirdAttempt, s, run) == base {
		t.Error("a later change count: same key")
	}
}

// A configured threshold past the remembered history is clamped, not
// allowed to switch the guard off.
func TestThirdAttemptThresholdClamped(t *testing.T) {
	c := DefaultConfig()
	c.BlindRetryFailures = 9
	if got := c.Sanitize().BlindRetryFailures; got != maxFailChanges {
		t.Errorf("clamped to %d, want %d", got, maxFailChanges)
	}
}
