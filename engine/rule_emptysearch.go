package engine

import (
	"fmt"
	"strings"
)

// ReasonEmptySearch: one search term finding nothing, again and again.
const ReasonEmptySearch Reason = "empty-search"

// emptySearchRuns is how many searches for one term must find nothing in
// a task before it is worth saying: twice is a typo fixed on the next try,
// three times the pattern itself (its quoting, its escaping) is the doubt.
const emptySearchRuns = 3

// emptySearch is raised when searches for the same term (Event.SearchFP:
// the pattern's letters and digits, its quoting and escaping set aside)
// found nothing emptySearchRuns times in a task, whatever came between,
// and says whether another search for the term did find it. Only searches
// whose result the host reports count (Event.Matches): Claude Code's Grep
// and Glob, a plain shell grep or rg by its exit status. Once per term.
var emptySearch = checkpointRule{
	reason: ReasonEmptySearch,
	action: "check the pattern's quoting and escaping, or search for a shorter literal part of it",
	alone:  true,
	due: func(s *State, ev *Event, _ *CmdSeen, _ *Config) (string, bool) {
		if ev.Subagent != "" || ev.Matches == nil || *ev.Matches != 0 || ev.SearchFP == "" {
			return "", false
		}
		for i := range s.Searches {
			t := &s.Searches[i]
			if t.Key != ev.SearchFP || !emptySearchDue(t) || t.Due {
				continue
			}
			evidence := fmt.Sprintf("your last %d searches for the same term found nothing (%s)", t.N, strings.Join(t.Forms, ", "))
			if t.Note != "" {
				evidence += fmt.Sprintf("; a search for it with %s did find it", t.Note)
			}
			return evidence, true
		}
		return "", false
	},
	tell: func(s *State, cfg *Config) bool {
		return cfg.EmptySearchTell > 0 && maxTally(s.Searches) >= cfg.EmptySearchTell
	},
}

// emptySearchDue: the term found nothing often enough.
func emptySearchDue(t *Tally) bool { return t.N >= emptySearchRuns }

// maxTally is the largest count of a list's tallies.
func maxTally(list []Tally) int {
	n := 0
	for _, t := range list {
		n = max(n, t.N)
	}
	return n
}
