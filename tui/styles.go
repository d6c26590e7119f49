package tui

import (
	"charm.land/lipgloss/v2"
)

// Styles holds every style the panel uses. One accent colour marks what
// needs the user (open checkpoints, the alert); everything else is text,
// dim metadata, section headers, and green or red for an outcome.
type Styles struct {
	Brand, Project, Branch lipgloss.Style // the title line
	Section, Rule          lipgloss.Style // section headers and their rule
	Text, Dim, Strong      lipgloss.Style
	Accent                 lipgloss.Style // needs attention
	Good, Bad              lipgloss.Style // an outcome: passed, failed
	Selected               lipgloss.Style // the selected row
	Quote                  lipgloss.Style // the gutter of a quoted nudge
	Key, KeyDesc           lipgloss.Style // the key bar
	Flash                  lipgloss.Style // the transient line after an action
}

// DefaultStyles returns the panel's styles for a dark or light background;
// with noColor set (NO_COLOR) they use only bold, faint and reverse.
func DefaultStyles(dark, noColor bool) Styles {
	p := lipgloss.NewStyle()
	if noColor {
		return Styles{
			Brand: p.Bold(true).Reverse(true), Project: p.Bold(true), Branch: p, Section: p.Bold(true), Rule: p.Faint(true),
			Text: p, Dim: p.Faint(true), Strong: p.Bold(true), Accent: p.Bold(true), Good: p, Bad: p.Bold(true),
			Selected: p.Reverse(true), Quote: p.Faint(true), Key: p.Bold(true), KeyDesc: p.Faint(true), Flash: p.Bold(true),
		}
	}
	ld := lipgloss.LightDark(dark)
	fg := func(light, darkHex string) lipgloss.Style {
		return p.Foreground(ld(lipgloss.Color(light), lipgloss.Color(darkHex)))
	}
	return Styles{
		Brand:    p.Foreground(ld(lipgloss.Color("#FFFFFF"), lipgloss.Color("#1E1E2E"))).Background(ld(lipgloss.Color("#2C4FA3"), lipgloss.Color("#8AADF4"))).Bold(true),
		Project:  fg("#111111", "#F2F2F2").Bold(true),
		Branch:   fg("#7A3EA1", "#C6A0F6"),
		Section:  fg("#2C4FA3", "#8AADF4").Bold(true),
		Rule:     fg("#D0D0D0", "#3A3D4A"),
		Text:     fg("#1F1F1F", "#D8D8D8"),
		Dim:      fg("#6B6B6B", "#8A8A8A"),
		Strong:   fg("#111111", "#F2F2F2").Bold(true),
		Accent:   fg("#B35400", "#F5A742").Bold(true),
		Good:     fg("#1C7A33", "#8BD5A0"),
		Bad:      fg("#B3261E", "#F28B82"),
		Selected: p.Foreground(ld(lipgloss.Color("#000000"), lipgloss.Color("#FFFFFF"))).Background(ld(lipgloss.Color("#D3DDF5"), lipgloss.Color("#2F3A5C"))),
		Quote:    fg("#2C4FA3", "#5B6FA8"),
		Key:      fg("#2C4FA3", "#8AADF4").Bold(true),
		KeyDesc:  fg("#6B6B6B", "#8A8A8A"),
		Flash:    fg("#1F1F1F", "#F2F2F2").Bold(true),
	}
}
