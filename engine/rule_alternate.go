package engine

import "fmt"

// ReasonAlternate: two calls taking turns, each coming back the same.
const ReasonAlternate Reason = "alternating"

// alternateRuns is the length of an A-B-A-B-A-B pattern, counting the call
// about to run: three turns each, as Gemini CLI's and OpenHands' loop
// detectors count a ping-pong (two turns each happen in healthy
// edit-then-check work too).
const alternateRuns = 6

// alternating warns before a foreground call that would make the last
// alternateRuns calls an A-B-A-B-A-B pattern of two different calls (tool
// and whole input), every A with the same result and every B with the same
// result: the agent is going back and forth without getting anywhere.
// Dedup key: the pair and their results.
var alternating = guardRule{
	reason: ReasonAlternate,
	advice: "Going back and forth between the same two calls has not changed either result: step back and try something else.",
	check: func(s *State, ev *Event, _ *Config) (string, string, bool) {
		n := alternateRuns - 1
		if ev.Subagent != "" || ev.CallFP == "" || ev.Class == ClassPoll || len(s.Recent) < n {
			return "", "", false
		}
		r := s.Recent[len(s.Recent)-n:]
		a, b := r[0], r[1]
		if a.Call == b.Call || ev.CallFP != b.Call {
			return "", "", false
		}
		for i, c := range r {
			want := a
			if i%2 == 1 {
				want = b
			}
			if c.Call != want.Call || c.Out != want.Out {
				return "", "", false
			}
		}
		return "alternate\x00" + a.Call + "\x00" + b.Call + "\x00" + a.Out + "\x00" + b.Out,
			fmt.Sprintf("`%s` and `%s` have alternated %d times with the same results", a.Preview, b.Preview, n),
			true
	},
}
