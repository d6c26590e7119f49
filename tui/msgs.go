package tui

import (
	"time"

	"cully/engine"
	"cully/store"
	"cully/tailer"
)

// Messages: every result of I/O, and every timer, reaches the model as one
// of these.
type (
	// sessionsMsg lists known sessions, most recently active first.
	sessionsMsg struct {
		list []store.SessionInfo
		err  error
	}
	// stateMsg carries a session's state as the reducer left it, with the
	// project it works in and how to get the usage figures it lacks.
	stateMsg struct {
		session string
		state   *engine.State
		project Project
		hint    string
		err     error
	}
	// backfillMsg carries the recent journal records read at start.
	backfillMsg struct{ events []*engine.Event }
	// journalMsg carries records the tailer read; closed when it ended.
	journalMsg struct {
		batch  tailer.Batch
		closed bool
	}
	// ackMsg reports an acknowledgment written to the journal.
	ackMsg struct {
		session string
		ids     []string
		err     error
	}
	// tickMsg advances the panel's clock: relative times are recomputed
	// from it on every frame.
	tickMsg time.Time
	// ackDueMsg ends an acknowledgment's undo window: unless it was undone
	// (or superseded: seq), it is written now.
	ackDueMsg struct {
		seq int
		at  time.Time
	}
	// flashDoneMsg clears the transient line it belongs to (seq).
	flashDoneMsg struct {
		seq int
		at  time.Time
	}
)
