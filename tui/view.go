package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"cully/engine"
	"cully/usage"
)

// View renders the panel for the current size.
func (m Model) View() tea.View {
	v := tea.NewView(m.Render())
	v.AltScreen = true
	v.WindowTitle = "cully"
	if n := m.askCount(m.sess[m.follow]); n > 0 {
		v.WindowTitle = fmt.Sprintf("cully ⚑ %d open", n)
	}
	if a := m.need(m.sess[m.follow]); a.Need == engine.NeedYou && a.Cause != engine.CauseCheckpoint {
		mark, word, _ := m.needMark(a, true)
		v.WindowTitle = "cully " + mark + " " + word
	}
	return v
}

// Render is the panel as text, cut to the window: every line to the width
// by display cells, the whole to the height by giving the least important
// sections less room first. The key bar stays at the bottom.
func (m Model) Render() string {
	w, h := max(m.width, 20), max(m.height, 6)
	head := m.header(w)
	foot := m.footer(w)
	// A walkthrough's caption takes at most half of what is left: the
	// panel it narrates stays in view.
	narr := m.narration(w, max((h-len(head)-len(foot))/2, 2))
	room := max(h-len(head)-len(narr)-len(foot), 0)

	var body []string
	switch {
	case m.closingOpen && !m.help:
		body = m.scrolled(m.closingLines(w), room)
	case m.followed() == nil:
		body = m.waiting(w)
	case m.diff != nil && !m.help: // whole width at any width: a diff keeps its columns
		body = m.scrolled(m.diffLines(w), room)
	case m.rollback != nil && !m.help:
		body = m.scrolled(m.rollbackLines(w), room)
	case w >= wideFrom:
		body = m.wide(w, room)
	case m.help:
		body = m.scrolled(append([]string{""}, m.helpLines(w)...), room)
	case m.details:
		body = m.scrolled(append([]string{""}, m.detailLines(w)...), room)
	default:
		body = m.mainBody(w, room)
	}
	if m.help && m.followed() == nil {
		body = m.scrolled(m.helpLines(w), room)
	}
	if len(body) > room {
		body = body[:room]
	}
	for len(body) < room {
		body = append(body, "")
	}
	lines := append(append(append(head, body...), narr...), foot...)
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		lines[i] = cut(l, w)
	}
	return strings.Join(lines, "\n")
}

// waiting is the body before any session has loaded.
func (m Model) waiting(w int) []string {
	s := m.styles
	if m.follow != "" {
		return []string{"", s.Dim.Render(cut("loading session "+shortID(m.follow)+"…", w))}
	}
	return append([]string{""}, styleLines(s.Dim, wrap("No session recorded yet. Run `cully install`, then start your agent: its sessions appear here as it works.", w))...)
}

// header is two lines: where (project, branch) and how it goes (state,
// last activity, agent, task, calls).
func (m Model) header(w int) []string {
	s := m.styles
	ss := m.sess[m.follow]
	if ss == nil || ss.state == nil {
		return []string{s.Brand.Render(" cully ") + s.Dim.Render(cut(" waiting for the first hook call", w-7))}
	}
	st := ss.state
	brand := s.Brand.Render(" cully ") + " "
	avail := w - 8
	name, branch := clean(ss.project.Name), clean(ss.project.Branch)
	if name == "" {
		name = "session " + shortID(ss.id)
	}
	line := brand
	if branch != "" {
		bw := min(width(branch), max(avail-width(name)-3, 10))
		nw := max(avail-3-bw, 4)
		line += s.Project.Render(cut(name, nw)) + s.Dim.Render(" · ") + s.Branch.Render(cut(branch, bw))
	} else {
		line += s.Project.Render(cut(name, avail))
	}
	if id := "  " + shortID(ss.id); w >= 80 && width(line)+width(id) <= w && ss.project.Name != "" {
		line += s.Dim.Render(id)
	}

	n := m.askCount(ss)
	var state string
	a := st.Attention(m.now, n)
	switch {
	case a.Need == engine.NeedYou && a.Cause != engine.CauseCheckpoint:
		// The run's control, a question or a call that waits: what the
		// user has to do before anything else.
		state = s.Accent.Render(m.needWords(a, w))
	case n > 0 && w < 48:
		state = s.Accent.Render(fmt.Sprintf("⚑ %d open", n))
	case n > 0:
		state = s.Accent.Render(fmt.Sprintf("⚑ %d open checkpoint%s", n, plural(n, "", "s")))
	case st.Ended:
		state = s.Dim.Render("○ session ended")
	case st.Events == 0:
		state = s.Dim.Render("○ no activity yet")
	default:
		state = s.Good.Render("● on track")
	}
	agent := st.Agent
	if agent == "" {
		agent = "unknown agent"
	}
	last := "last " + ago(m.now, ss.last())
	if w < 48 {
		last = ago(m.now, ss.last())
	}
	parts := []string{last, clean(agent), fmt.Sprintf("task %d", st.Task),
		fmt.Sprintf("%d call%s", st.Counts.ToolCalls, plural(st.Counts.ToolCalls, "", "s"))}
	meta := state
	for _, p := range parts {
		if width(meta)+3+width(p) > w {
			break
		}
		meta += s.Dim.Render(" · " + p)
	}
	return []string{line, meta}
}

// needWords is what a session needs from the user, in the header's words:
// "■ paused 2m ago", "? waiting on Bash for 3m" (shorter under 48
// columns).
func (m Model) needWords(a engine.Attention, w int) string {
	mark, word, _ := m.needMark(a, true)
	text := mark + " " + word
	switch a.Cause {
	case engine.CauseRollback:
		text = mark + " rollback failed"
	case engine.CauseWaiting, engine.CauseQuestion, engine.CausePermission:
		if t := clean(a.Tool); t != "" && w >= 48 {
			text += " on " + t
		}
	}
	if a.Since.IsZero() {
		return text
	}
	age := agoShort(m.now, a.Since)
	switch {
	case w < 48 || age == "now":
		return text + " " + age
	case a.Cause == engine.CauseWaiting || a.Cause == engine.CauseQuestion || a.Cause == engine.CausePermission:
		return text + " for " + age
	}
	return text + " " + age + " ago"
}

// sectionHead is a section's title, its counts, and a rule to the edge.
func (m Model) sectionHead(w int, title, counts string) string {
	s := m.styles
	l := s.Section.Render(title)
	if counts != "" {
		l += " " + counts
	}
	if rest := w - width(l) - 1; rest > 0 {
		l += " " + s.Rule.Render(strings.Repeat("─", rest))
	}
	return l
}

// Degradation levels of the main body: at each level a section gives up
// some room, least important first, until the body fits.
const (
	lvlSpaced        = iota // a blank line between sections
	lvlFull                 // every section whole
	lvlNoBudget             // the budget lines go
	lvlNoClosed             // closed checkpoints are only counted
	lvlFewGuards            // two guard rows
	lvlShortOpen            // unselected open checkpoints on one line
	lvlNoGuards             // guards only counted (a selected one stays)
	lvlOneSession           // the session list on one line
	lvlShortSelected        // the selected row on one line too
	lvlLast          = lvlShortSelected
	minRecent        = 4 // the activity list's title and three rows, kept while anything else can give
	spacedRecent     = 8 // the spaced layout only when the activity list keeps this much
	guardRows        = 4
)

// mainBody lays out the sections for the room there is.
func (m Model) mainBody(w, room int) []string {
	var fixed []string
	lvl := lvlSpaced
	for ; lvl <= lvlLast; lvl++ {
		fixed = m.sections(w, lvl)
		if need := map[bool]int{true: spacedRecent + 2, false: minRecent}[lvl == lvlSpaced]; len(fixed)+need <= room {
			break
		}
	}
	if lvl > lvlLast {
		for lvl = lvlFull; lvl <= lvlLast; lvl++ {
			if fixed = m.sections(w, lvl); len(fixed) <= room {
				break
			}
		}
	}
	if lvl == lvlSpaced && len(fixed) > 0 {
		fixed = append(append([]string{""}, fixed...), "")
	}
	return append(fixed, m.recentLines(w, room-len(fixed))...)
}

// sections are the body above the activity list, at a level of detail.
func (m Model) sections(w, lvl int) []string {
	var out []string
	add := func(sec []string) {
		if len(sec) == 0 {
			return
		}
		if lvl == lvlSpaced && len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, sec...)
	}
	add(m.sessionLines(w, lvl))
	add(m.checkpointLines(w, lvl))
	add(m.guardLines(w, lvl))
	// The run and the advisor are a line each while nothing needs the
	// user: together, they take one gap of the spaced layout.
	add(append(m.runLines(w, lvl), m.advisorLines(w, lvl)...))
	if lvl < lvlNoBudget {
		add(m.budgetLines(w))
	}
	return out
}

// sessionLines lists the live sessions when there is more than one.
func (m Model) sessionLines(w, lvl int) []string {
	ls := m.listed()
	if len(ls) < 2 {
		return nil
	}
	s := m.styles
	total := m.liveCount()
	counts := s.Dim.Render(fmt.Sprintf("%d", len(ls)))
	if total > len(ls) {
		counts = s.Dim.Render(fmt.Sprintf("%d of %d", len(ls), total))
	}
	if lvl >= lvlOneSession {
		for i, ss := range ls {
			if ss.id == m.follow {
				counts = s.Dim.Render(fmt.Sprintf("%d/%d · tab", i+1, len(ls)))
			}
		}
		return []string{m.sectionHead(w, "Sessions", counts)}
	}
	names := map[string]int{}
	for _, ss := range ls {
		names[ss.project.Name]++
	}
	rows := make([]sessionRow, len(ls))
	nameW := 0
	for i, ss := range ls {
		rows[i] = sessionRow{n: i + 1, s: ss, followed: ss.id == m.follow, dup: names[ss.project.Name] > 1, need: m.need(ss), m: &m}
		nameW = max(nameW, width(rows[i].name(w)))
	}
	out := []string{m.sectionHead(w, "Sessions", counts)}
	for _, r := range rows {
		r.nameW = nameW
		out = append(out, r.Render(w))
	}
	return out
}

// sessionRow is one line of the session list.
type sessionRow struct {
	n        int
	s        *session
	followed bool
	dup      bool // another listed session has the same project name
	need     engine.Attention
	nameW    int // the name column's width: the widest name listed
	m        *Model
}

// needMark is a session's need as a mark and a word: in the accent colour
// what needs the user (■ the run's control, ⚑ checkpoints, ? a call that
// waits on them), ● working, ○ idle.
func (m Model) needMark(a engine.Attention, loaded bool) (mark, word string, accent bool) {
	if !loaded {
		return "…", "loading", false
	}
	switch a.Cause {
	case engine.CauseStopped, engine.CauseHalted, engine.CausePaused:
		return "■", string(a.Cause), true
	case engine.CauseRollback:
		return "✗", "rollback", true
	case engine.CauseCheckpoint:
		return "⚑", fmt.Sprintf("%d open", a.Open), true
	case engine.CauseQuestion, engine.CausePermission, engine.CauseWaiting:
		return "?", string(a.Cause), true
	case engine.CauseEnded:
		return "○", "ended", false
	}
	if a.Need == engine.NeedWorking {
		return "●", "working", false
	}
	return "○", "idle", false
}

// Render is the row: its number, the project (and branch where there is
// room), the agent, what it needs, and the age of its last activity (its
// calls from 80 columns).
func (r sessionRow) Render(w int) string {
	s, now := r.m.styles, r.m.now
	lead := fmt.Sprintf("%d", r.n)
	if r.followed {
		lead += "▸ "
	} else {
		lead += "  "
	}
	st := r.s.state
	mark, word, accent := r.m.needMark(r.need, st != nil)
	ms := s.Dim
	switch {
	case accent:
		ms = s.Accent
	case r.need.Need == engine.NeedWorking:
		ms = s.Good
	}
	state := ms.Render(mark)
	if w >= 44 {
		ws := s.Dim
		if accent {
			ws = s.Accent
		}
		state += " " + ws.Render(pad(word, 10))
	}
	right := state + " " + s.Dim.Render(padLeft(agoShort(now, r.s.last()), 3))
	if w >= 80 && st != nil {
		calls := fmt.Sprint(st.Counts.ToolCalls) + plural(st.Counts.ToolCalls, " call ", " calls")
		right += s.Dim.Render(padLeft(calls, 10))
	}
	if w >= 48 {
		agent := ""
		if st != nil {
			agent = clean(st.Agent)
		}
		right = s.Dim.Render(pad(agent, 7)) + " " + right
	}
	room := w - width(lead) - width(right) - 2
	if r.nameW > 0 {
		room = min(room, r.nameW)
	}
	name := r.label()
	ns := s.Text
	if r.followed {
		ns = s.Strong
	}
	left := ns.Render(cut(name, room))
	if b := clean(r.s.project.Branch); b != "" && w >= 44 && width(name)+3+min(width(b), 6) <= room {
		left += s.Branch.Render(cut(" · "+b, room-width(name)))
	}
	gap := max(room-width(left), 0) + 2
	return s.Dim.Render(lead) + left + strings.Repeat(" ", gap) + right
}

// label is the session's project name, with its id when another listed
// session has the same project.
func (r sessionRow) label() string {
	name := clean(r.s.project.Name)
	if name == "" {
		return shortID(r.s.id)
	}
	if r.dup {
		name += " " + cutNoTail(shortID(r.s.id), 4)
	}
	return name
}

// name is what the row's name column holds at width w.
func (r sessionRow) name(w int) string {
	n := r.label()
	if b := clean(r.s.project.Branch); b != "" && w >= 44 {
		n += " · " + b
	}
	return n
}

// checkpointLines lists the open checkpoints, then the latest closed ones.
func (m Model) checkpointLines(w, lvl int) []string {
	s := m.styles
	st := m.followed()
	ss := m.sess[m.follow]
	open := m.openCount(ss)
	closedAll := 0
	for _, c := range st.Checkpoints {
		if c.Status != engine.StatusOpen {
			closedAll++
		}
	}
	if len(st.Checkpoints) == 0 {
		return []string{m.sectionHead(w, "Checkpoints", s.Good.Render("none"))}
	}
	counts := s.Good.Render("none open")
	if ask := m.askCount(ss); ask > 0 {
		counts = s.Accent.Render(fmt.Sprintf("%d open", ask))
		if open > ask {
			counts += s.Dim.Render(fmt.Sprintf(" · %d activity", open-ask))
		}
	} else if open > 0 {
		counts = s.Dim.Render(fmt.Sprintf("%d activity", open))
	}
	if closedAll > 0 {
		counts += s.Dim.Render(fmt.Sprintf(" · %d closed", closedAll))
	}
	out := []string{m.sectionHead(w, "Checkpoints", counts)}
	for _, it := range m.items() {
		if it.cp == nil {
			continue
		}
		sel := it.key == m.sel
		if it.cp.Status != engine.StatusOpen && lvl >= lvlNoClosed && !sel {
			continue
		}
		expand := sel && lvl < lvlShortSelected || it.cp.Status == engine.StatusOpen && lvl < lvlShortOpen
		out = append(out, m.itemRow(it, sel, expand).Render(w)...)
	}
	shown := min(closedAll, maxClosedShown)
	if lvl >= lvlNoClosed {
		shown = 0
	}
	if more := closedAll - shown; more > 0 && lvl < lvlNoClosed {
		out = append(out, s.Dim.Render(cut(fmt.Sprintf("  +%d earlier closed: cully status", more), w)))
	}
	return out
}

// guardLines lists guard warnings, newest first, in a window that keeps
// the selection in view.
func (m Model) guardLines(w, lvl int) []string {
	s := m.styles
	st := m.followed()
	n := len(st.Warnings)
	if n == 0 {
		return nil
	}
	var gs []item
	selAt := -1
	for _, it := range m.items() {
		if it.g != nil {
			if it.key == m.sel {
				selAt = len(gs)
			}
			gs = append(gs, it)
		}
	}
	rows := guardRows
	switch {
	case lvl >= lvlNoGuards:
		rows = 0
	case lvl >= lvlFewGuards:
		rows = 2
	}
	if selAt >= 0 {
		rows = max(rows, 1)
	}
	rows = min(rows, n)
	start := 0
	if selAt >= rows {
		start = selAt - rows + 1
	}
	head := m.sectionHead(w, "Guards", s.Dim.Render(fmt.Sprint(n)))
	if rows == 0 {
		return []string{head}
	}
	out := []string{head}
	if start > 0 {
		out = append(out, s.Dim.Render(cut(fmt.Sprintf("  ↑ %d newer", start), w)))
	}
	for _, it := range gs[start : start+rows] {
		sel := it.key == m.sel
		out = append(out, m.itemRow(it, sel, sel && lvl < lvlShortSelected).Render(w)...)
	}
	if more := n - start - rows; more > 0 {
		out = append(out, s.Dim.Render(cut(fmt.Sprintf("  +%d more (j to reach)", more), w)))
	}
	return out
}

// part is a piece of a row's title line and its style.
type part struct {
	text  string
	style func(...string) string
}

// titleLine is a selectable row's line: its parts in their styles, cut to
// the width, or the selection's highlight across the whole line.
func (m Model) titleLine(w int, sel bool, parts []part) string {
	lead := "  "
	if sel {
		lead = "▸ "
	}
	if sel {
		plain := lead
		for _, p := range parts {
			plain += p.text
		}
		return m.styles.Selected.Render(pad(plain, w))
	}
	title := lead
	used := width(lead)
	for _, p := range parts {
		t := cut(p.text, w-used)
		title += p.style(t)
		used += width(t)
		if used >= w {
			break
		}
	}
	return title
}

func (m Model) itemRow(it item, sel, expand bool) itemRow {
	ss := m.sess[m.follow]
	return itemRow{it: it, sel: sel, expand: expand, pending: it.cp != nil && m.isPending(m.follow, it.cp.ID), m: &m, s: ss}
}

// itemRow is a checkpoint or guard in a list: a title line and, expanded,
// its whole evidence wrapped below it.
type itemRow struct {
	it      item
	sel     bool
	expand  bool
	pending bool
	m       *Model
	s       *session
}

func (r itemRow) Render(w int) []string {
	st, now := r.m.styles, r.m.now
	var parts []part
	var evidence string
	evStyle := st.Text
	if c := r.it.cp; c != nil {
		evidence = clean(c.Evidence)
		switch {
		case r.pending:
			parts = []part{{"✓ ", st.Good.Render}, {c.ID + " " + string(c.Reason), st.Strong.Render}, {" · acknowledging, u undoes", st.Dim.Render}}
		case c.Status == engine.StatusOpen:
			told := "not told"
			switch {
			case c.Nudged:
				told = "told"
			case c.Asked || r.m.isTelling(r.m.follow, c.ID):
				told = "telling"
			}
			flag := part{"⚑ ", st.Accent.Render}
			if c.Reason.Activity() { // shown for the user to judge; it asks for nothing
				flag = part{"◦ ", st.Dim.Render}
			}
			parts = []part{flag, {c.ID + " " + string(c.Reason), st.Strong.Render}, {" · " + agoShort(now, c.Raised) + " · " + told, st.Dim.Render}}
		default:
			ss := st.Dim
			if c.Status == engine.StatusResolved {
				ss = st.Good
			}
			at := ""
			if c.Closed != nil {
				at = " " + agoShort(now, *c.Closed)
			}
			parts = []part{{"○ ", st.Dim.Render}, {c.ID + " " + string(c.Reason), st.Dim.Render}, {" · ", st.Dim.Render}, {string(c.Status), ss.Render}, {at, st.Dim.Render}}
			evStyle = st.Dim
		}
	} else if g := r.it.g; g != nil {
		evidence = clean(freshen(g.Evidence, g.Time, now))
		meta := " · " + agoShort(now, g.Time)
		if !g.Nudged {
			meta += " · not told"
		}
		parts = []part{{"! ", st.Text.Render}, {string(g.Reason), st.Text.Render}, {meta, st.Dim.Render}}
		if !r.expand {
			subject := clean(g.Target)
			if subject == "" {
				subject = evidence
			}
			parts = append(parts, part{" · " + subject, st.Dim.Render})
		}
	}
	title := r.m.titleLine(w, r.sel, parts)
	out := []string{title}
	if r.expand && evidence != "" {
		out = append(out, styleLines(evStyle, wrapIndent(evidence, w, 4))...)
	}
	return out
}

// budgetLines: what the run has cost, and how to get the figures cully
// lacks when the host can give them.
func (m Model) budgetLines(w int) []string {
	s := m.styles
	ss := m.sess[m.follow]
	st := ss.state
	var start = st.Started
	calls := fmt.Sprintf("wall %s · %d calls · %d failed", dur(ss.last().Sub(start)), st.Counts.ToolCalls, st.Counts.Failures)
	if start.IsZero() {
		calls = fmt.Sprintf("%d calls · %d failed", st.Counts.ToolCalls, st.Counts.Failures)
	}
	out := append([]string{m.sectionHead(w, "Budget", "")}, styleLines(s.Text, wrapIndent(calls, w, 2))...)
	// The host's figures, and where it gave none what its own record of
	// the session holds: a cost from there is the price table's, and says
	// it is an estimate.
	var figs []string
	u := usage.Merge(st.Usage, ss.records)
	switch {
	case u.CostUSD != nil && u.Estimated:
		figs = append(figs, "~"+engine.USD(*u.CostUSD)+" est.")
	case u.CostUSD != nil:
		figs = append(figs, engine.USD(*u.CostUSD))
	case len(u.Unpriced) > 0 && w >= 44:
		figs = append(figs, "cost unknown ("+u.Unpriced[0]+" unpriced)")
	}
	if u.Context != nil {
		c := fmt.Sprintf("context %s tokens", kilo(*u.Context))
		if u.Window != nil && *u.Window > 0 {
			c = fmt.Sprintf("context %d%% of %s", 100**u.Context / *u.Window, kilo(*u.Window))
		}
		figs = append(figs, c)
	}
	if n, ok := u.Tokens(); ok && u.Input != nil && u.Output != nil {
		t := kilo(n) + " tokens"
		if u.CacheRead != nil && w >= 44 {
			t += " (+" + kilo(*u.CacheRead) + " cache reads)"
		}
		figs = append(figs, t)
	}
	for _, l := range u.Limits {
		figs = append(figs, fmt.Sprintf("%s limit %.0f%%", l.Window(), l.UsedPercent))
	}
	switch {
	case len(figs) > 0:
		out = append(out, styleLines(s.Text, wrapIndent(strings.Join(figs, " · "), w, 2))...)
	case ss.hint != "":
		out = append(out, styleLines(s.Dim, wrapIndent("cost and context: run `"+ss.hint+"`", w, 2))...)
	}
	// The run's budget nearest its limit, as a gauge (every one: the run's
	// details).
	if f, ok := m.closestBudget(st); ok && st.Run != nil {
		text := fmt.Sprintf(" %s %s/%s", resourceName(f.Res), amount(f.Res, f.Used), amount(f.Res, f.Limit))
		if w >= 44 {
			text = fmt.Sprintf(" %s %s of %s (%.0f%%)", resourceName(f.Res), amount(f.Res, f.Used), amount(f.Res, f.Limit), 100*f.Used/f.Limit)
		}
		out = append(out, "  "+m.gauge(f)+s.Text.Render(cut(text, max(0, w-2-gaugeWidth))))
	}
	return out
}

func kilo(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}

// recentLines is the activity list, newest first, in the room left.
func (m Model) recentLines(w, room int) []string {
	if room < 2 {
		return nil
	}
	ss := m.sess[m.follow]
	recent := ss.recent
	if len(recent) == 0 {
		return []string{m.sectionHead(w, "Recent", ""), m.styles.Dim.Render(cut("  no tool calls in the journal read yet", w))}
	}
	out := []string{m.sectionHead(w, "Recent", "")}
	for i := len(recent) - 1; i >= 0 && len(out) < room; i-- {
		out = append(out, activityRow{ev: recent[i], m: &m}.Lines(w)...)
	}
	return out[:min(len(out), room)]
}

// styleLines styles each line on its own (a style across a newline would
// bleed into the padding).
func styleLines(st interface{ Render(...string) string }, lines []string) []string {
	for i, l := range lines {
		lines[i] = st.Render(l)
	}
	return lines
}

// scrolled shows lines from the scroll offset, with a marker when more
// follow below.
func (m Model) scrolled(lines []string, room int) []string {
	if room <= 0 {
		return nil
	}
	off := min(m.scroll, max(len(lines)-room, 0))
	lines = lines[off:]
	if len(lines) > room {
		more := len(lines) - room + 1
		lines = append(lines[:room-1:room-1], m.styles.Dim.Render(fmt.Sprintf("  ↓ %d more line%s · pgdn", more, plural(more, "", "s"))))
	}
	return lines
}

// wide sets the lists beside the details of the selected item (or of the
// session, when nothing is selected).
func (m Model) wide(w, room int) []string {
	lw := (w - 3) * 11 / 20
	rw := w - 3 - lw
	left := m.mainBody(lw, room)
	var right []string
	switch {
	case m.help:
		right = m.helpLines(rw)
	default:
		right = m.detailLines(rw)
	}
	if len(left) > 0 && left[0] == "" { // the spaced layout: the details start level with the first section
		right = append([]string{""}, right...)
	}
	right = m.scrolled(right, room)
	sep := m.styles.Rule.Render(" │ ")
	out := make([]string, room)
	for i := range out {
		l, r := "", ""
		if i < len(left) {
			l = left[i]
		}
		if i < len(right) {
			r = right[i]
		}
		out[i] = pad(l, lw) + sep + cut(r, rw)
	}
	return out
}
