package engine

import (
	"fmt"
	"strings"
)

// ReasonCycle: the same few calls going round, each coming back the same.
const ReasonCycle Reason = "cycle"

// cycleTurns is how many times a cycle of k calls must go round to count,
// by k: a ping-pong of two calls three times (A-B-A-B-A-B, as Gemini CLI's
// and OpenHands' loop detectors count it; twice happens in healthy
// edit-then-check work), a cycle of three or four calls twice (an edit,
// its revert and a test in between, again and again).
func cycleTurns(k int) int {
	if k == 2 {
		return 3
	}
	return 2
}

// cycle is raised after a foreground call completes a cycle: the last
// k×turns calls are the same k calls (tool and whole input), in the same
// order, each with the same result every time round, for k of 2 to 4.
// Ping-pongs whose calls fail are the failure rules' business; longer
// cycles are not (an edit and its revert failing two ways in turn breaks
// every failure streak). A poll breaks any cycle. Raised once per task
// and check epoch, and not beside another checkpoint of the same call.
var cycle = checkpointRule{
	reason: ReasonCycle,
	action: "step back: going round the same calls has not changed their results",
	alone:  true,
	due: func(s *State, ev *Event, _ *CmdSeen, _ *Config) (string, bool) {
		if ev.Subagent != "" {
			return "", false
		}
		for k := 2; k <= 4; k++ {
			if calls, ok := cycleOf(s.Recent, k, cycleTurns(k)); ok {
				return fmt.Sprintf("the same %d calls (`%s`) went round %d times, each returning the same as before", k, strings.Join(calls, "`, `"), cycleTurns(k)), true
			}
		}
		return "", false
	},
	// Any call that breaks the cycle ends it.
	settled: func(s *State, _ *Checkpoint) bool { return !inCycle(s.Recent) },
}

// cycleOf reports whether the last k×turns recent calls repeat the same k
// distinct (call, result) pairs, and names them. One call may come twice
// with different results (a test failing one way, then the other).
func cycleOf(r []RecentCall, k, turns int) ([]string, bool) {
	n := k * turns
	if len(r) < n {
		return nil, false
	}
	w := r[len(r)-n:]
	var names []string
	failing := 0
	for i := 0; i < k; i++ {
		for j := 0; j < i; j++ {
			if w[i].Call == w[j].Call && w[i].Out == w[j].Out {
				return nil, false // a shorter cycle, or a repeat: another rule's
			}
		}
		names = append(names, w[i].Preview)
		if w[i].Failed {
			failing++
		}
	}
	for i := k; i < n; i++ {
		if w[i].Call != w[i-k].Call || w[i].Out != w[i-k].Out {
			return nil, false
		}
	}
	if k == 2 && failing > 0 {
		return nil, false
	}
	return names, true
}

// inCycle reports whether the recent calls still end in any cycle.
func inCycle(r []RecentCall) bool {
	for k := 2; k <= 4; k++ {
		if _, ok := cycleOf(r, k, cycleTurns(k)); ok {
			return true
		}
	}
	return false
}
