package tui

import (
	"time"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"

	"cully/engine"
	"cully/tailer"
)

// Tunables of the panel.
const (
	recentPerSession = 100              // tool calls kept per session for the activity list
	backfillWindow   = 2 << 20          // journal bytes read at start for recent activity: bounded on any journal
	defaultTick      = 10 * time.Second // relative times ("5m ago") refresh; no faster, so an idle panel costs nothing
)

// Options configure a panel.
type Options struct {
	Backend Backend
	Journal <-chan tailer.Batch // from a tailer started by the caller; nil for none
	Now     func() time.Time    // the clock (injected for tests)
	Session string              // follow this session (pinned); "" follows the most recently active
	Dark    bool                // background guess until the terminal answers
	NoColor bool                // NO_COLOR
	Tick    time.Duration       // 0: defaultTick; <0: never (tests)
}

// Model is the panel's one root model.
type Model struct {
	backend Backend
	journal <-chan tailer.Batch
	now     func() time.Time
	tick    time.Duration
	noColor bool

	styles Styles
	keys   KeyMap
	help   help.Model
	width  int
	height int

	sessions []string             // most recently active first
	seen     map[string]time.Time // last activity per session
	follow   string
	pinned   bool
	states   map[string]*engine.State
	recent   map[string][]*engine.Event
	loading  map[string]bool
	dirty    map[string]bool

	cursor  int
	details bool
	corrupt int
	status  string // last error or confirmation, shown above the help bar
}

// New returns a panel model.
func New(o Options) Model {
	now := o.Now
	if now == nil {
		now = time.Now
	}
	tick := o.Tick
	if tick == 0 {
		tick = defaultTick
	}
	m := Model{
		backend: o.Backend, journal: o.Journal, now: now, tick: tick, noColor: o.NoColor,
		styles: DefaultStyles(o.Dark, o.NoColor), keys: DefaultKeyMap(), help: help.New(),
		seen: map[string]time.Time{}, states: map[string]*engine.State{}, recent: map[string][]*engine.Event{},
		loading: map[string]bool{}, dirty: map[string]bool{}, follow: o.Session, pinned: o.Session != "",
		width: 48, height: 24,
	}
	m.help.Styles = m.styles.Help
	return m
}

// Init starts the loads, the journal wait and the clock.
func (m Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.loadSessions(), m.backfill(), m.waitJournal(), tea.RequestBackgroundColor}
	if m.follow != "" {
		cmds = append(cmds, m.loadState(m.follow))
	}
	if m.tick > 0 {
		cmds = append(cmds, m.nextTick())
	}
	return tea.Batch(cmds...)
}

// Commands: I/O happens here, results come back as messages.

func (m Model) loadSessions() tea.Cmd {
	b := m.backend
	return func() tea.Msg {
		ss, err := b.Sessions()
		msg := sessionsMsg{seen: map[string]time.Time{}, err: err}
		for _, s := range ss {
			msg.ids = append(msg.ids, s.ID)
			msg.seen[s.ID] = s.LastSeen
		}
		return msg
	}
}

func (m Model) loadState(session string) tea.Cmd {
	b := m.backend
	return func() tea.Msg {
		st, err := b.State(session)
		return stateMsg{session: session, state: st, err: err}
	}
}

func (m Model) backfill() tea.Cmd {
	b := m.backend
	return func() tea.Msg {
		evs, _ := b.Recent(backfillWindow)
		return backfillMsg{events: evs}
	}
}

func (m Model) waitJournal() tea.Cmd {
	ch := m.journal
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		b, ok := <-ch
		return journalMsg{batch: b, closed: !ok}
	}
}

func (m Model) ack(session string, ids []string) tea.Cmd {
	b := m.backend
	return func() tea.Msg {
		return ackMsg{session: session, ids: ids, err: b.Ack(session, ids)}
	}
}

func (m Model) nextTick() tea.Cmd {
	return tea.Tick(m.tick, func(t time.Time) tea.Msg { return tickMsg(t) })
}

// followed returns the followed session's state, or nil.
func (m Model) followed() *engine.State { return m.states[m.follow] }

// openCheckpoints lists the followed session's open checkpoints.
func (m Model) openCheckpoints() []engine.Checkpoint {
	if st := m.followed(); st != nil {
		return st.OpenCheckpoints()
	}
	return nil
}
