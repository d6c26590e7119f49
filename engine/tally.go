package engine

// Tally counts one thing a detector follows within a task: a search term
// that found nothing (State.Searches), a check passing again and again
// (State.Rerun), a program failing with one error (State.ProgFails).
type Tally struct {
	Key   string   `json:"k"`           // what is counted: a fingerprint
	N     int      `json:"n"`           // how many times
	Seq   int      `json:"q,omitempty"` // State.ChangeSeq when the run began (Rerun)
	Forms []string `json:"f,omitempty"` // distinct spellings seen (previews or tool names), up to maxForms
	Note  string   `json:"t,omitempty"` // the rule's own: the tool whose search found the term; the program
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
	// A search: the term found nothing, or a search found it.
	if ev.SearchFP != "" && ev.Matches != nil {
		if *ev.Matches == 0 {
			var i int
			s.Searches, i = tally(s.Searches, ev.SearchFP)
			t := &s.Searches[i]
			t.Due = t.Due || emptySearchDue(t)
			t.N++
			t.addForm(searchTool(ev))
		} else {
			for i := range s.Searches {
				if s.Searches[i].Key == ev.SearchFP {
					s.Searches[i].Note = searchTool(ev)
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

// bookRerun follows the current run of one passing check: the same plain
// command (PlainFP) passing, with nothing changed since the run began. A
// failure, another check or a change starts over; a run whose outcome is
// unknown neither counts nor breaks it.
func (s *State) bookRerun(ev *Event) {
	switch {
	case ev.Outcome == OutcomeUnknown:
		return
	case ev.Outcome != OutcomeOK || ev.PlainFP == "":
		s.Rerun = nil
		return
	}
	r := s.Rerun
	if r == nil || r.Key != ev.PlainFP || r.Seq != s.ChangeSeq {
		r = &Tally{Key: ev.PlainFP, Seq: s.ChangeSeq}
		s.Rerun = r
	}
	r.Due = r.Due || rerunDue(r)
	r.N++
	r.addForm(preview(ev))
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

func firstWord(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' {
			return s[:i]
		}
	}
	return s
}
