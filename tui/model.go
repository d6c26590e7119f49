package tui

import (
	"sort"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"cully/engine"
	"cully/store"
	"cully/tailer"
	"cully/usage"
)

// Tunables of the panel.
const (
	recentPerSession = 100             // activity rows kept per session
	nudgesPerSession = 200             // nudges kept per session, to show what the agent was told
	backfillWindow   = 2 << 20         // journal bytes read at start: bounded on any journal
	defaultTick      = 5 * time.Second // the clock relative times are computed from; coarse, so an idle panel costs nothing
	defaultUndo      = 5 * time.Second // how long an acknowledgment waits, undoable, before it is written
	flashFor         = 4 * time.Second // how long the line after an action stays
	maxListed        = 9               // sessions listed (and reachable with 1–9)
	maxClosedShown   = 3               // closed checkpoints listed under the open ones
	wideFrom         = 120             // from this width the details stand beside the lists
	alertTitle       = "cully"         // the desktop notification's title
	notifyOSC777     = "osc777"        // Options.Notify: the urxvt/VTE desktop notification
	notifyOSC9       = "osc9"          // Options.Notify: the iTerm2/kitty/WezTerm/Ghostty one (the default)
	shownNotTold     = "exploring and unverified-edits are shown here, not told, unless your config sets explore_tell / unverified_tell"
	guardsOffNote    = "nudges were off for that call (CULLY_GUARD=off)"
	nudgeOlderNote   = "the nudge is older than the part of the journal the panel read"
	notToldClosed    = "no: it closed before it reached the agent"
	toldNextCallNote = "not yet: it is told before the agent's next tool call if it still holds then"
)

// LiveWindow is how recently a session was active to be listed (and
// counted by `cully status --short`).
const LiveWindow = 12 * time.Hour

// Options configure a panel.
type Options struct {
	Backend Backend
	Journal <-chan tailer.Batch // from a tailer started by the caller; nil for none
	Now     func() time.Time    // the clock (injected for tests); read once, then advanced by ticks
	Session string              // follow this session (pinned); "" follows the most recently active
	// Here is the folder the panel started in, symlinks resolved
	// (runs.Resolve): the sessions working there (their project root
	// holds it) are followed and listed before any other. "": none first.
	Here    string
	Dark    bool          // background guess until the terminal answers
	NoColor bool          // NO_COLOR
	Tick    time.Duration // 0: defaultTick; <0: never (tests)
	Undo    time.Duration // 0: defaultUndo
	Tmux    bool          // inside tmux: desktop notifications go through its passthrough
	Notify  string        // "osc9" (default) or "osc777": the desktop notification the terminal understands
	// Rules is the configuration in effect (the user's budgets among it),
	// for the run's budget gauges; nil: the defaults.
	Rules *engine.Config
}

// alertMode is what happens when a checkpoint opens.
type alertMode int

const (
	alertOff alertMode = iota
	alertBell
	alertDesktop // the bell and a desktop notification
)

func (a alertMode) String() string {
	return [...]string{"alerts off", "bell on", "desktop alerts"}[a]
}

// session is what the panel knows of one session.
type session struct {
	id      string
	state   *engine.State
	project Project
	hint    string
	run     RunFiles    // the run's folder: its last snapshot's files, a failed rollback
	adv     AdvisorInfo // the advisor's standing and the ledger's totals
	first   time.Time   // first record seen, for a stable order before the state loads
	active  time.Time   // last agent record seen: acks and usage reports are not activity
	listed  time.Time   // the store's last-seen time, when no agent record is in the journal read
	recent  []*engine.Event
	nudges  []nudge
	place   place           // where it works: its project root
	known   map[string]bool // checkpoint ids seen open, so only new ones alert
	loaded  bool
	loading bool
	dirty   bool
	// recorded is the newest time of the session's records in the journal
	// read: every record is folded into the state before it is written
	// (store.Record), so a state whose last_seen is older lags the journal.
	recorded time.Time
	// behind counts the reloads of a state found lagging the journal
	// (or unreadable) since its last new record; at maxBehindReloads the
	// panel waits for the session's next record instead.
	behind int
	// records is what the host's own record of the session holds (nil:
	// none read): the figures its hooks and status line leave out.
	records *usage.Cache
}

// nudge is a text handed to the agent, and when.
type nudge struct {
	at   time.Time
	text string
}

// last is the session's last agent activity.
func (s *session) last() time.Time {
	if !s.active.IsZero() {
		return s.active
	}
	return s.listed
}

// started orders the session list: by start, so numbers stay put.
func (s *session) started() time.Time {
	if s.state != nil && !s.state.Started.IsZero() {
		return s.state.Started
	}
	if !s.first.IsZero() {
		return s.first
	}
	return s.listed
}

// pendingAck is an acknowledgment waiting out its undo window.
type pendingAck struct {
	session string
	ids     []string
	seq     int
	tell    bool // a tell (t), not an acknowledgment
}

// Model is the panel's one root model.
type Model struct {
	rules   engine.Config // the configuration in effect, for the budget gauges
	backend Backend
	journal <-chan tailer.Batch
	tick    time.Duration
	undo    time.Duration
	noColor bool
	tmux    bool
	notify  string
	instant bool // tests: timers fire at once

	styles Styles
	keys   KeyMap
	width  int
	height int
	now    time.Time // the panel's clock: every relative time is computed from it

	sess   map[string]*session
	follow string
	pinned bool
	here   string // Options.Here

	sel     string // the selected item's key
	selIdx  int
	chose   bool // the user moved the selection: keep it on their item
	details bool
	help    bool
	scroll  int

	alerts   alertMode
	pending  *pendingAck
	ask      *reasonPrompt // the resume's reason being typed (r, +)
	diff     *diffView     // the run's diff, open (d)
	rollback *rollbackView // a rollback's dry run or result, open (R)
	seq      int
	flash    string
	flashSeq int
	corrupt  int
	// errs is what cully's error log gained since the panel started: its
	// records say a hook call failed (and may be missing from the
	// journal), which nothing else on screen would show.
	errs errorsSeen
	// rec is what the state dir says about records that did not reach the
	// journal (read on start, each tick, and when errors.log is written):
	// a full disk loses calls without a word anywhere else.
	rec        store.Recording
	recReading bool

	caption     *CaptionMsg // the walkthrough's current caption, if any
	closing     *ClosingMsg // the walkthrough's end, once it came
	closingOpen bool        // the closing screen is shown (esc hides it)
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
	undo := o.Undo
	if undo <= 0 {
		undo = defaultUndo
	}
	notify := o.Notify
	if notify != notifyOSC777 {
		notify = notifyOSC9
	}
	rules := engine.DefaultConfig()
	if o.Rules != nil {
		rules = *o.Rules
	}
	return Model{
		rules: rules, backend: o.Backend, journal: o.Journal, tick: tick, undo: undo, noColor: o.NoColor, tmux: o.Tmux, notify: notify,
		styles: DefaultStyles(o.Dark, o.NoColor), keys: DefaultKeyMap(), now: now(),
		sess: map[string]*session{}, follow: o.Session, pinned: o.Session != "", here: o.Here, errs: errorsSeen{off: -1},
		width: 56, height: 24,
	}
}

// errorsSeen follows errors.log from where it ended as the panel started.
type errorsSeen struct {
	off     int64 // read up to here; -1 until the first read set it
	n       int   // records since the panel started
	last    string
	lastAt  time.Time
	reading bool
}

// Init starts the loads, the journal wait and the clock.
func (m Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.loadSessions(), m.backfill(), m.waitJournal(), tea.RequestBackgroundColor, m.readErrors(-1), m.readRecording()}
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
	b, here := m.backend, m.here
	return func() tea.Msg {
		ss, err := b.Sessions()
		msg := sessionsMsg{list: ss, err: err}
		if here != "" {
			for _, s := range ss {
				msg.roots = append(msg.roots, b.Root(s.Run, s.Cwd))
			}
		}
		return msg
	}
}

// loadState reads a session's state, and the project and usage hint that
// go with it: one command per reload, so the header's branch stays as
// current as the session's activity.
func (m Model) loadState(id string) tea.Cmd {
	b, now, here := m.backend, m.now, m.here
	var known place
	if s := m.sess[id]; s != nil {
		known = s.place
	}
	return func() tea.Msg {
		st, err := b.State(id)
		msg := stateMsg{session: id, state: st, err: err}
		if err == nil && st != nil {
			msg.project = b.Project(st.Cwd)
			msg.hint = b.UsageHint(st.Agent)
			msg.records = b.Records(st)
			msg.run = b.Run(st)
			msg.adv = b.Advisor(st, now)
			if here != "" {
				run, snaps := "", false
				if st.Run != nil {
					run, snaps = st.Run.ID, st.Run.Snapshots > 0
				}
				msg.place = place{key: placeKey(run, st.Cwd, snaps), root: known.root}
				if msg.place.key != known.key {
					msg.place.root = b.Root(run, st.Cwd)
				}
			}
		}
		return msg
	}
}

func (m Model) backfill() tea.Cmd {
	b := m.backend
	return func() tea.Msg {
		evs, _ := b.Recent(backfillWindow)
		return backfillMsg{events: evs}
	}
}

func (m Model) readErrors(off int64) tea.Cmd {
	b := m.backend
	return func() tea.Msg {
		t, err := b.Errors(off)
		return errorsMsg{from: off, tail: t, err: err}
	}
}

func (m Model) readRecording() tea.Cmd {
	b := m.backend
	return func() tea.Msg {
		r, err := b.Recording()
		return recordingMsg{rec: r, err: err}
	}
}

// checkRecording reads the failure counter again, unless a read is in
// flight.
func (m *Model) checkRecording() tea.Cmd {
	if m.recReading {
		return nil
	}
	m.recReading = true
	return m.readRecording()
}

// checkErrors reads what errors.log gained, unless a read is in flight.
// Until a first read has said where the log ended, it asks that again
// (Init's may still be on its way: a second answer changes nothing).
func (m *Model) checkErrors() tea.Cmd {
	if m.errs.reading {
		return nil
	}
	m.errs.reading = true
	return m.readErrors(m.errs.off)
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

func (m Model) writeAck(p *pendingAck) tea.Cmd {
	b, session, ids, tell := m.backend, p.session, p.ids, p.tell
	return func() tea.Msg {
		if tell {
			return ackMsg{session: session, ids: ids, tell: true, err: b.Tell(session, ids)}
		}
		return ackMsg{session: session, ids: ids, err: b.Ack(session, ids)}
	}
}

func (m Model) nextTick() tea.Cmd {
	if m.tick <= 0 { // tests: no clock of its own
		return nil
	}
	return tea.Tick(m.tick, func(t time.Time) tea.Msg { return tickMsg(t) })
}

// after is a timer: fn's message arrives d from now.
func (m Model) after(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
	if m.instant {
		at := m.now.Add(d)
		return func() tea.Msg { return fn(at) }
	}
	return tea.Tick(d, fn)
}

// get returns the session's record, creating it.
func (m Model) get(id string) *session {
	s := m.sess[id]
	if s == nil {
		s = &session{id: id, known: map[string]bool{}}
		m.sess[id] = s
	}
	return s
}

// followed returns the followed session's state, or nil.
func (m Model) followed() *engine.State {
	if s := m.sess[m.follow]; s != nil {
		return s.state
	}
	return nil
}

// listed are the sessions shown: those active within LiveWindow (the
// followed one always), at most maxListed of them (the followed one, then
// those that need the user, then those of the folder the panel started
// in, then the most recently active); those that need the user first,
// then those working, then the idle, each the folder's first, then in
// start order.
func (m Model) listed() []*session {
	var out []*session
	for _, s := range m.sess {
		if s.id == m.follow || !s.last().IsZero() && m.now.Sub(s.last()) < LiveWindow {
			out = append(out, s)
		}
	}
	rank := make(map[*session]int, len(out))
	for _, s := range out {
		rank[s] = m.need(s).Need.Rank()
	}
	if len(out) > maxListed {
		sort.Slice(out, func(i, j int) bool {
			if out[i].id == m.follow || out[j].id == m.follow {
				return out[i].id == m.follow
			}
			if a, b := rank[out[i]] == 0, rank[out[j]] == 0; a != b {
				return a
			}
			if a, b := m.ours(out[i]), m.ours(out[j]); a != b {
				return a
			}
			return out[i].last().After(out[j].last())
		})
		out = out[:maxListed]
	}
	sort.Slice(out, func(i, j int) bool {
		if a, b := rank[out[i]], rank[out[j]]; a != b {
			return a < b
		}
		if a, b := m.ours(out[i]), m.ours(out[j]); a != b {
			return a
		}
		a, b := out[i].started(), out[j].started()
		if !a.Equal(b) {
			return a.Before(b)
		}
		return out[i].id < out[j].id
	})
	return out
}

// need is what a session needs from the user at the panel's clock (its
// open checkpoints as shown: an acknowledgment in its undo window closes
// one); a session not loaded yet is idle.
func (m Model) need(s *session) engine.Attention {
	if s == nil || s.state == nil {
		return engine.Attention{Need: engine.NeedIdle}
	}
	return s.state.Attention(m.now, m.askCount(s))
}

// liveCount is how many sessions are live, listed or not.
func (m Model) liveCount() int {
	n := 0
	for _, s := range m.sess {
		if s.id == m.follow || !s.last().IsZero() && m.now.Sub(s.last()) < LiveWindow {
			n++
		}
	}
	return n
}

// item is one selectable row: a checkpoint, a guard warning, the run or
// the advisor.
type item struct {
	key string
	cp  *engine.Checkpoint
	g   *engine.Warning
	run *engine.Run
	adv bool
}

// items lists the followed session's selectable rows in screen order:
// open checkpoints, the latest closed ones, guard warnings newest first,
// the run (when its section has a row), the advisor (when configured).
func (m Model) items() []item {
	st := m.followed()
	if st == nil {
		return nil
	}
	var out []item
	for i := range st.Checkpoints {
		if c := &st.Checkpoints[i]; c.Status == engine.StatusOpen {
			out = append(out, item{key: "c:" + c.ID, cp: c})
		}
	}
	for _, c := range m.closed(st) {
		out = append(out, item{key: "c:" + c.ID, cp: c})
	}
	for i := len(st.Warnings) - 1; i >= 0; i-- {
		g := &st.Warnings[i]
		out = append(out, item{key: guardKey(g), g: g})
	}
	if r := st.Run; r != nil && runHasRow(r) {
		out = append(out, item{key: "r:" + r.ID, run: r})
	}
	if s := m.sess[m.follow]; s != nil && s.adv.configured() {
		out = append(out, item{key: "a:advisor", adv: true})
	}
	return out
}

func guardKey(g *engine.Warning) string {
	return "g:" + g.Time.Format(time.RFC3339Nano) + "\x00" + string(g.Reason) + "\x00" + g.Target + "\x00" + g.Evidence
}

// closed are the latest closed checkpoints, newest first, at most
// maxClosedShown.
func (m Model) closed(st *engine.State) []*engine.Checkpoint {
	var out []*engine.Checkpoint
	for i := len(st.Checkpoints) - 1; i >= 0 && len(out) < maxClosedShown; i-- {
		if c := &st.Checkpoints[i]; c.Status != engine.StatusOpen {
			out = append(out, c)
		}
	}
	return out
}

// selected returns the selected item, if any.
func (m Model) selected() (item, bool) {
	its := m.items()
	for _, it := range its {
		if it.key == m.sel {
			return it, true
		}
	}
	return item{}, false
}

// isPending reports whether a checkpoint's acknowledgment is waiting out
// its undo window.
func (m Model) isPending(session, id string) bool {
	if m.pending == nil || m.pending.tell || m.pending.session != session {
		return false
	}
	for _, p := range m.pending.ids {
		if p == id {
			return true
		}
	}
	return false
}

// isTelling reports whether a tell of a checkpoint is waiting out its
// undo window.
func (m Model) isTelling(session, id string) bool {
	if m.pending == nil || !m.pending.tell || m.pending.session != session {
		return false
	}
	return contains(m.pending.ids, id)
}

func contains(ids []string, id string) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// openCount is the followed session's open checkpoints, less those being
// acknowledged.
func (m Model) openCount(s *session) int { return m.countOpen(s, true) }

// askCount is openCount less the activity checkpoints (Reason.Activity):
// the open checkpoints that ask for the user, what flags the session.
func (m Model) askCount(s *session) int { return m.countOpen(s, false) }

func (m Model) countOpen(s *session, activity bool) int {
	if s == nil || s.state == nil {
		return 0
	}
	n := 0
	for _, c := range s.state.Checkpoints {
		if c.Status == engine.StatusOpen && !m.isPending(s.id, c.ID) && (activity || !c.Reason.Activity()) {
			n++
		}
	}
	return n
}

// toldBy finds the nudge that told the agent about an item: the first one
// handed over at or after it was raised that names it.
func (s *session) toldBy(it item) (nudge, bool) {
	if s == nil {
		return nudge{}, false
	}
	for _, n := range s.nudges {
		switch {
		case it.cp != nil:
			if !n.at.Before(it.cp.Raised) && strings.Contains(n.text, "checkpoint "+it.cp.ID+" (") {
				return n, true
			}
		case it.g != nil:
			if !n.at.Before(it.g.Time) && strings.Contains(n.text, it.g.Evidence) {
				return n, true
			}
		}
	}
	return nudge{}, false
}
