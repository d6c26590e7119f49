package tui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"cully/engine"
)

// View renders the panel for the current size.
func (m Model) View() tea.View {
	v := tea.NewView(m.Render())
	v.AltScreen = true
	v.WindowTitle = "cully"
	return v
}

// Render is the panel as text, cut to the window: every line to the width
// by display cells, the whole to the height by dropping the least important
// sections first.
func (m Model) Render() string {
	w, h := max(m.width, 20), max(m.height, 6)
	s := m.styles
	st := m.followed()

	var head, body []string
	if st == nil {
		head = append(head, s.Title.Render("cully")+s.Dim.Render(" · waiting for the first hook call"))
		if m.follow != "" {
			head = append(head, s.Dim.Render("session "+short(m.follow)+": loading…"))
		} else {
			head = append(head, s.Dim.Render("no session recorded yet: run `cully install`, then start your agent"))
		}
	} else {
		head = m.header(st)
		body = m.body(st, w, h)
	}
	foot := []string{}
	if m.status != "" {
		foot = append(foot, s.Dim.Render(m.status))
	}
	foot = append(foot, strings.Split(m.help.View(m.keys), "\n")...)

	// Fit: the header and the help bar stay; the body gives way.
	room := h - len(head) - len(foot)
	if room < 0 {
		room = 0
	}
	if len(body) > room {
		body = body[:room]
	}
	lines := append(append(head, body...), foot...)
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, w, "…")
	}
	return strings.Join(lines, "\n")
}

func (m Model) header(st *engine.State) []string {
	s := m.styles
	agent := st.Agent
	if agent == "" {
		agent = "unknown agent"
	}
	title := s.Title.Render("cully") + s.Dim.Render(fmt.Sprintf(" · %s · %s · task %d", agent, short(st.Session), st.Task))
	if len(m.sessions) > 1 {
		title += s.Dim.Render(fmt.Sprintf(" · %d sessions", len(m.sessions)))
	}
	var state string
	switch {
	case len(st.OpenCheckpoints()) > 0:
		state = s.Warn.Render(fmt.Sprintf("⚑ %d open checkpoint%s", len(st.OpenCheckpoints()), plural(len(st.OpenCheckpoints()))))
	case st.Ended:
		state = s.Dim.Render("○ session ended")
	case st.Events == 0:
		state = s.Dim.Render("○ unknown")
	default:
		state = s.Good.Render("● on track")
	}
	last := st.LastSeen
	if t := m.seen[st.Session]; t.After(last) {
		last = t
	}
	state += s.Dim.Render(" · last " + last.Local().Format("15:04:05") + " (" + ago(m.now(), last) + ")")
	return []string{title, state}
}

// body renders the sections below the header, most important first, each
// cut to what the height allows.
func (m Model) body(st *engine.State, w, h int) []string {
	s := m.styles
	rule := s.Rule.Render(strings.Repeat("─", w))
	var out []string
	open := st.OpenCheckpoints()

	if m.details && len(open) > 0 {
		c := open[min(m.cursor, len(open)-1)]
		out = append(out, rule, s.Label.Render("Checkpoint "+c.ID)+s.Dim.Render(" · enter to close"))
		out = append(out, wrap(s.Warn.Render(string(c.Reason))+" — "+c.Evidence, w)...)
		out = append(out, wrap(s.Dim.Render("suggested: ")+engine.Action(c.Reason), w)...)
		told := "not yet: it goes with the agent's next tool call"
		if c.Nudged {
			told = "yes"
		}
		out = append(out,
			s.Dim.Render("raised ")+c.Raised.Local().Format("15:04:05")+s.Dim.Render(fmt.Sprintf(" · task %d · check epoch %d", c.Task, c.Epoch)),
			s.Dim.Render("agent told: ")+told,
			s.Dim.Render("a: acknowledge · cully ack "+c.ID))
		return out
	}

	// Checkpoints.
	closed := len(st.Checkpoints) - len(open)
	label := s.Label.Render("Checkpoints")
	if len(open) == 0 {
		label += s.Good.Render(" none open")
	} else {
		label += s.Warn.Render(fmt.Sprintf(" %d open", len(open)))
	}
	if closed > 0 {
		label += s.Dim.Render(fmt.Sprintf(" · %d closed", closed))
	}
	out = append(out, rule, label)
	for i, c := range open {
		line := fmt.Sprintf("%s %s — %s", c.ID, c.Reason, c.Evidence)
		if !c.Nudged {
			line += " (pending)"
		}
		if i == m.cursor {
			out = append(out, s.Selected.Render("▸ "+line))
		} else {
			out = append(out, "  "+line)
		}
	}

	// Guard warnings: the latest few.
	if n := len(st.Warnings); n > 0 {
		out = append(out, s.Label.Render("Guards")+s.Dim.Render(fmt.Sprintf(" %d", n)))
		for _, g := range st.Warnings[max(0, n-3):] {
			out = append(out, "  "+s.Warn.Render(string(g.Reason))+" "+s.Dim.Render(g.Evidence))
		}
	}

	// Budget.
	out = append(out, s.Label.Render("Budget")+" "+fmt.Sprintf("wall %s · %d calls · %d failed", dur(st.LastSeen.Sub(st.Started)), st.Counts.ToolCalls, st.Counts.Failures))
	tokens, cost, ctx := "unknown", "unknown", "unknown"
	if u := st.Usage; u != nil {
		if u.InputTokens != nil && u.OutputTokens != nil {
			tokens = fmt.Sprint(*u.InputTokens + *u.OutputTokens)
		}
		if u.CostUSD != nil {
			cost = fmt.Sprintf("$%.2f", *u.CostUSD)
		}
		if u.ContextTokens != nil {
			ctx = fmt.Sprint(*u.ContextTokens)
			if u.ContextWindow != nil && *u.ContextWindow > 0 {
				ctx = fmt.Sprintf("%d%%", 100**u.ContextTokens / *u.ContextWindow)
			}
		}
	}
	out = append(out, "       "+s.Dim.Render(fmt.Sprintf("tokens %s · cost %s · context %s", tokens, cost, ctx)))
	out = append(out, s.Label.Render("Advisor")+s.Dim.Render(" not configured")+s.Dim.Render(" · ")+s.Label.Render("Ledger")+s.Dim.Render(" not configured"))

	// Recent activity fills what is left (Render cuts the body from the
	// bottom), newest first.
	recent := m.recent[st.Session]
	if len(recent) > 0 {
		out = append(out, s.Label.Render("Recent"))
		for i := len(recent) - 1; i >= 0 && i >= len(recent)-h; i-- {
			out = append(out, m.activity(recent[i]))
		}
	}
	return out
}

// activity is one line per tool call: class glyph, tool, target, outcome.
func (m Model) activity(ev *engine.Event) string {
	s := m.styles
	if ev.Kind == engine.KindPrompt {
		return s.Title.Render("» ") + s.Dim.Render(fmt.Sprintf("prompt · task %d", ev.Task))
	}
	glyph := map[engine.Class]string{engine.ClassRead: "R", engine.ClassEdit: "E", engine.ClassCheck: "✓",
		engine.ClassRun: "$", engine.ClassPoll: "…", engine.ClassOther: "·"}[ev.Class]
	if glyph == "" {
		glyph = "·"
	}
	what := ev.Target
	if what == "" {
		what = ev.Cmd
	}
	outcome := ""
	switch ev.Outcome {
	case engine.OutcomeFailed:
		if ev.Class == engine.ClassCheck {
			glyph = "✗"
		}
		outcome = s.Bad.Render(" failed")
		if ev.Exit != nil {
			outcome = s.Bad.Render(fmt.Sprintf(" exit %d", *ev.Exit))
		}
	case engine.OutcomeUnknown:
		if ev.Class == engine.ClassCheck {
			glyph = "?"
		}
		outcome = s.Dim.Render(" unknown")
		if ev.Note != "" {
			outcome = s.Dim.Render(" " + ev.Note)
		}
	}
	g := s.Dim.Render(glyph)
	switch {
	case glyph == "✓":
		g = s.Good.Render(glyph)
	case glyph == "✗":
		g = s.Bad.Render(glyph)
	}
	return fmt.Sprintf("%s %-5s %s%s", g, ansi.Truncate(ev.Tool, 5, ""), what, outcome)
}

func wrap(s string, w int) []string {
	return strings.Split(ansi.Wrap(s, w, " "), "\n")
}

func short(id string) string {
	if len(id) > 13 {
		return id[:8] + "…"
	}
	return id
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func ago(now, t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	d := now.Sub(t)
	switch {
	case d < 0:
		return "clock skew"
	case d < 10*time.Second:
		return "just now"
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", int(d.Seconds())/10*10)
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}

func dur(d time.Duration) string {
	if d < 0 {
		return "unknown"
	}
	return d.Round(time.Second).String()
}
