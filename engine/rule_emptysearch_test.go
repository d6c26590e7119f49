package engine

import (
	"strings"
	"testing"
)

// search is a finished search for term that found n (nil: unknown).
func search(tool, term string, n *int) Event {
	ev := Event{Tool: tool, Class: ClassRead, SearchFP: SearchFP(term), Matches: n, Outcome: OutcomeOK}
	if tool == "Bash" {
		ev.Cmd = "grep -rn " + term + " ."
	}
	return ev
}

func intp(n int) *int { return &n }

func TestEmptySearchRule(t *testing.T) {
	empty := search("Grep", "foo(bar", intp(0))
	found := search("Grep", "foo(bar", intp(2))
	term := empty.SearchFP
	tally := func(n int, note string, due bool) func(s *State) {
		return func(s *State) {
			s.Searches = []Tally{{Key: "other", N: 5}, {Key: term, N: n, Forms: []string{"Grep"}, Note: note, Due: due}}
		}
	}
	filtered := search("Grep", "go-git", intp(0))
	filtered.FilterFP = "glob"
	sub := empty
	sub.Subagent = "a1"
	unknown := empty
	unknown.Matches = nil
	runCheckpointCases(t, emptySearch, []checkpointCase{
		{name: "third empty search", state: tally(3, "", false), ev: empty, evidence: "3 searches for the same term found nothing in this task (Grep)"},
		{name: "and a shell grep found it", state: tally(3, "grep", false), ev: empty, evidence: "3 searches for the same term found nothing in this task (Grep); a search for it with grep did find it"},
		{name: "second empty search", state: tally(2, "", false), ev: empty},
		{name: "already said for this term", state: tally(4, "", true), ev: empty},
		{name: "this search found it", state: tally(3, "", false), ev: found},
		{name: "result unknown", state: tally(3, "", false), ev: unknown},
		{name: "a subagent's search", state: tally(3, "", false), ev: sub},
		{name: "another term's count", state: tally(0, "", false), ev: search("Grep", "other term", intp(0))},
		{name: "third empty search through one filter", state: func(s *State) {
			s.Searches = []Tally{{Key: "filter:glob", N: 3, Forms: []string{"Grep"}}}
		}, ev: filtered, evidence: "3 searches with the same file filter (glob or type) found nothing in this task (Grep)"},
	})
}

func TestEmptySearch(t *testing.T) {
	t.Run("same term, other quoting, then grep finds it", func(t *testing.T) {
		s := newSim(t)
		s.cfg.EmptySearchTell = 3
		s.prompt()
		s.call(search("Grep", `foo\(bar`, intp(0)))
		s.call(search("Bash", `"foo(bar"`, intp(4)))
		s.call(search("Grep", `"foo\\(bar"`, intp(0)))
		s.call(read("a.go"))
		s.call(search("Grep", `'foo\(bar'`, intp(0)))
		n := s.call(read("b.go"))
		if !strings.Contains(n, "3 searches for the same term found nothing in this task (Grep); a search for it with grep did find it") {
			t.Fatalf("nudge %q", n)
		}
		s.call(search("Grep", `foo\(bar`, intp(0)))
		if n := s.call(read("c.go")); strings.Contains(n, "empty-search") {
			t.Fatalf("said twice: %q", n)
		}
	})
	t.Run("different terms through one malformed filter", func(t *testing.T) {
		s := newSim(t)
		s.cfg.EmptySearchTell = 3
		s.prompt()
		through := func(term, filter string, n int) Event {
			ev := search("Grep", term, intp(n))
			ev.FilterFP = filter
			return ev
		}
		s.call(through("go-git/v5", "quoted", 0))
		s.call(through("go-git", "quoted", 0))
		s.call(through("go-git", "", 3)) // without the filter it finds them: the filter's count goes on
		s.call(through(`github\.com/go-git`, "quoted", 0))
		if n := s.call(read("a.go")); !strings.Contains(n, "3 searches with the same file filter (glob or type) found nothing in this task (Grep)") {
			t.Fatalf("nudge %q", n)
		}
	})
	t.Run("a filter that finds something restarts its count", func(t *testing.T) {
		s := newSim(t)
		s.prompt()
		for i, n := range []int{0, 0, 5, 0, 0} {
			ev := search("Grep", string(rune('a'+i))+"term", intp(n))
			ev.FilterFP = "*.go"
			s.call(ev)
		}
		if s.open(ReasonEmptySearch) != 0 {
			t.Fatal("raised")
		}
	})
	t.Run("shown, not told, by default", func(t *testing.T) {
		s := newSim(t)
		s.prompt()
		for i := 0; i < 3; i++ {
			s.call(search("Glob", "**/*.proto", intp(0)))
		}
		if n := s.call(read("a.go")); n != "" || s.open(ReasonEmptySearch) != 1 {
			t.Fatalf("nudge %q, open %d", n, s.open(ReasonEmptySearch))
		}
	})
	t.Run("different terms, or a new task between", func(t *testing.T) {
		s := newSim(t)
		s.cfg.EmptySearchTell = 1
		s.prompt()
		s.call(search("Grep", "alpha", intp(0)))
		s.call(search("Grep", "beta", intp(0)))
		s.prompt()
		s.call(search("Grep", "alpha", intp(0)))
		s.call(search("Grep", "alpha", intp(0)))
		s.call(search("Grep", "gamma", intp(0)))
		if s.open(ReasonEmptySearch) != 0 {
			t.Fatal("no term found nothing three times in one task")
		}
	})
}
