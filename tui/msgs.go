package tui

import (
	"time"

	"cully/engine"
	"cully/store"
	"cully/tailer"
	"cully/usage"
)

// Narration: a scripted walkthrough (`cully demo`) sends these to the
// program (tea.Program.Send) to say what the panel is showing. They are the
// panel's only exported messages; the panel renders them, the caller
// decides what they say and when.
type (
	// CaptionMsg is one caption: shown in a footer above the key bar until
	// the next caption or a ClosingMsg replaces it.
	CaptionMsg struct {
		Label string // the footer's title ("demo")
		Step  int    // this caption's number, from 1 (0: no count shown)
		Steps int    // how many captions there are
		Text  string // what is happening now
		Told  string // what the agent was just told, when this step nudged it
	}
	// ClosingMsg ends a walkthrough: the body gives way to a closing screen
	// (Title, then Text) that stays until the user quits. esc shows the
	// panel again, and the footer keeps Title.
	ClosingMsg struct {
		Title string
		// Text is paragraphs, one per line (blank lines kept); a line that
		// starts with two spaces (a command) stays indented when it wraps.
		Text string
	}
)

// Messages: every result of I/O, and every timer, reaches the model as one
// of these.
type (
	// sessionsMsg lists known sessions, most recently active first.
	sessionsMsg struct {
		list  []store.SessionInfo
		roots []string // each one's project root, in list's order
		err   error
	}
	// stateMsg carries a session's state as the reducer left it, with the
	// project it works in and how to get the usage figures it lacks.
	stateMsg struct {
		session string
		state   *engine.State
		project Project
		hint    string
		records *usage.Cache
		run     RunFiles
		adv     AdvisorInfo
		place   place // where the session works
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
		tell    bool // a tell (t) was written, not an acknowledgment
		err     error
	}
	// controlMsg reports a run control action (p, r, +): what it did, in
	// a line, or why it could not.
	controlMsg struct {
		session string
		text    string
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
	// errorsMsg is what errors.log gained after from; from < 0 is a read
	// of where the log ends, which only sets where counting begins.
	errorsMsg struct {
		from int64 // the offset read from: a read from a stale one is dropped
		tail store.ErrorsTail
		err  error
	}
	// recordingMsg is what the state dir says about records that did not
	// reach the journal.
	recordingMsg struct {
		rec store.Recording
		err error
	}
	// reloadMsg reads a session's state again: the last read lagged the
	// journal, or failed.
	reloadMsg struct{ session string }
	// flashDoneMsg clears the transient line it belongs to (seq).
	flashDoneMsg struct {
		seq int
		at  time.Time
	}
)
