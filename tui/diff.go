package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"cully/runs"
)

// diffView is the run's diff (d): the files changed since its start, each
// marked by who changed it, with its change; scrolled like the details.
type diffView struct {
	session string
	files   []runs.FileDiff
	err     error
	loaded  bool
}

// rollbackView is a rollback to the run's start (R): its dry run, shown
// until y does it or esc drops it; then what it did, and its undo.
type rollbackView struct {
	session string
	plan    *runs.Plan
	err     error
	loaded  bool
	done    bool // the rollback ran (plan is what it did)
}

// diffMsg and rollbackMsg carry what the backend read or did.
type (
	diffMsg struct {
		session string
		files   []runs.FileDiff
		err     error
	}
	rollbackMsg struct {
		session string
		plan    *runs.Plan
		err     error
		done    bool
	}
)

// openDiff shows the followed run's diff (d), read off the model.
func (m Model) openDiff() (tea.Model, tea.Cmd) {
	st := m.followed()
	if st == nil || st.Run == nil {
		return m.flashed("no run to diff: a run starts at the agent's first prompt or tool call"), m.flashTimer()
	}
	m.diff, m.rollback, m.help, m.details, m.scroll = &diffView{session: m.follow}, nil, false, false, 0
	b := m.backend
	run, id := st.Run.ID, m.follow
	return m, func() tea.Msg {
		fs, err := b.Diff(id, run)
		return diffMsg{session: id, files: fs, err: err}
	}
}

// openRollback shows what a rollback to the run's start would change (R):
// y does it.
func (m Model) openRollback() (tea.Model, tea.Cmd) {
	st := m.followed()
	if st == nil || st.Run == nil {
		return m.flashed("no run to roll back: a run starts at the agent's first prompt or tool call"), m.flashTimer()
	}
	m.rollback, m.diff, m.help, m.details, m.scroll = &rollbackView{session: m.follow}, nil, false, false, 0
	b, id := m.backend, m.follow
	return m, func() tea.Msg {
		p, err := b.Rollback(id, true)
		return rollbackMsg{session: id, plan: p, err: err}
	}
}

// confirmRollback runs the rollback its dry run showed (y).
func (m Model) confirmRollback() (tea.Model, tea.Cmd) {
	v := m.rollback
	if v == nil || !v.loaded || v.done || v.err != nil || v.plan == nil || len(v.plan.Restore)+len(v.plan.Remove) == 0 {
		return m, nil
	}
	b, id := m.backend, v.session
	m = m.flashed("rolling back…")
	return m, func() tea.Msg {
		p, err := b.Rollback(id, false)
		return rollbackMsg{session: id, plan: p, err: err, done: true}
	}
}

func (m Model) diffRead(msg diffMsg) (tea.Model, tea.Cmd) {
	if m.diff == nil || m.diff.session != msg.session {
		return m, nil
	}
	m.diff = &diffView{session: msg.session, files: msg.files, err: msg.err, loaded: true}
	return m, nil
}

func (m Model) rollbackRead(msg rollbackMsg) (tea.Model, tea.Cmd) {
	if msg.done {
		m.flash = ""
		if msg.err == nil && msg.plan != nil {
			m = m.flashed(fmt.Sprintf("rolled back %s; undo: cully rollback --to %d", plural(len(msg.plan.Restore)+len(msg.plan.Remove), "1 file", fmt.Sprintf("%d files", len(msg.plan.Restore)+len(msg.plan.Remove))), msg.plan.Undo))
		}
	}
	if m.rollback == nil || m.rollback.session != msg.session {
		return m, m.load(msg.session)
	}
	m.rollback = &rollbackView{session: msg.session, plan: msg.plan, err: msg.err, loaded: true, done: msg.done}
	m.scroll = 0
	return m, m.load(msg.session)
}

// redacted is a path as the commands print it: a token in a file's name
// never reaches the screen.
func redacted(p string) string { return runs.RedactPaths([]string{p})[0] }

// byWord says who changed a file, for its row.
func byWord(by string) string {
	switch by {
	case runs.ByAgent:
		return "agent"
	case runs.ByOutside:
		return "outside the agent's calls"
	case runs.ByBoth:
		return "outside, then the agent"
	}
	return "who: not known"
}

// diffLines are the diff view: a title, then each file's row and its
// change, coloured (added green, removed red, hunk heads dim). Lines are
// cut at the width, not wrapped: a diff keeps its columns.
func (m Model) diffLines(w int) []string {
	s, v := m.styles, m.diff
	if !v.loaded {
		return []string{m.sectionHead(w, "Diff", "since the run's start"), s.Dim.Render("reading…")}
	}
	if v.err != nil {
		return append([]string{m.sectionHead(w, "Diff", "since the run's start")}, styleLines(s.Bad, wrap(clean(v.err.Error()), w))...)
	}
	agent := 0
	for _, f := range v.files {
		if f.By == runs.ByAgent || f.By == runs.ByBoth {
			agent++
		}
	}
	counts := fmt.Sprintf("since the run's start · %s, %d by the agent", plural(len(v.files), "1 file", fmt.Sprintf("%d files", len(v.files))), agent)
	out := []string{m.sectionHead(w, "Diff", counts)}
	if len(v.files) == 0 {
		return append(out, s.Dim.Render("no file changed since the run's start"))
	}
	for _, f := range v.files {
		mark, ms := "●", s.Accent
		if f.By == runs.ByOutside {
			mark, ms = "○", s.Dim
		}
		row := ms.Render(mark) + " " + s.Strong.Render(clean(redacted(f.Path))) + s.Dim.Render(" · "+f.Status+" · "+byWord(f.By))
		out = append(out, "", row)
		for _, l := range strings.Split(strings.TrimRight(f.Text, "\n"), "\n") {
			switch {
			case l == "", strings.HasPrefix(l, "diff --git "), strings.HasPrefix(l, "index "), strings.HasPrefix(l, "--- "), strings.HasPrefix(l, "+++ "),
				strings.HasPrefix(l, "new file mode"), strings.HasPrefix(l, "deleted file mode"):
			case strings.HasPrefix(l, "@@"):
				out = append(out, s.Dim.Render(clean(l)))
			case strings.HasPrefix(l, "+"):
				out = append(out, s.Good.Render(clean(l)))
			case strings.HasPrefix(l, "-"):
				out = append(out, s.Bad.Render(clean(l)))
			default:
				out = append(out, s.Text.Render(clean(l)))
			}
		}
		if f.Cut {
			out = append(out, s.Dim.Render("… cut: `git diff` in the repository shows the rest"))
		}
	}
	return out
}

// rollbackLines are the rollback view: the dry run (what would be
// restored, removed, left as it is), or what the rollback did and how to
// undo it.
func (m Model) rollbackLines(w int) []string {
	s, v := m.styles, m.rollback
	title := "Roll back"
	if !v.loaded {
		return []string{m.sectionHead(w, title, "to the run's start"), s.Dim.Render("reading…")}
	}
	var out []string
	p := v.plan
	if v.err != nil {
		out = append(out, m.sectionHead(w, title, "to the run's start"))
		out = append(out, styleLines(s.Bad, wrap(clean(v.err.Error()), w))...)
		if p == nil {
			return out
		}
	}
	n := len(p.Restore) + len(p.Remove)
	switch {
	case v.done && v.err == nil:
		out = append(out, m.sectionHead(w, "Rolled back", fmt.Sprintf("to snapshot %d", p.To)))
		out = append(out, styleLines(s.Accent, wrap(fmt.Sprintf("undo: cully rollback --to %d (snapshot %d holds the files as they were)", p.Undo, p.Undo), w))...)
	case v.err == nil:
		out = append(out, m.sectionHead(w, title, "to the run's start"))
		out = append(out, s.Dim.Render(fmt.Sprintf("dry run: %d restored, %d removed", len(p.Restore), len(p.Remove))))
		if n == 0 {
			out = append(out, s.Dim.Render("nothing to roll back: the agent's files are as they were"))
		} else {
			out = append(out, styleLines(s.Accent, wrap("y rolls back (undoable: a snapshot of now is taken first) · esc cancels", w))...)
		}
	}
	list := func(word string, st func(...string) string, ps []string) {
		for _, q := range ps {
			out = append(out, cut(st(word)+" "+clean(redacted(q)), w))
		}
	}
	verb := func(dry, done string) string {
		if v.done {
			return done
		}
		return dry
	}
	list(verb("restore ", "restored"), s.Strong.Render, p.Restore)
	list(verb("remove  ", "removed "), s.Bad.Render, p.Remove)
	list("kept    ", s.Dim.Render, p.Kept)
	list("left    ", s.Dim.Render, p.Outside)
	for _, k := range p.Left {
		out = append(out, wrapIndent(clean(redacted(k.Path)+" ("+k.Why+")"), w, 2)...)
	}
	if len(p.Outside) > 0 {
		out = append(out, styleLines(s.Dim, wrap("left: changed outside the agent's calls, as they are", w))...)
	}
	return out
}
