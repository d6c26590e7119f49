package engine

// Tally counts one thing a detector follows within a task: a search term
// that found nothing (State.Searches), a check passing again and again
// (State.Rerun), a program failing with one error (State.ProgFails).
type Tally struct {
	Key   string   `json:"k"`           // what is counted: a fingerprint
	N     int      `json:"n"`           // how many times
	Seq   int      `json:"q,omitempty"` // State.ChangeSeq when the run began (Rerun)
	Forms []string `json:"f,omitempty"` // distinct spellings seen (previews or tool names), up to maxForms
	Note  string   `json:"t,omitempty"` // the rule's own: the tool whose search found the term; a run's outcome; the program
	// Due: its rule's condition held after an earlier call, which raised
	// the checkpoint or (another rule's call) never will: once is enough.
	Due bool `json:"x,omitempty"`
}

const (
	maxForms  = 3 // spellings a tally names: enough for the evidence
	maxTallys = 8 // tallies a list keeps, oldest dropped: a task's handful of search terms and errors
)

// addForm notes a spelling, once.
func (t *Tally) addForm(f string) {
	if f != "" && !contains(t.Forms, f) && len(t.Forms) < maxForms {
		t.Forms = append(t.Forms, f)
	}
}

// tally finds key in list, adding it (and dropping the oldest past the
// cap) when missing; it returns the list and the tally's index.
func tally(list []Tally, key string) ([]Tally, int) {
	for i := range list {
		if list[i].Key == key {
			return list, i
		}
	}
	list = append(list, Tally{Key: key})
	if len(list) > maxTallys {
		list = append(list[:0], list[len(list)-maxTallys:]...)
	}
	return list, len(list) - 1
}

// bookTallies books a finished foreground call for the three detectors.
func (s *State) bookTallies(ev *Event, cfg *Config) {
	if ev.Subagent != "" {
		return
	}
	// A search: its term and its file filter found nothing, or a search
	// found the term (noted), or a search through the filter found
	// something (the filter works: its count restarts).
	if ev.SearchFP != "" && ev.Matches != nil {
		if *ev.Matches == 0 {
			s.emptySearch(ev, ev.SearchFP)
			if ev.FilterFP != "" {
				s.emptySearch(ev, filterKey(ev))
			}
		} else {
			for i := range s.Searches {
				switch s.Searches[i].Key {
				case ev.SearchFP:
					s.Searches[i].Note = searchTool(ev)
				case filterKey(ev):
					s.Searches[i].N = 0
				}
			}
		}
	}
	if ev.Class == ClassCheck {
		s.bookRerun(ev)
		if ev.Outcome == OutcomeFailed && ev.ErrSig != "" {
			if p := program(ev.Cmd); p != "" {
				var i int
				s.ProgFails, i = tally(s.ProgFails, Fingerprint(p, ev.ErrSig))
				t := &s.ProgFails[i]
				t.Due = t.Due || sameFailureDue(t, cfg)
				t.N++
				t.Note = p
				t.addForm(preview(ev))
			}
		}
	}
}

// bookRerun follows the current run of one check: the same plain command
// (PlainFP) run again with nothing changed since the run began. Another
// check, a change, or an outcome that turns (a pass after failures, a
// failure after passes) starts over; an unknown outcome counts as a run
// and turns nothing.
func (s *State) bookRerun(ev *Event) {
	if ev.PlainFP == "" {
		s.Rerun = nil
		return
	}
	out := ""
	if ev.Outcome == OutcomeOK || ev.Outcome == OutcomeFailed {
		out = string(ev.Outcome)
	}
	r := s.Rerun
	if r == nil || r.Key != ev.PlainFP || r.Seq != s.ChangeSeq || out != "" && r.Note != "" && r.Note != out {
		r = &Tally{Key: ev.PlainFP, Seq: s.ChangeSeq}
		s.Rerun = r
	}
	if r.Note == "" {
		r.Note = out
	}
	r.Due = r.Due || rerunDue(r)
	r.N++
	r.addForm(endsPreview(ev))
}

// endsPreview is a command's preview that keeps both its ends when it is
// too long: re-runs differ in their pipeline's tail, which preview clips.
func endsPreview(ev *Event) string {
	r := []rune(ev.Cmd)
	if len(r) <= maxPreview {
		return preview(ev)
	}
	half := maxPreview / 2
	return string(r[:half]) + "…" + string(r[len(r)-half+1:])
}

// searchTool names a search's tool in evidence: Grep, Glob, or the shell
// program (grep, rg …).
func searchTool(ev *Event) string {
	if IsShellTool(ev.Tool) {
		if p := program(ev.Cmd); p != "" {
			if p == "git grep" {
				return p
			}
			return baseName(firstWord(p))
		}
	}
	return ev.Tool
}

// emptySearch counts a search that found nothing under key: its term's,
// or its file filter's.
func (s *State) emptySearch(ev *Event, key string) {
	var i int
	s.Searches, i = tally(s.Searches, key)
	t := &s.Searches[i]
	t.Due = t.Due || emptySearchDue(t)
	t.N++
	t.addForm(searchTool(ev))
}

// filterKey is where a search filter's count lives in State.Searches.
func filterKey(ev *Event) string {
	if ev.FilterFP == "" {
		return ""
	}
	return "filter:" + ev.FilterFP
}
