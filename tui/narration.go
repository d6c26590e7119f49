package tui

import (
	"fmt"
	"strings"
)

// narration is the walkthrough's footer block, above the transient line
// and the key bar: the current caption (and what the agent was told at
// that step) in at most maxLines lines, or, once the closing screen is
// hidden, its title. Nothing outside a walkthrough.
func (m Model) narration(w, maxLines int) []string {
	s := m.styles
	if c := m.closing; c != nil {
		if m.closingOpen {
			return nil
		}
		return []string{s.Accent.Render(cut(clean(c.Title), w))}
	}
	c := m.caption
	if c == nil {
		return nil
	}
	count := ""
	if c.Step > 0 && c.Steps > 0 {
		count = s.Dim.Render(fmt.Sprintf("%d of %d", c.Step, c.Steps))
	}
	label := clean(c.Label)
	if label == "" {
		label = "Narration"
	}
	out := []string{m.sectionHead(w, label, count)}
	for _, l := range cleanText(c.Text) {
		out = append(out, styleLines(s.Strong, wrap(l, w))...)
	}
	if c.Told != "" {
		out = append(out, s.Dim.Render(cut("what the agent was told:", w)))
		for _, l := range cleanText(c.Told) {
			for _, wl := range wrap(l, w-2) {
				out = append(out, s.Quote.Render("│ ")+s.Text.Render(wl))
			}
		}
	}
	if maxLines < 1 {
		maxLines = 1
	}
	if len(out) > maxLines {
		out = out[:maxLines]
		last := out[maxLines-1]
		out[maxLines-1] = cut(last, w-2) + s.Dim.Render(" …")
	}
	return out
}

// closingLines is the closing screen: the title as a section head, the
// text wrapped to the width, and how to leave it.
func (m Model) closingLines(w int) []string {
	s := m.styles
	c := m.closing
	out := []string{""}
	title := clean(c.Title)
	if width(title)+2 <= w {
		out = append(out, m.sectionHead(w, title, ""))
	} else {
		out = append(out, styleLines(s.Section, wrap(title, w))...)
	}
	out = append(out, "")
	for _, l := range cleanText(c.Text) {
		switch {
		case strings.TrimSpace(l) == "":
			out = append(out, "")
		case strings.HasPrefix(l, "  "): // a command: its own indent, and two more where it wraps
			text := strings.TrimLeft(l, " ")
			lead := 2 + len(l) - len(text)
			for i, wl := range wrap(text, w-lead-2) {
				ind := lead
				if i > 0 {
					ind += 2
				}
				out = append(out, s.Strong.Render(strings.Repeat(" ", ind)+wl))
			}
		default:
			out = append(out, styleLines(s.Text, wrapIndent(l, w, 2))...)
		}
	}
	k := m.keys
	out = append(out, "", s.Dim.Render(cut(fmt.Sprintf("  %s quits · %s shows the panel again", k.Quit.Help().Key, k.Close.Help().Key), w)))
	return out
}
