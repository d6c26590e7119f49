package tui

import "charm.land/bubbles/v2/key"

// KeyMap holds the panel's key bindings, with their help.
type KeyMap struct {
	Ack, AckAll, Up, Down, NextSession, Details, Help, Quit key.Binding
}

// DefaultKeyMap returns the panel's keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Ack:         key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "ack")),
		AckAll:      key.NewBinding(key.WithKeys("A"), key.WithHelp("A", "ack all")),
		Up:          key.NewBinding(key.WithKeys("k", "up"), key.WithHelp("k/↑", "up")),
		Down:        key.NewBinding(key.WithKeys("j", "down"), key.WithHelp("j/↓", "down")),
		NextSession: key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next session")),
		Details:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "details")),
		Help:        key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:        key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
	}
}

// ShortHelp is the one-line help bar.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Ack, k.Down, k.NextSession, k.Help, k.Quit}
}

// FullHelp is the expanded help.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Ack, k.AckAll, k.Details}, {k.Up, k.Down, k.NextSession}, {k.Help, k.Quit}}
}
