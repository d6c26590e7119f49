package tui

import (
	"strings"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"

	"cully/engine"
)

// maxReason bounds what the reason prompt takes: the reducer keeps a
// note's first line, cut short, anyway.
const maxReason = 200

// reasonPrompt is the line the user types a resume's reason into (r, +):
// enter resumes with it, esc cancels and nothing is recorded.
type reasonPrompt struct {
	session string
	raise   bool
	text    []rune
}

// controlled is the followed session's run, or why no key can act on it.
func (m Model) controlled() (*engine.Run, string) {
	st := m.followed()
	if st == nil {
		return nil, "no session followed"
	}
	if st.Run == nil {
		return nil, "no run yet: a run starts at the agent's first prompt or tool call"
	}
	return st.Run, ""
}

// pause stops the followed session's run (p), as `cully stop` does; r
// undoes it.
func (m Model) pause() (tea.Model, tea.Cmd) {
	r, why := m.controlled()
	switch {
	case r == nil:
		return m.flashed("nothing to stop: " + why), m.flashTimer()
	case r.Halted != nil:
		return m.flashed("the run is already stopped: r resumes it"), m.flashTimer()
	}
	b, id := m.backend, m.follow
	m = m.flashed("stopping the run…")
	return m, func() tea.Msg {
		text, err := b.Pause(id)
		return controlMsg{session: id, text: text, err: err}
	}
}

// askReason opens the reason prompt for a resume (r) or a raise (+).
func (m Model) askReason(raise bool) (tea.Model, tea.Cmd) {
	r, why := m.controlled()
	if r == nil {
		return m.flashed("nothing to resume: " + why), m.flashTimer()
	}
	if !raise && r.Paused == nil && r.Halted == nil && r.RollbackFailed == nil {
		return m.flashed("the run is not stopped: p stops it"), m.flashTimer()
	}
	m.ask = &reasonPrompt{session: m.follow, raise: raise}
	m.flash = ""
	return m, nil
}

// typeReason edits the open reason prompt: enter sends it, esc drops it.
func (m Model) typeReason(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	p := m.ask
	switch msg.Code {
	case tea.KeyEscape:
		m.ask = nil
		return m.flashed("not resumed: nothing recorded"), m.flashTimer()
	case tea.KeyEnter:
		m.ask = nil
		b, id, raise, reason := m.backend, p.session, p.raise, strings.TrimSpace(string(p.text))
		m = m.flashed("resuming the run…")
		return m, func() tea.Msg {
			text, err := b.Resume(id, raise, reason)
			return controlMsg{session: id, text: text, err: err}
		}
	case tea.KeyBackspace:
		if n := len(p.text); n > 0 {
			p.text = p.text[:n-1]
		}
		return m, nil
	}
	if msg.Mod&(tea.ModCtrl|tea.ModAlt) != 0 {
		if msg.String() == "ctrl+c" { // as q would anywhere else
			m.ask = nil
			return m, tea.Quit
		}
		if msg.String() == "ctrl+u" {
			p.text = nil
		}
		return m, nil
	}
	for _, r := range msg.Text {
		if len(p.text) < maxReason && !engine.IsControl(r) && r != utf8.RuneError {
			p.text = append(p.text, r)
		}
	}
	return m, nil
}

// goTo selects the followed agent's tmux pane (g), as its hook recorded
// it at the session's start or its last prompt.
func (m Model) goTo() (tea.Model, tea.Cmd) {
	st := m.followed()
	switch {
	case st == nil:
		return m.flashed("no session followed"), m.flashTimer()
	case st.Pane == "":
		return m.flashed("the agent's pane is not known: its hook saw no TMUX_PANE (it runs outside tmux, or had no prompt since it started there)"), m.flashTimer()
	case !m.tmux:
		return m.flashed("the agent runs in tmux pane " + st.Pane + ": run the panel inside tmux for g to select it"), m.flashTimer()
	}
	b, id, pane := m.backend, m.follow, st.Pane
	return m, func() tea.Msg {
		if err := b.GoTo(pane); err != nil {
			return controlMsg{session: id, err: err}
		}
		return controlMsg{session: id, text: "selected the agent's pane " + pane}
	}
}

// controlDone says what a run control action did and reads the state
// again.
func (m Model) controlDone(msg controlMsg) (tea.Model, tea.Cmd) {
	if msg.err != nil {
		m = m.flashed(msg.err.Error())
	} else {
		m = m.flashed(msg.text)
	}
	return m, tea.Batch(m.load(msg.session), m.flashTimer())
}

// promptLines are the open reason prompt: what the reason is for, and the
// text typed so far with a cursor.
func (m Model) promptLines(w int) []string {
	p := m.ask
	if p == nil {
		return nil
	}
	s := m.styles
	title := "Resume the run: why? (recorded; ↵ with none for your own stop)"
	if p.raise {
		title = "Double the budget that stopped the run and resume: why may it use more? (recorded)"
	}
	var out []string
	for _, l := range wrap(title, w) {
		out = append(out, s.Accent.Render(l))
	}
	line := "› " + string(p.text) + "▌"
	for _, l := range wrap(line, w) {
		out = append(out, s.Flash.Render(l))
	}
	return out
}
