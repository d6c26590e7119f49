package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"

	"cully/engine"
)

// footer is the transient line (what the last action did, or an error)
// and the key bar: the keys that apply now, as many as fit, the alerts
// state always among them.
func (m Model) footer(w int) []string {
	s := m.styles
	var out []string
	if r := m.recording(w); r != "" {
		out = append(out, s.Bad.Render(r))
	}
	if h := m.health(w); h != "" {
		out = append(out, s.Bad.Render(h))
	}
	if m.ask != nil { // the prompt and its two keys, nothing else
		out = append(out, m.promptLines(w)...)
		return append(out, s.Key.Render("↵")+" "+s.KeyDesc.Render("resume")+"  "+s.Key.Render("esc")+" "+s.KeyDesc.Render("cancel"))
	}
	if m.flash != "" {
		for _, l := range wrap(clean(m.flash), w) {
			out = append(out, s.Flash.Render(l))
		}
		if len(out) > 2 {
			out = out[:2]
		}
	}
	type hint struct {
		b     key.Binding
		desc  string
		prio  int // lower stays longer
		order int
	}
	k := m.keys
	var hs []hint
	add := func(b key.Binding, desc string, prio int) {
		hs = append(hs, hint{b, desc, prio, len(hs)})
	}
	if m.pending != nil {
		add(k.Undo, "undo", 0)
	}
	switch {
	case m.help:
		add(k.Close, "close", 1)
	case m.rollback != nil:
		if v := m.rollback; v.loaded && !v.done && v.err == nil && v.plan != nil && len(v.plan.Restore)+len(v.plan.Remove) > 0 {
			add(k.Confirm, "roll back", 0)
		}
		add(k.Close, "close", 1)
		add(k.ScrollDown, "more", 4)
	case m.diff != nil:
		add(k.Close, "close", 1)
		add(k.ScrollDown, "more", 4)
	case m.closingOpen:
		add(k.Close, "panel", 1)
	case m.details && m.width < wideFrom:
		add(k.Close, "close", 1)
		add(k.Down, "next", 4)
		if it, ok := m.selected(); ok && it.cp != nil && it.cp.Status == "open" {
			add(k.Ack, "ack", 3)
		}
	default:
		if m.openCount(m.sess[m.follow]) > 0 {
			add(k.Ack, "ack", 3)
		}
		if it, ok := m.selected(); ok && it.cp != nil && it.cp.Status == engine.StatusOpen && !it.cp.Nudged && !it.cp.Asked && m.pending == nil {
			add(k.Tell, "tell", 4)
		}
		if len(m.items()) > 0 {
			add(k.Down, "select", 4)
			if m.width < wideFrom {
				add(k.Details, "read", 5)
			}
		}
		if r, _ := m.controlled(); r != nil && (r.Paused != nil || r.Halted != nil) {
			add(k.Resume, "resume", 3)
		}
		if len(m.listed()) > 1 {
			add(k.NextSession, "session", 6)
		}
	}
	add(k.Alerts, m.alerts.String(), 2)
	add(k.Help, "help", 1)
	if m.caption != nil || m.closing != nil {
		add(k.Quit, "quit", 1) // a walkthrough's viewer may not know the panel: how to leave stays
	} else {
		add(k.Quit, "quit", 7)
	}

	render := func(h hint) string {
		name := h.b.Help().Key
		switch name {
		case "j/↓":
			name = "j/k"
		case "enter":
			name = "↵"
		}
		return s.Key.Render(name) + " " + s.KeyDesc.Render(h.desc)
	}
	// Drop the least important until the bar fits.
	for {
		var parts []string
		for _, h := range hs {
			parts = append(parts, render(h))
		}
		bar := strings.Join(parts, "  ")
		if width(bar) <= w || len(hs) <= 1 {
			return append(out, bar)
		}
		worst := 0
		for i, h := range hs {
			if h.prio > hs[worst].prio || h.prio == hs[worst].prio && h.order > hs[worst].order {
				worst = i
			}
		}
		hs = append(hs[:worst], hs[worst+1:]...)
	}
}

// recording is one line on calls cully could not record (a full disk, a
// state dir gone read-only or refused as unsafe; see store/recording.go)
// or that wait in pending/ while another process holds the journal lock
// (store/pending.go), shown until `cully
// doctor` or `cully status` has shown it once recording works again: the
// panel only reads it. It is said whole with its fix when it fits, else
// without the fix, and in a narrow pane as a count alone; always with
// where to read more.
func (m Model) recording(w int) string {
	r := m.rec
	if !r.Shown() {
		return ""
	}
	const tail = " · cully doctor"
	at := func(t time.Time) string {
		t = t.Local()
		if y, mo, d := t.Date(); y == m.now.Local().Year() && mo == m.now.Local().Month() && d == m.now.Local().Day() {
			return t.Format("15:04:05")
		}
		return t.Format("Jan 2 15:04")
	}
	head := "⚠ " + clean(r.Headline(at))
	switch full := head + " · " + clean(r.Fix()); {
	case width(full)+width(tail) <= w:
		return full + tail
	case w >= 60:
		return cut(head, w-width(tail)) + tail
	}
	short := "⚠ disk full: not recording"
	switch {
	case r.Refused != "":
		short = "⚠ recording off: refused"
	case r.Blocked():
		short = fmt.Sprintf("⚠ blocked: %d waiting", r.Pending.Segments)
	case r.NotRecorded > 0:
		short = fmt.Sprintf("⚠ %d call%s not recorded", r.NotRecorded, plural(r.NotRecorded, "", "s"))
	case !r.Full():
		short = "⚠ disk nearly full"
	}
	return cut(short, max(w-width(tail), 4)) + tail
}

// health is one line on what cully itself failed to do since the panel
// started: records in its error log (a hook call that could not be
// recorded, a payload it could not read) and journal lines it had to
// skip. Nothing else on screen shows them; cully doctor says more. It is
// said whole when it fits, else without "since the panel opened" (the
// last error's text is cut rather than lost), and in a narrow pane as
// counts alone.
func (m Model) health(w int) string {
	if m.errs.n == 0 && m.corrupt == 0 {
		return ""
	}
	const tail = " · cully doctor"
	line := func(long, detail bool) string {
		var parts []string
		if n := m.errs.n; n > 0 {
			p := fmt.Sprintf("%d error%s", n, plural(n, "", "s")) // beside "cully doctor", plainly cully's
			if detail {
				p = fmt.Sprintf("%d cully error%s", n, plural(n, "", "s"))
			}
			if long {
				p += " since the panel opened"
			}
			parts = append(parts, p)
		}
		if n := m.corrupt; n > 0 {
			p := fmt.Sprintf("%d bad line%s", n, plural(n, "", "s"))
			if detail {
				p = fmt.Sprintf("%d damaged journal line%s skipped", n, plural(n, "", "s"))
			}
			parts = append(parts, p)
		}
		if m.errs.n > 0 && m.errs.last != "" && detail { // last: it is what a cut takes
			at := ""
			if !m.errs.lastAt.IsZero() {
				at = " " + m.errs.lastAt.Local().Format("15:04:05")
			}
			parts = append(parts, "last"+at+": "+clean(m.errs.last))
		}
		return "⚠ " + strings.Join(parts, " · ")
	}
	switch full := line(true, true); {
	case width(full)+width(tail) <= w:
		return full + tail
	case w >= 60:
		return cut(line(false, true), w-width(tail)) + tail
	}
	return cut(line(false, false), max(w-width(tail), 4)) + tail
}
