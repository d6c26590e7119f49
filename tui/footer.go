package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
)

// footer is the transient line (what the last action did, or an error)
// and the key bar: the keys that apply now, as many as fit, the alerts
// state always among them.
func (m Model) footer(w int) []string {
	s := m.styles
	var out []string
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
		if len(m.items()) > 0 {
			add(k.Down, "select", 4)
			if m.width < wideFrom {
				add(k.Details, "read", 5)
			}
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
