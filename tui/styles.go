package tui

import (
	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"
)

// Styles holds every style the panel uses.
type Styles struct {
	Title, Dim, Label, Value, Good, Warn, Bad, Selected, Rule lipgloss.Style
	Help                                                      help.Styles
}

// DefaultStyles returns the panel's styles for a dark or light background;
// with noColor set (NO_COLOR) they use only bold, faint and reverse.
func DefaultStyles(dark, noColor bool) Styles {
	if noColor {
		plain := lipgloss.NewStyle()
		h := help.Styles{Ellipsis: plain, ShortKey: plain.Bold(true), ShortDesc: plain, ShortSeparator: plain,
			FullKey: plain.Bold(true), FullDesc: plain, FullSeparator: plain}
		return Styles{Title: plain.Bold(true), Dim: plain.Faint(true), Label: plain.Bold(true), Value: plain,
			Good: plain, Warn: plain.Bold(true), Bad: plain.Bold(true), Selected: plain.Reverse(true), Rule: plain.Faint(true), Help: h}
	}
	ld := lipgloss.LightDark(dark)
	c := func(light, darkHex string) lipgloss.Style {
		return lipgloss.NewStyle().Foreground(ld(lipgloss.Color(light), lipgloss.Color(darkHex)))
	}
	return Styles{
		Title:    c("#1F1F7A", "#C8C8FF").Bold(true),
		Dim:      c("#808080", "#7A7A7A"),
		Label:    c("#5A3E9E", "#B79CF2").Bold(true),
		Value:    c("#202020", "#E0E0E0"),
		Good:     c("#11733A", "#5FD38D"),
		Warn:     c("#8A5A00", "#F2C14E").Bold(true),
		Bad:      c("#A1131E", "#FF6B6B").Bold(true),
		Selected: lipgloss.NewStyle().Reverse(true),
		Rule:     c("#C0C0C0", "#444444"),
		Help:     help.DefaultStyles(dark),
	}
}
