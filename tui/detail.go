package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"

	"cully/engine"
)

// field is one labelled paragraph of a details view.
type field struct {
	label string
	text  string
	style func(...string) string
}

// fields lays out labelled paragraphs: the label in a column beside its
// wrapped text where the pane is wide enough, above it where it is not.
func (m Model) fields(w int, fs []field) []string {
	s := m.styles
	lw := 0
	for _, f := range fs {
		lw = max(lw, width(f.label))
	}
	var out []string
	beside := w >= 44
	for _, f := range fs {
		st := f.style
		if st == nil {
			st = s.Text.Render
		}
		if !beside {
			out = append(out, s.Dim.Render(f.label))
			for _, l := range wrapIndent(f.text, w, 2) {
				out = append(out, st(l))
			}
			continue
		}
		lines := wrap(f.text, w-lw-2)
		for i, l := range lines {
			lab := strings.Repeat(" ", lw)
			if i == 0 {
				lab = pad(f.label, lw)
			}
			out = append(out, s.Dim.Render(lab)+"  "+st(l))
		}
	}
	return out
}

// detailLines is the selected item in full: everything the panel knows
// of it, wrapped, never cut. With nothing selected, the session.
func (m Model) detailLines(w int) []string {
	it, ok := m.selected()
	switch {
	case !ok:
		return m.sessionDetail(w)
	case it.cp != nil:
		return m.checkpointDetail(w, it)
	case it.run != nil:
		return m.runDetail(w, it.run)
	case it.adv:
		return m.advisorDetail(w)
	}
	return m.guardDetail(w, it)
}

func (m Model) checkpointDetail(w int, it item) []string {
	s, now, c := m.styles, m.now, it.cp
	ss := m.sess[m.follow]
	reason := s.Strong.Render(string(c.Reason))
	switch {
	case c.Status == engine.StatusOpen && c.Reason.Activity():
		reason = s.Text.Render("◦ " + string(c.Reason) + " (activity)")
	case c.Status == engine.StatusOpen:
		reason = s.Accent.Render("⚑ " + string(c.Reason))
	}
	out := []string{m.sectionHead(w, "Checkpoint "+c.ID, reason), s.Dim.Render(cut(m.closeHint(), w)), ""}

	status := string(c.Status)
	stStyle := s.Text.Render
	closedAt := ""
	if c.Closed != nil {
		closedAt = " " + when(now, *c.Closed)
	}
	switch {
	case m.isPending(m.follow, c.ID):
		status = "acknowledging: written when the undo window ends (u undoes)"
	case c.Status == engine.StatusOpen:
		status, stStyle = "open: waiting for you (a acknowledges)", s.Accent.Render
	case c.Status == engine.StatusAcked:
		status += closedAt + ": you marked it seen"
	case c.Status == engine.StatusAnswered:
		status += closedAt + ": your next prompt after the agent was told answered it"
	case c.Status == engine.StatusSuperseded:
		status += closedAt + ": a new task began before it reached the agent"
	case c.Status == engine.StatusResolved:
		status, stStyle = status+closedAt+": its condition ended (the check passed, the agent acted, the command succeeded)", s.Good.Render
	default:
		status += closedAt
	}
	fs := []field{
		{"status", status, stStyle},
		{"raised", fmt.Sprintf("%s · task %d · check epoch %d", when(now, c.Raised), c.Task, c.Epoch), nil},
		{"evidence", clean(c.Evidence), nil},
	}
	if a := engine.Action(c.Reason); a != "" {
		fs = append(fs, field{"suggested", a, nil})
	}
	n, found := ss.toldBy(it)
	var told string
	switch {
	case c.Nudged && found:
		told = "yes, " + when(now, n.at)
	case c.Nudged:
		told = "yes (" + nudgeOlderNote + ")"
	case c.Status == engine.StatusOpen && (c.Asked || m.isTelling(m.follow, c.ID)):
		told = "not yet: you asked (t); it is told before the agent's next tool call"
	case c.Status == engine.StatusOpen:
		told = toldNextCallNote + "; " + shownNotTold + " (t tells it)"
	default:
		told = notToldClosed
	}
	fs = append(fs, field{"agent told", told, nil})
	out = append(out, m.fields(w, fs)...)
	if found {
		out = append(out, m.quoted(w, n.text)...)
	}
	if c.Status == engine.StatusOpen {
		out = append(out, "", s.Dim.Render(cut("a acknowledges · or run: cully ack "+c.ID, w)))
	}
	return out
}

func (m Model) guardDetail(w int, it item) []string {
	s, now, g := m.styles, m.now, it.g
	ss := m.sess[m.follow]
	out := []string{m.sectionHead(w, "Guard warning", s.Strong.Render(string(g.Reason))), s.Dim.Render(cut(m.closeHint(), w)), ""}
	fs := []field{{"raised", fmt.Sprintf("%s · task %d", when(now, g.Time), g.Task), nil}}
	if g.Target != "" {
		fs = append(fs, field{"target", clean(g.Target), nil})
	}
	fs = append(fs, field{"evidence", clean(freshen(g.Evidence, g.Time, now)), nil})
	n, found := ss.toldBy(it)
	told := "no: " + guardsOffNote
	switch {
	case g.Nudged && found:
		told = "yes, " + when(now, n.at) + ", before the call it warned about"
	case g.Nudged:
		told = "yes (" + nudgeOlderNote + ")"
	}
	fs = append(fs, field{"agent told", told, nil})
	out = append(out, m.fields(w, fs)...)
	if found {
		out = append(out, m.quoted(w, n.text)...)
	}
	return out
}

// quoted is the nudge exactly as the agent received it, behind a gutter.
func (m Model) quoted(w int, text string) []string {
	s := m.styles
	out := []string{"", s.Dim.Render("what the agent was told:")}
	for _, l := range cleanText(text) {
		for _, wl := range wrap(l, w-2) {
			out = append(out, s.Quote.Render("│ ")+s.Text.Render(wl))
		}
	}
	return out
}

func (m Model) closeHint() string {
	if m.width >= wideFrom {
		return "j/k: another item"
	}
	return "esc closes · j/k: another item"
}

// sessionDetail is the followed session in figures: the wide layout's
// right pane when nothing is selected.
func (m Model) sessionDetail(w int) []string {
	s, now := m.styles, m.now
	ss := m.sess[m.follow]
	st := ss.state
	out := []string{m.sectionHead(w, "Session", s.Dim.Render(clean(st.Session))), ""}
	c := st.Counts
	fs := []field{}
	if st.Cwd != "" {
		fs = append(fs, field{"directory", clean(st.Cwd), nil})
	}
	if !st.Started.IsZero() {
		fs = append(fs, field{"started", when(now, st.Started), nil})
	}
	fs = append(fs,
		field{"calls", fmt.Sprintf("%d: read %d · edit %d · check %d · run %d · poll %d · other %d", c.ToolCalls,
			c.ByClass[engine.ClassRead], c.ByClass[engine.ClassEdit], c.ByClass[engine.ClassCheck], c.ByClass[engine.ClassRun], c.ByClass[engine.ClassPoll], c.ByClass[engine.ClassOther]), nil},
		field{"checks", fmt.Sprintf("%d passed · %d failed · %d unknown", c.ChecksOK, c.ChecksFailed, c.ChecksUnknown), nil},
		field{"files read", fmt.Sprint(c.FilesRead), nil},
		field{"nudges", fmt.Sprintf("%d · prompts %d · compactions %d · subagents %d", c.Nudges, c.Prompts, c.Compactions, c.Subagents), nil},
	)
	out = append(out, m.fields(w, fs)...)
	out = append(out, "", s.Dim.Render(cut("j/k selects an item to read it here", w)))
	return out
}

// helpLines is the ? overlay: the keys, the activity legend, and what a
// checkpoint's status means.
func (m Model) helpLines(w int) []string {
	s := m.styles
	out := []string{m.sectionHead(w, "Keys", s.Dim.Render("esc or ? closes"))}
	kw := 0
	for _, g := range m.keys.FullHelp() {
		for _, b := range g {
			kw = max(kw, width(b.Help().Key))
		}
	}
	for gi, g := range m.keys.FullHelp() {
		if gi > 0 {
			out = append(out, "")
		}
		for _, b := range g {
			out = append(out, m.keyLine(w, kw, b)...)
		}
	}
	out = append(out, "", s.Dim.Render(cut("  now: "+m.alerts.String(), w)))
	out = append(out, "", m.sectionHead(w, "Recent activity", ""))
	for _, l := range legend {
		for i, t := range wrap(l[1], w-6) {
			g := "  " + l[0] + "   "
			if i > 0 {
				g = "      "
			}
			out = append(out, s.Strong.Render(pad(g, 6))+s.Text.Render(t))
		}
	}
	out = append(out, styleLines(s.Dim, wrapIndent("Rows read: how long ago, glyph, tool, the command (shell) or file, and the outcome when not a plain success (exit N, refused, unknown).", w, 2))...)
	out = append(out, "", m.sectionHead(w, "Checkpoints", ""))
	var cps []field
	for _, l := range [][2]string{
		{"open", "waiting for you to judge whether the agent is on track"},
		{"told", "the agent got the nudge, before its next tool call"},
		{"not told", "shown here only; " + shownNotTold},
		{"acknowledged", "you marked it seen (a, A or cully ack)"},
		{"answered", "your next prompt after the agent was told"},
		{"resolved", "its condition ended: the check passed, the agent acted, the command worked"},
		{"superseded", "a new task began before it reached the agent"},
	} {
		cps = append(cps, field{"  " + l[0], l[1], nil})
	}
	out = append(out, m.fields(w, cps)...)
	out = append(out, "", m.sectionHead(w, "Guards", ""))
	out = append(out, styleLines(s.Text, wrapIndent("A guard warns the agent before a call that repeats itself or wastes context (a blind retry, an unchanged re-read, a large read). It needs no answer from you.", w, 2))...)
	out = append(out, "", m.sectionHead(w, "⚠ above the keys", ""))
	out = append(out, styleLines(s.Text, wrapIndent("cully itself failed since the panel opened: records in its error log (a hook call it could not record lets the agent go and may be missing here) and journal lines it had to skip. cully doctor says what and how to fix it.", w, 2))...)
	return out
}

func (m Model) keyLine(w, kw int, b key.Binding) []string {
	s := m.styles
	h := b.Help()
	lines := wrap(h.Desc, max(w-kw-4, 8))
	out := make([]string, len(lines))
	for i, l := range lines {
		k := ""
		if i == 0 {
			k = h.Key
		}
		out[i] = "  " + s.Key.Render(pad(k, kw)) + "  " + s.Text.Render(l)
	}
	return out
}
