package tui

import (
	"time"

	"cully/engine"
	"cully/tailer"
)

// Messages: every result of I/O reaches the model as one of these.
type (
	// sessionsMsg lists known sessions, most recently active first.
	sessionsMsg struct {
		ids  []string
		seen map[string]time.Time
		err  error
	}
	// stateMsg carries a session's state as the reducer left it.
	stateMsg struct {
		session string
		state   *engine.State
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
	// tickMsg refreshes relative times.
	tickMsg time.Time
)
