package tui

import "charm.land/bubbles/v2/key"

// KeyMap holds the panel's key bindings, with their help.
type KeyMap struct {
	Up, Down, Details, Close, ScrollUp, ScrollDown key.Binding
	Ack, AckAll, Undo, Tell                        key.Binding
	Pause, Resume, Raise, GoTo                     key.Binding
	Diff, Rollback, Confirm                        key.Binding
	NextSession, Session                           key.Binding
	Alerts, Help, Quit                             key.Binding
}

// DefaultKeyMap returns the panel's keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:          key.NewBinding(key.WithKeys("k", "up"), key.WithHelp("k/↑", "select the item above")),
		Down:        key.NewBinding(key.WithKeys("j", "down"), key.WithHelp("j/↓", "select the item below")),
		Details:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "read the selected item in full")),
		Close:       key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close the details or this help")),
		ScrollUp:    key.NewBinding(key.WithKeys("pgup", "ctrl+u"), key.WithHelp("pgup", "scroll the details up")),
		ScrollDown:  key.NewBinding(key.WithKeys("pgdown", "ctrl+d", "space"), key.WithHelp("pgdn", "scroll the details down")),
		Ack:         key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "acknowledge the selected checkpoint")),
		AckAll:      key.NewBinding(key.WithKeys("A"), key.WithHelp("A", "acknowledge every open checkpoint")),
		Undo:        key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "undo the acknowledgment or the tell")),
		Tell:        key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "tell the agent the selected checkpoint at its next call")),
		Pause:       key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "stop the run: its next tool call is refused (r undoes)")),
		Resume:      key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "resume the run, with a reason you type")),
		Raise:       key.NewBinding(key.WithKeys("+"), key.WithHelp("+", "double the budget that stopped the run, and resume")),
		Diff:        key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "the run's diff: files changed since its start, by whom")),
		Rollback:    key.NewBinding(key.WithKeys("R"), key.WithHelp("R", "roll the agent's changes back to the run's start: dry run first")),
		Confirm:     key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "confirm the rollback shown")),
		GoTo:        key.NewBinding(key.WithKeys("g"), key.WithHelp("g", "go to the agent's tmux pane")),
		NextSession: key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "follow the next session")),
		Session:     key.NewBinding(key.WithKeys("1", "2", "3", "4", "5", "6", "7", "8", "9"), key.WithHelp("1–9", "follow session N")),
		Alerts:      key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "alerts when a checkpoint opens: off, bell, desktop")),
		Help:        key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "keys and legend")),
		Quit:        key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
	}
}

// FullHelp is the key list of the ? overlay, in groups.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Down, k.Up, k.Details, k.Close, k.ScrollDown},
		{k.Ack, k.AckAll, k.Tell, k.Undo},
		{k.Pause, k.Resume, k.Raise},
		{k.Diff, k.Rollback, k.Confirm},
		{k.NextSession, k.Session, k.GoTo},
		{k.Alerts, k.Help, k.Quit},
	}
}
