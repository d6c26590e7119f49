package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"cully/engine"
)

// Update handles one message.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		return m, nil
	case tea.BackgroundColorMsg:
		m.styles = DefaultStyles(msg.IsDark(), m.noColor)
		return m, nil
	case tea.KeyPressMsg:
		return m.key(msg)
	case sessionsMsg:
		return m.sessions(msg)
	case stateMsg:
		return m.stateLoaded(msg)
	case backfillMsg:
		for _, ev := range msg.events {
			m.note(ev)
		}
		if m.follow == "" {
			m.follow = m.newest()
		}
		return m, m.loadListed()
	case journalMsg:
		return m.journalBatch(msg)
	case ackMsg:
		if msg.err != nil && msg.tell {
			return m.flashed("tell failed: " + msg.err.Error()), m.load(msg.session)
		}
		if msg.err != nil {
			return m.flashed("ack failed: " + msg.err.Error()), m.load(msg.session)
		}
		if msg.tell {
			m = m.flashed(ackedText(msg.ids) + " is told at the agent's next tool call")
			return m, tea.Batch(m.load(msg.session), m.flashTimer())
		}
		m = m.flashed(ackedText(msg.ids) + " acknowledged: the agent is no longer told")
		return m, tea.Batch(m.load(msg.session), m.flashTimer())
	case controlMsg:
		return m.controlDone(msg)
	case diffMsg:
		return m.diffRead(msg)
	case rollbackMsg:
		return m.rollbackRead(msg)
	case tickMsg:
		m.advance(time.Time(msg))
		return m, tea.Batch(m.nextTick(), m.advisorDue(), m.checkErrors(), m.checkRecording())
	case ackDueMsg:
		m.advance(msg.at)
		if p := m.pending; p != nil && p.seq == msg.seq {
			m.pending = nil
			return m, m.writeAck(p)
		}
		return m, nil
	case reloadMsg:
		return m, m.load(msg.session)
	case errorsMsg:
		m.errsRead(msg)
		return m, nil
	case recordingMsg:
		m.recReading = false
		if msg.err == nil { // a read that failed keeps the last one (cully doctor says why)
			m.rec = msg.rec
		}
		return m, nil
	case flashDoneMsg:
		m.advance(msg.at)
		if msg.seq == m.flashSeq {
			m.flash = ""
		}
		return m, nil
	case CaptionMsg:
		m.caption = &msg
		return m, nil
	case ClosingMsg:
		m.caption, m.closing, m.closingOpen, m.scroll = nil, &msg, true, 0
		return m, nil
	}
	return m, nil
}

// advisorDue reloads the followed session once its advisor's wait or
// deferral has ended: the standing is read with the state, and nothing in
// the journal says when a wait is over.
func (m *Model) advisorDue() tea.Cmd {
	s := m.sess[m.follow]
	if s == nil || !s.loaded || s.adv.Status.Until == nil || s.adv.Status.Until.After(m.now) {
		return nil
	}
	return m.load(s.id)
}

// advance moves the panel's clock forward (never back).
func (m *Model) advance(t time.Time) {
	if t.After(m.now) {
		m.now = t
	}
}

func (m Model) sessions(msg sessionsMsg) (tea.Model, tea.Cmd) {
	if msg.err != nil {
		return m.flashed("cannot list sessions: " + msg.err.Error()), nil
	}
	for i, si := range msg.list {
		s := m.get(si.ID)
		if si.LastSeen.After(s.listed) {
			s.listed = si.LastSeen
		}
		if i < len(msg.roots) && s.place.key == "" { // a state read since knows better
			s.place.root = msg.roots[i]
		}
	}
	// Started in a repository, follow its most recent session (once
	// where each works is known); else, the most recent of all.
	if m.follow == "" || m.here != "" {
		m.autoFollow()
	}
	return m, m.loadListed()
}

// loadListed loads the state of every listed session not loaded yet.
func (m *Model) loadListed() tea.Cmd {
	var cmds []tea.Cmd
	for _, s := range m.listed() {
		if !s.loaded && !s.loading {
			cmds = append(cmds, m.load(s.id))
		}
	}
	return tea.Batch(cmds...)
}

// load reads a session's state, coalescing requests while one is in flight.
func (m *Model) load(id string) tea.Cmd {
	if id == "" {
		return nil
	}
	s := m.get(id)
	if s.loading {
		s.dirty = true
		return nil
	}
	s.loading = true
	return m.loadState(id)
}

func (m Model) stateLoaded(msg stateMsg) (tea.Model, tea.Cmd) {
	s := m.get(msg.session)
	s.loading = false
	var cmds []tea.Cmd
	if msg.err != nil {
		m = m.flashed(fmt.Sprintf("cannot read session %s: %v", shortID(msg.session), msg.err))
		cmds = append(cmds, m.reloadBehind(s))
	} else {
		if msg.state.LastSeen.Before(s.recorded) {
			cmds = append(cmds, m.reloadBehind(s))
		} else {
			s.behind = 0
		}
		s.state, s.project, s.hint, s.records, s.run, s.adv = msg.state, msg.project, msg.hint, msg.records, msg.run, msg.adv
		if msg.place.key != "" {
			s.place = msg.place
		}
		if s.first.IsZero() || !msg.state.Started.IsZero() && msg.state.Started.Before(s.first) {
			s.first = msg.state.Started
		}
		if c := m.opened(s); c != nil {
			cmds = append(cmds, c)
		}
		s.loaded = true
		if m.here != "" && m.ours(s) {
			m.autoFollow() // a session of this folder, seen for the first time or newly busy
		}
	}
	m.syncSelection()
	if s.dirty {
		s.dirty = false
		cmds = append(cmds, m.load(msg.session))
	}
	return m, tea.Batch(cmds...)
}

// errsRead books what errors.log gained. A read that failed is dropped:
// the next batch or tick reads from the same place (cully doctor says why
// the log cannot be read).
func (m *Model) errsRead(msg errorsMsg) {
	m.errs.reading = false
	switch {
	case msg.err != nil:
	case msg.from < 0:
		if m.errs.off < 0 {
			m.errs.off = msg.tail.Next
		}
	case m.errs.off >= 0 && msg.from == m.errs.off: // not a second read of what is counted
		m.errs.off = msg.tail.Next
		if msg.tail.N > 0 {
			m.errs.n += msg.tail.N
			m.errs.last, m.errs.lastAt = msg.tail.Last, msg.tail.LastAt
		}
	}
}

// Reloads of a state that lags the journal: a hook's record reaches the
// journal before its state is saved, under the session's lock, which a
// read waits for; a state read lagging anyway is read again, up to
// maxBehindReloads times behindReload apart. One left behind by a hook
// that died mid-record is caught up by the session's next call, whose
// record reloads it.
const (
	behindReload     = 100 * time.Millisecond
	maxBehindReloads = 10
)

// reloadBehind schedules another read of s's state, unless it was read
// again maxBehindReloads times since its last new record.
func (m *Model) reloadBehind(s *session) tea.Cmd {
	if s.behind >= maxBehindReloads {
		return nil
	}
	s.behind++
	id := s.id
	return tea.Tick(behindReload, func(time.Time) tea.Msg { return reloadMsg{session: id} })
}

// opened notes the checkpoints a fresh state shows open for the first time,
// says so in the transient line and, when alerts are on, rings: never for
// those already open when the session was first loaded.
func (m *Model) opened(s *session) tea.Cmd {
	var fresh []engine.Checkpoint
	for _, c := range s.state.OpenCheckpoints() {
		if !s.known[c.ID] {
			s.known[c.ID] = true
			if s.loaded {
				fresh = append(fresh, c)
			}
		}
	}
	if len(fresh) == 0 {
		return nil
	}
	c := fresh[len(fresh)-1]
	where := s.project.Name
	if where == "" {
		where = "session " + shortID(s.id)
	}
	body := fmt.Sprintf("checkpoint %s (%s) opened in %s", c.ID, c.Reason, where)
	*m = m.flashed("⚑ " + body)
	if m.alerts == alertOff {
		return m.flashTimer()
	}
	return tea.Batch(tea.Raw(m.alertSeq(body)), m.flashTimer())
}

// alertSeq is what an alert writes to the terminal: the bell, and in
// desktop mode a notification (OSC 9, or OSC 777 where the terminal uses
// that), wrapped in tmux's passthrough inside tmux.
func (m Model) alertSeq(body string) string {
	if m.alerts != alertDesktop {
		return "\a"
	}
	body = oscSafe(body)
	seq := ansi.Notify(alertTitle + ": " + body)
	if m.notify == notifyOSC777 {
		seq = ansi.URxvtExt("notify", alertTitle, body)
	}
	if m.tmux {
		seq = ansi.TmuxPassthrough(seq)
	}
	return "\a" + seq
}

// oscSafe keeps a notification's text inside its escape sequence: no
// control characters, no ';' (OSC 777's field separator).
func oscSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f || r == ';' {
			return ' '
		}
		return r
	}, clean(s))
}

func (m Model) journalBatch(msg journalMsg) (tea.Model, tea.Cmd) {
	if msg.closed {
		return m.flashed("journal watch ended: restart the panel to follow new activity"), nil
	}
	b := msg.batch
	m.corrupt += b.Corrupt
	if b.Err != nil {
		m = m.flashed("journal: " + b.Err.Error())
	}
	touched := map[string]bool{}
	var newest *engine.Event
	for _, ev := range b.Events {
		m.note(ev)
		if ev.Session == "" {
			continue
		}
		touched[ev.Session] = true
		if agentActivity(ev) {
			newest = ev
		}
	}
	// Follow the most recently active session unless the user picked one;
	// in a repository, one of its own before any other (a session not
	// read yet is followed once its state says where it works).
	if !m.pinned && newest != nil && newest.Session != m.follow && (m.ours(m.sess[newest.Session]) || !m.ours(m.sess[m.follow])) {
		m.follow, m.sel, m.selIdx, m.details, m.scroll, m.chose = newest.Session, "", 0, false, 0, false
	}
	cmds := []tea.Cmd{m.waitJournal()}
	if b.Errors { // the tailer saw the log written; a tick reads it otherwise
		cmds = append(cmds, m.checkErrors(), m.checkRecording()) // a failed record writes errors.log when it can
	}
	listed := map[string]bool{}
	for _, s := range m.listed() {
		listed[s.id] = true
	}
	for id := range touched {
		if listed[id] {
			cmds = append(cmds, m.load(id))
		}
	}
	if m.follow != "" {
		if f := m.get(m.follow); !f.loaded && !f.loading { // loading: its record's load above
			cmds = append(cmds, m.load(m.follow))
		}
	}
	return m, tea.Batch(cmds...)
}

// agentActivity: a record the agent's host made. The user's acks and the
// host's usage reports (the status line refreshes on its own) are not.
func agentActivity(ev *engine.Event) bool {
	return ev.Kind != engine.KindAck && ev.Kind != engine.KindTell && ev.Kind != engine.KindHostUsage
}

// note books a record: the session's last activity, its activity rows and
// the nudges it was handed.
func (m *Model) note(ev *engine.Event) {
	if ev.Session == "" {
		return
	}
	s := m.get(ev.Session)
	if s.first.IsZero() || ev.Time.Before(s.first) {
		s.first = ev.Time
	}
	if ev.Time.After(s.recorded) {
		s.recorded, s.behind = ev.Time, 0
	}
	if agentActivity(ev) && ev.Time.After(s.active) {
		s.active = ev.Time
	}
	if shownInRecent(ev) {
		r := append(s.recent, ev)
		if len(r) > recentPerSession {
			r = r[len(r)-recentPerSession:]
		}
		s.recent = r
	}
	for _, sg := range ev.Signals {
		if sg.Kind == engine.SignalNudge {
			n := append(s.nudges, nudge{at: ev.Time, text: sg.Text})
			if len(n) > nudgesPerSession {
				n = n[len(n)-nudgesPerSession:]
			}
			s.nudges = n
		}
	}
}

// shownInRecent: the records the activity list tells its story with.
func shownInRecent(ev *engine.Event) bool {
	switch ev.Kind {
	case engine.KindPostTool, engine.KindPrompt, engine.KindStop, engine.KindCompact, engine.KindSessionStart, engine.KindSessionEnd,
		engine.KindPause, engine.KindResume, engine.KindRollback: // the user's own acts on the run are part of its story
		return true
	case engine.KindBatch:
		return len(ev.Rejected) > 0
	}
	return false
}

// syncSelection keeps the selection on the same item when the lists
// change, or on the row where it was when that item is gone.
func (m *Model) syncSelection() {
	its := m.items()
	if !m.chose && len(its) > 0 { // until the user moves it, the selection is the first item: an open checkpoint if any
		m.sel, m.selIdx = its[0].key, 0
		return
	}
	for i, it := range its {
		if it.key == m.sel {
			m.selIdx = i
			return
		}
	}
	if len(its) == 0 {
		m.sel, m.selIdx, m.details = "", 0, false
		return
	}
	m.selIdx = min(max(m.selIdx, 0), len(its)-1)
	m.sel = its[m.selIdx].key
}

func (m Model) flashed(text string) Model {
	m.flash = text
	m.flashSeq++
	return m
}

func (m Model) flashTimer() tea.Cmd {
	seq := m.flashSeq
	return m.after(flashFor, func(t time.Time) tea.Msg { return flashDoneMsg{seq: seq, at: t} })
}

func (m Model) key(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	k := m.keys
	if m.ask != nil { // every key types the reason until enter or esc
		return m.typeReason(msg)
	}
	switch {
	case key.Matches(msg, k.Quit):
		if p := m.pending; p != nil { // an acknowledgment still in its undo window is kept, not lost
			m.pending = nil
			return m, tea.Sequence(m.writeAck(p), tea.Quit)
		}
		return m, tea.Quit
	case key.Matches(msg, k.Help):
		m.help, m.scroll = !m.help, 0
	case key.Matches(msg, k.Close):
		switch {
		case m.help:
			m.help = false
		case m.diff != nil:
			m.diff = nil
		case m.rollback != nil:
			if !m.rollback.done {
				m = m.flashed("not rolled back: nothing changed")
			}
			m.rollback = nil
		case m.closingOpen:
			m.closingOpen = false
		case m.details:
			m.details = false
		}
		m.scroll = 0
	case (m.diff != nil || m.rollback != nil) && key.Matches(msg, k.Down): // a line at a time
		m.scroll++
	case (m.diff != nil || m.rollback != nil) && key.Matches(msg, k.Up):
		m.scroll = max(m.scroll-1, 0)
	case m.rollback != nil && key.Matches(msg, k.Confirm):
		return m.confirmRollback()
	case key.Matches(msg, k.Diff):
		return m.openDiff()
	case key.Matches(msg, k.Rollback):
		return m.openRollback()
	case key.Matches(msg, k.Down):
		m.move(1)
	case key.Matches(msg, k.Up):
		m.move(-1)
	case key.Matches(msg, k.ScrollDown):
		m.scroll += max(m.height/2, 1)
	case key.Matches(msg, k.ScrollUp):
		m.scroll = max(m.scroll-max(m.height/2, 1), 0)
	case key.Matches(msg, k.Details):
		if _, ok := m.selected(); ok {
			m.details, m.help, m.scroll = !m.details, false, 0
		} else {
			m = m.flashed("nothing to read: no checkpoint, guard warning, run or advisor in this session")
		}
	case key.Matches(msg, k.Ack):
		return m.ack(false)
	case key.Matches(msg, k.AckAll):
		return m.ack(true)
	case key.Matches(msg, k.Undo):
		if m.pending == nil {
			return m.flashed("nothing to undo: an acknowledgment is final once its undo window has passed"), m.flashTimer()
		}
		ids, tell := m.pending.ids, m.pending.tell
		m.pending = nil
		if tell {
			m = m.flashed("undone: " + ackedText(ids) + " is not told")
			return m, m.flashTimer()
		}
		m = m.flashed("undone: " + ackedText(ids) + " stays open")
		return m, m.flashTimer()
	case key.Matches(msg, k.Tell):
		return m.tellSelected()
	case key.Matches(msg, k.GoTo):
		return m.goTo()
	case key.Matches(msg, k.Pause):
		return m.pause()
	case key.Matches(msg, k.Resume):
		return m.askReason(false)
	case key.Matches(msg, k.Raise):
		return m.askReason(true)
	case key.Matches(msg, k.Alerts):
		m.alerts = (m.alerts + 1) % 3
		text := map[alertMode]string{
			alertOff:     "alerts off",
			alertBell:    "bell on: it rings when a checkpoint opens",
			alertDesktop: "desktop alerts on: a notification and the bell when a checkpoint opens",
		}[m.alerts]
		m = m.flashed(text)
		return m, m.flashTimer()
	case key.Matches(msg, k.NextSession):
		ls := m.listed()
		if len(ls) < 2 {
			return m.flashed("no other live session"), m.flashTimer()
		}
		i := 0
		for n, s := range ls {
			if s.id == m.follow {
				i = n + 1
			}
		}
		return m.followSession(ls[i%len(ls)].id)
	case key.Matches(msg, k.Session):
		ls := m.listed()
		n := int(msg.String()[0] - '1')
		if n >= len(ls) {
			return m.flashed(fmt.Sprintf("no session %d: %d listed", n+1, len(ls))), m.flashTimer()
		}
		return m.followSession(ls[n].id)
	}
	return m, nil
}

func (m *Model) move(d int) {
	its := m.items()
	if len(its) == 0 {
		return
	}
	i := min(max(m.selIdx+d, 0), len(its)-1)
	if i != m.selIdx || m.sel == "" {
		m.scroll = 0
	}
	m.selIdx, m.sel, m.chose = i, its[i].key, true
}

func (m Model) followSession(id string) (tea.Model, tea.Cmd) {
	m.diff, m.rollback = nil, nil // they are the last session's
	m.follow, m.pinned, m.sel, m.selIdx, m.details, m.scroll, m.chose = id, true, "", 0, false, 0, false
	m.syncSelection()
	name := m.get(id).project.Name
	if name == "" {
		name = shortID(id)
	}
	m = m.flashed("following " + name + " (tab: the next session)")
	return m, tea.Batch(m.load(id), m.flashTimer())
}

// ack starts an acknowledgment: it is written when the undo window ends
// (the store has no un-ack, so undo is not writing it). An earlier one
// still waiting is written at once.
func (m Model) ack(all bool) (tea.Model, tea.Cmd) {
	st := m.followed()
	var ids []string
	if st != nil {
		if all {
			for _, c := range st.OpenCheckpoints() {
				if !m.isPending(m.follow, c.ID) {
					ids = append(ids, c.ID)
				}
			}
		} else if it, ok := m.selected(); ok && it.cp != nil && it.cp.Status == engine.StatusOpen && !m.isPending(m.follow, it.cp.ID) {
			ids = []string{it.cp.ID}
		}
	}
	if len(ids) == 0 {
		text := "no open checkpoint to acknowledge"
		if it, ok := m.selected(); ok && !all && m.openCount(m.sess[m.follow]) > 0 {
			switch {
			case it.g != nil:
				text = "a guard warning needs no acknowledgment: select an open checkpoint (j/k)"
			case it.cp != nil && it.cp.Status != engine.StatusOpen:
				text = it.cp.ID + " is already " + string(it.cp.Status) + ": select an open checkpoint (j/k)"
			}
		}
		return m.flashed(text), m.flashTimer()
	}
	var cmds []tea.Cmd
	if p := m.pending; p != nil {
		cmds = append(cmds, m.writeAck(p))
	}
	m.seq++
	seq := m.seq
	m.pending = &pendingAck{session: m.follow, ids: ids, seq: seq}
	m = m.flashed(fmt.Sprintf("%s acknowledged · u undoes (%ds)", ackedText(ids), int(m.undo.Round(time.Second)/time.Second)))
	cmds = append(cmds, m.after(m.undo, func(t time.Time) tea.Msg { return ackDueMsg{seq: seq, at: t} }))
	return m, tea.Batch(cmds...)
}

// tellSelected asks for the selected open checkpoint to be told at the
// agent's next call (t): written, as an acknowledgment is, when the undo
// window ends. An earlier one still waiting is written at once.
func (m Model) tellSelected() (tea.Model, tea.Cmd) {
	it, ok := m.selected()
	switch {
	case !ok || it.cp == nil:
		return m.flashed("nothing to tell: select a checkpoint (j/k)"), m.flashTimer()
	case it.cp.Status != engine.StatusOpen:
		return m.flashed(it.cp.ID + " is " + string(it.cp.Status) + ": only an open checkpoint is told"), m.flashTimer()
	case it.cp.Nudged:
		return m.flashed(it.cp.ID + " was told already"), m.flashTimer()
	case it.cp.Asked || m.isTelling(m.follow, it.cp.ID):
		return m.flashed(it.cp.ID + " is told at the agent's next tool call already"), m.flashTimer()
	case m.isPending(m.follow, it.cp.ID):
		return m.flashed(it.cp.ID + " is being acknowledged: u undoes that first"), m.flashTimer()
	}
	var cmds []tea.Cmd
	if p := m.pending; p != nil {
		cmds = append(cmds, m.writeAck(p))
	}
	m.seq++
	seq := m.seq
	m.pending = &pendingAck{session: m.follow, ids: []string{it.cp.ID}, seq: seq, tell: true}
	m = m.flashed(fmt.Sprintf("telling %s at the agent's next call · u undoes (%ds)", it.cp.ID, int(m.undo.Round(time.Second)/time.Second)))
	cmds = append(cmds, m.after(m.undo, func(t time.Time) tea.Msg { return ackDueMsg{seq: seq, at: t} }))
	return m, tea.Batch(cmds...)
}

func ackedText(ids []string) string {
	if len(ids) == 1 && ids[0] == "*" {
		return "every open checkpoint"
	}
	return strings.Join(ids, ", ")
}
