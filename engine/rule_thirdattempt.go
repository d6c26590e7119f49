package engine

import "fmt"

// ReasonThirdAttempt: a blind retry of a command that keeps failing.
const ReasonThirdAttempt Reason = "third-attempt"

// thirdAttempt warns before a command that failed on each of its last
// cfg.BlindRetryFailures runs is run again with nothing changed since: no
// edit and no file seen to change across those failures and after them.
// Dedup key: the command and the change count, so it warns again once
// something changed and the command failed again as often.
var thirdAttempt = guardRule{
	reason: ReasonThirdAttempt,
	advice: "A third identical run will likely fail the same way: change something first, or try a different approach.",
	check: func(s *State, ev *Event, cfg *Config) (string, string, bool) {
		if !tracksCommand(ev) {
			return "", "", false
		}
		c := s.Commands[ev.CmdFP]
		if c == nil || c.Fails < cfg.BlindRetryFailures || !s.unchangedSince(c, cfg) {
			return "", "", false
		}
		return fmt.Sprintf("retry\x00%s\x00%d", ev.CmdFP, s.ChangeSeq),
			fmt.Sprintf("`%s` failed on its last %d runs and nothing changed since", c.Preview, c.Fails),
			true
	},
}

// unchangedSince reports whether no edit or file change happened across the
// command's recent failures and since the last of them.
func (s *State) unchangedSince(c *CmdSeen, cfg *Config) bool {
	n := cfg.BlindRetryFailures
	if len(c.ChangeAt) < n {
		return false
	}
	for _, at := range c.ChangeAt[len(c.ChangeAt)-n:] {
		if at != s.ChangeSeq {
			return false
		}
	}
	return true
}
