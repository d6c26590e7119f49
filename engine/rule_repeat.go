package engine

import "fmt"

// ReasonRepeat: the same call again, after it already came back the same
// way several times in a row.
const ReasonRepeat Reason = "repeated-call"

// repeatRuns is how many identical calls with identical results in a row
// make the next identical one worth a warning: three, as the agent
// frameworks that stop runaway loops count (OpenHands' stuck detector
// flags the same action and observation repeating; cully warns before the
// fourth, when the agent is about to repeat it again).
const repeatRuns = 3

// repeatedCall warns before a foreground call identical (tool and whole
// input, Event.CallFP) to the last repeatRuns calls, which all returned
// the same (Event.OutFP). Anything different in between breaks the run:
// batch edits across files, a build re-run after a change and bulk work
// over many files are all different calls. Polls are never booked.
// Dedup key: the call and its result.
var repeatedCall = guardRule{
	reason: ReasonRepeat,
	advice: "The next identical call will very likely return the same again: use what it returned, or change the call.",
	check: func(s *State, ev *Event, _ *Config) (string, string, bool) {
		if ev.Subagent != "" || ev.CallFP == "" || ev.Class == ClassPoll || len(s.Recent) < repeatRuns {
			return "", "", false
		}
		last := s.Recent[len(s.Recent)-repeatRuns:]
		for _, r := range last {
			// Repeated failures are the failure loop's and the blind
			// retry's business; this rule is for calls that "work".
			if r.Call != ev.CallFP || r.Out != last[0].Out || r.Failed {
				return "", "", false
			}
		}
		return "repeat\x00" + ev.CallFP + "\x00" + last[0].Out,
			fmt.Sprintf("`%s` ran %d times in a row with the same result", last[0].Preview, repeatRuns),
			true
	},
}
