package tui

import (
	"fmt"
	"sort"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"cully/engine"
)

// Update handles one message.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.help.SetWidth(msg.Width)
		return m, nil
	case tea.BackgroundColorMsg:
		m.styles = DefaultStyles(msg.IsDark(), m.noColor)
		m.help.Styles = m.styles.Help
		return m, nil
	case tea.KeyPressMsg:
		return m.key(msg)
	case sessionsMsg:
		if msg.err != nil {
			m.status = "cannot list sessions: " + msg.err.Error()
			return m, nil
		}
		for id, t := range msg.seen {
			if t.After(m.seen[id]) {
				m.seen[id] = t
			}
		}
		m.sortSessions(msg.ids...)
		if m.follow == "" && len(m.sessions) > 0 {
			m.follow = m.sessions[0]
			return m, m.load(m.follow)
		}
		return m, nil
	case stateMsg:
		m.loading[msg.session] = false
		if msg.err != nil {
			m.status = fmt.Sprintf("cannot read session %s: %v", short(msg.session), msg.err)
		} else {
			m.states[msg.session] = msg.state
			if !msg.state.LastSeen.IsZero() && msg.state.LastSeen.After(m.seen[msg.session]) {
				m.seen[msg.session] = msg.state.LastSeen
			}
		}
		m.clampCursor()
		if m.dirty[msg.session] {
			m.dirty[msg.session] = false
			return m, m.load(msg.session)
		}
		return m, nil
	case backfillMsg:
		for _, ev := range msg.events {
			m.note(ev)
		}
		return m, nil
	case journalMsg:
		return m.journalBatch(msg)
	case ackMsg:
		if msg.err != nil {
			m.status = "ack failed: " + msg.err.Error()
		} else {
			m.status = fmt.Sprintf("acknowledged %v", msg.ids)
			if len(msg.ids) == 1 && msg.ids[0] == "*" {
				m.status = "acknowledged all open checkpoints"
			}
		}
		return m, m.load(msg.session)
	case tickMsg:
		return m, m.nextTick()
	}
	return m, nil
}

// load reads a session's state, coalescing requests while one is in flight.
func (m *Model) load(session string) tea.Cmd {
	if m.loading[session] {
		m.dirty[session] = true
		return nil
	}
	m.loading[session] = true
	return m.loadState(session)
}

func (m Model) journalBatch(msg journalMsg) (tea.Model, tea.Cmd) {
	if msg.closed {
		m.status = "journal watch ended: restart the panel to follow new activity"
		return m, nil
	}
	b := msg.batch
	m.corrupt += b.Corrupt
	if b.Err != nil {
		m.status = "journal: " + b.Err.Error()
	}
	touched := map[string]bool{}
	var newest *engine.Event
	for _, ev := range b.Events {
		m.note(ev)
		touched[ev.Session] = true
		if ev.Kind != engine.KindAck && ev.Kind != engine.KindHostUsage {
			newest = ev
		}
	}
	// Follow the most recently active session unless the user picked one.
	if !m.pinned && newest != nil && newest.Session != m.follow {
		m.follow, m.cursor, m.details = newest.Session, 0, false
	}
	cmds := []tea.Cmd{m.waitJournal()}
	if touched[m.follow] || m.states[m.follow] == nil && m.follow != "" {
		cmds = append(cmds, m.load(m.follow))
	}
	return m, tea.Batch(cmds...)
}

// note records an event's session activity and, for tool results and
// prompts, the recent-activity list.
func (m *Model) note(ev *engine.Event) {
	if ev.Session == "" {
		return
	}
	if ev.Time.After(m.seen[ev.Session]) {
		m.seen[ev.Session] = ev.Time
	}
	m.sortSessions(ev.Session)
	if ev.Kind == engine.KindPostTool || ev.Kind == engine.KindPrompt {
		r := append(m.recent[ev.Session], ev)
		if len(r) > recentPerSession {
			r = r[len(r)-recentPerSession:]
		}
		m.recent[ev.Session] = r
	}
}

func (m *Model) sortSessions(ids ...string) {
	for _, id := range ids {
		found := false
		for _, s := range m.sessions {
			if s == id {
				found = true
				break
			}
		}
		if !found {
			m.sessions = append(m.sessions, id)
		}
	}
	sort.SliceStable(m.sessions, func(i, j int) bool { return m.seen[m.sessions[i]].After(m.seen[m.sessions[j]]) })
}

func (m *Model) clampCursor() {
	n := len(m.openCheckpoints())
	if m.cursor >= n {
		m.cursor = n - 1
	}
	if m.cursor < 0 {
		m.cursor = 0
	}
}

func (m Model) key(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	open := m.openCheckpoints()
	switch {
	case key.Matches(msg, m.keys.Quit):
		return m, tea.Quit
	case key.Matches(msg, m.keys.Help):
		m.help.ShowAll = !m.help.ShowAll
	case key.Matches(msg, m.keys.Down):
		if m.cursor < len(open)-1 {
			m.cursor++
		}
	case key.Matches(msg, m.keys.Up):
		if m.cursor > 0 {
			m.cursor--
		}
	case key.Matches(msg, m.keys.Details):
		m.details = !m.details && len(open) > 0
	case key.Matches(msg, m.keys.Ack):
		if len(open) == 0 {
			m.status = "no open checkpoint to acknowledge"
			return m, nil
		}
		m.status = "acknowledging " + open[m.cursor].ID + "…"
		return m, m.ack(m.follow, []string{open[m.cursor].ID})
	case key.Matches(msg, m.keys.AckAll):
		if len(open) == 0 {
			m.status = "no open checkpoint to acknowledge"
			return m, nil
		}
		m.status = "acknowledging all…"
		return m, m.ack(m.follow, []string{"*"})
	case key.Matches(msg, m.keys.NextSession):
		if len(m.sessions) < 2 {
			m.status = "no other session"
			return m, nil
		}
		i := 0
		for k, s := range m.sessions {
			if s == m.follow {
				i = k + 1
			}
		}
		m.follow, m.pinned, m.cursor, m.details = m.sessions[i%len(m.sessions)], true, 0, false
		m.status = "following " + short(m.follow) + " (tab for the next)"
		return m, m.load(m.follow)
	}
	return m, nil
}
