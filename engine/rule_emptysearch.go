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
// and says whether another search for the term did find it; or when
// searches through the same file filter (Event.FilterFP: a glob written
// with stray quotes finds nothing whatever the term) found nothing that
// often with none finding anything between. Only searches
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
		var term, filter *Tally
		for i := range s.Searches {
			t := &s.Searches[i]
			if emptySearchDue(t) && !t.Due {
				switch t.Key {
				case ev.SearchFP:
					term = t
				case filterKey(ev):
					filter = t
				}
			}
		}
		switch {
		case term != nil:
			evidence := fmt.Sprintf("%d searches for the same term found nothing in this task (%s)", term.N, strings.Join(term.Forms, ", "))
			if term.Note != "" {
				evidence += fmt.Sprintf("; a search for it with %s did find it", term.Note)
			}
			return evidence, true
		case filter != nil:
			return fmt.Sprintf("%d searches with the same file filter (glob or type) found nothing in this task (%s)", filter.N, strings.Join(filter.Forms, ", ")), true
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
