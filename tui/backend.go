package tui

import (
	"errors"
	"os"

	"cully/engine"
	"cully/store"
)

// Backend is the panel's I/O, called only from tea.Cmds.
type Backend interface {
	Sessions() ([]store.SessionInfo, error)
	State(session string) (*engine.State, error)
	Ack(session string, ids []string) error
	Recent(window int64) ([]*engine.Event, error)
}

// HomeBackend reads and writes a state directory through the store, with
// the same locks and reducer as the hook.
type HomeBackend struct {
	Home store.Home
	// Record stamps an event with the clock and appends it through the
	// reducer (the caller wires the clock and configuration in).
	Record func(ev *engine.Event) error
}

// Sessions lists sessions, most recently active first.
func (b HomeBackend) Sessions() ([]store.SessionInfo, error) { return b.Home.Sessions() }

// State reads a session's state under its lock.
func (b HomeBackend) State(session string) (*engine.State, error) {
	st, err := b.Home.ReadState(session)
	if errors.Is(err, os.ErrNotExist) {
		return engine.NewState(session), nil
	}
	return st, err
}

// Ack appends an ack event: the hook stops nudging for those checkpoints.
func (b HomeBackend) Ack(session string, ids []string) error {
	return b.Record(&engine.Event{Agent: "cully", Session: session, Kind: engine.KindAck, Hook: "ack", Ack: ids})
}

// Recent reads the last window bytes of the live journal.
func (b HomeBackend) Recent(window int64) ([]*engine.Event, error) {
	var evs []*engine.Event
	_, _, err := b.Home.ScanTail(window, func(ev *engine.Event) error {
		if ev.Kind == engine.KindPostTool || ev.Kind == engine.KindPrompt {
			evs = append(evs, ev)
		}
		return nil
	})
	return evs, err
}
