package engine

import "time"

// What a session needs from the user, derived from its state alone (no
// journal read): the run's control (paused, halted), its open checkpoints,
// the tool call in flight (State.Open) and whether a turn is under way. The
// panel sorts its sessions by it; `cully status --short` counts it.

// Need is what a session needs from the user now.
type Need string

// The needs, most pressing first (Need.Rank).
const (
	NeedYou     Need = "needs you" // a question or permission waits, a checkpoint (not activity) is open, the run is paused or halted
	NeedWorking Need = "working"   // a call or a turn is under way
	NeedIdle    Need = "idle"      // the turn ended, the session ended, or nothing happened for a while
)

// Rank orders needs for a list: 0 first.
func (n Need) Rank() int {
	switch n {
	case NeedYou:
		return 0
	case NeedWorking:
		return 1
	}
	return 2
}

// Cause is why a session has its need, in a word or two.
type Cause string

// Causes.
const (
	CauseHalted     Cause = "halted"     // enforce mode halted the run
	CauseStopped    Cause = "stopped"    // the user ran `cully stop`
	CausePaused     Cause = "paused"     // `cully stop --soft`
	CauseRollback   Cause = "rollback"   // a rollback failed, the work tree is half restored
	CauseCheckpoint Cause = "checkpoint" // checkpoints other than activity are open (Attention.Open of them)
	CauseQuestion   Cause = "question"   // the agent asks the user (a question tool, a plan to accept)
	CausePermission Cause = "permission" // the host said it asks the user's permission
	CauseWaiting    Cause = "waiting"    // a call open past what it takes to run: a permission prompt, most likely
	CauseCall       Cause = "call"       // a tool call runs
	CauseTurn       Cause = "turn"       // the agent works between calls
	CauseEnded      Cause = "ended"      // the session ended
	CauseTurnEnded  Cause = "turn ended" // the agent ended its turn: the user's move
	CauseQuiet      Cause = "quiet"      // nothing for quietAfter, no turn's end said
	CauseNew        Cause = "new"        // no event yet
)

// How long a call may stay open before it reads as waiting for the user.
// Claude Code's hooks run before its permission prompt: a call the user
// has to allow stays open, with no post-tool event, until they answer. A
// read or an edit takes a moment once allowed; a shell command can run for
// minutes, but past the host's own default timeout (Claude Code's Bash: 2
// minutes) one still open is more likely waiting than running.
const (
	waitAfterQuick = 20 * time.Second // reads, edits
	waitAfterShell = 2 * time.Minute  // commands and checks
	// quietAfter is how long a turn lasts with no record at all before it
	// reads as idle, for a host that never says a turn ended (and for one
	// that died mid-turn).
	quietAfter = 5 * time.Minute
)

// Notification types (Event.Source of KindNotify) that mean the host asks
// the user something now: Claude Code's and Copilot CLI's
// notification_type.
const (
	NotifyPermission = "permission_prompt"
	NotifyElicit     = "elicitation_dialog"
	NotifyIdle       = "idle_prompt"
)

// OpenCall is the tool call in flight: its pre-tool event came, its
// post-tool event has not. Times are Unix seconds.
type OpenCall struct {
	At    int64  `json:"at"`
	Tool  string `json:"tool,omitempty"`
	ID    string `json:"id,omitempty"` // the host's tool_use_id, to match its post
	Class Class  `json:"class,omitempty"`
	// Asked is the host's notification that it asks the user (NotifyPermission,
	// NotifyElicit), when one came during the call.
	Asked string `json:"asked,omitempty"`
}

// Attention is a session's need at a moment.
type Attention struct {
	Need  Need
	Cause Cause
	// Since is when the cause began (the pause, the oldest open
	// checkpoint, the open call, the last record); zero where unknown.
	Since time.Time
	Tool  string // the open call's tool (CauseQuestion, CausePermission, CauseWaiting, CauseCall)
	Open  int    // open checkpoints (CauseCheckpoint)
}

// Activity reports whether a checkpoint counts activity rather than a
// mistake: the seed's two, exploring (reads with no edit or check) and
// unverified-edits (edits with no successful check), and rerun-filter (one
// check run again and again with only its output filter changed). They
// are shown in status and the panel for the user to judge, as the seed
// asks, and acknowledged like any other, but they do not make a session
// need you: blind reviewers found 1 of 27 of their corpus firings worth a
// look (docs/quality.md), and a session flagged for a long read would
// teach the user to ignore the flag.
func (r Reason) Activity() bool {
	return r == ReasonExploring || r == ReasonUnverifiedEdits || r == ReasonRerun
}

// Attention is what the session needs from the user at now. The panel
// passes open, the checkpoints it shows open that ask for the user (not
// activity; less those whose
// acknowledgment waits out its undo window); -1 counts the state's.
func (s *State) Attention(now time.Time, open int) Attention {
	if r := s.Run; r != nil {
		switch {
		case r.Halted != nil && r.Halted.By == HaltStop:
			return Attention{Need: NeedYou, Cause: CauseStopped, Since: time.Unix(r.Halted.At, 0)}
		case r.Halted != nil:
			return Attention{Need: NeedYou, Cause: CauseHalted, Since: time.Unix(r.Halted.At, 0)}
		case r.RollbackFailed != nil:
			return Attention{Need: NeedYou, Cause: CauseRollback, Since: time.Unix(r.RollbackFailed.At, 0)}
		case r.Paused != nil:
			return Attention{Need: NeedYou, Cause: CausePaused, Since: time.Unix(r.Paused.At, 0)}
		}
	}
	var oldest time.Time
	n := 0
	for i := range s.Checkpoints {
		if c := &s.Checkpoints[i]; c.Status == StatusOpen && !c.Reason.Activity() {
			if n == 0 {
				oldest = c.Raised
			}
			n++
		}
	}
	if open >= 0 {
		n = open
	}
	if n > 0 {
		return Attention{Need: NeedYou, Cause: CauseCheckpoint, Since: oldest, Open: n}
	}
	if s.Ended {
		return Attention{Need: NeedIdle, Cause: CauseEnded, Since: s.LastSeen}
	}
	if c := s.Open; c != nil {
		at := time.Unix(c.At, 0)
		a := Attention{Need: NeedYou, Since: at, Tool: c.Tool}
		switch {
		case c.Asked == NotifyPermission:
			a.Cause = CausePermission
		case c.Asked != "" || c.Class == ClassAsk:
			a.Cause = CauseQuestion
		case openTooLong(c, now.Sub(at)):
			a.Cause = CauseWaiting
		default:
			a.Need, a.Cause = NeedWorking, CauseCall
		}
		return a
	}
	switch {
	case s.Events == 0:
		return Attention{Need: NeedIdle, Cause: CauseNew}
	case s.Turn && now.Sub(s.LastSeen) < quietAfter:
		return Attention{Need: NeedWorking, Cause: CauseTurn, Since: s.LastSeen}
	case !s.Turn && s.StopsSeen:
		return Attention{Need: NeedIdle, Cause: CauseTurnEnded, Since: s.LastSeen}
	}
	return Attention{Need: NeedIdle, Cause: CauseQuiet, Since: s.LastSeen}
}

// openTooLong reports whether a call open for d has taken longer than its
// kind runs: a shell command (whatever it does: a search can take a
// while) past waitAfterShell, a read or an edit tool past waitAfterQuick;
// a subagent's, a background wait's or bookkeeping's never.
func openTooLong(c *OpenCall, d time.Duration) bool {
	switch {
	case IsShellTool(c.Tool) || c.Class == ClassRun || c.Class == ClassCheck:
		return d >= waitAfterShell
	case c.Class == ClassRead || c.Class == ClassEdit:
		return d >= waitAfterQuick
	}
	return false
}

// openCall books a call's start (its pre-tool event). A call cully itself
// refused never runs: no post-tool event would close it.
func (s *State) openCall(ev *Event, sigs []Signal) {
	for _, g := range sigs {
		if g.Kind == SignalHalt {
			return
		}
	}
	s.Open = &OpenCall{At: ev.Time.Unix(), Tool: ev.Tool, ID: ev.ToolUseID, Class: ev.Class}
}

// closeCall books a call's end (its post-tool event): the open call if it
// is that one, or if either has no id to tell. Of parallel calls the last
// started is kept, until its own end.
func (s *State) closeCall(ev *Event) {
	if c := s.Open; c != nil && (c.ID == "" || ev.ToolUseID == "" || c.ID == ev.ToolUseID) {
		s.Open = nil
	}
}

// notified books a host notification: a permission prompt or a question
// marks the call in flight (or opens one: the host asks about something
// no pre-tool event showed); an idle prompt says the agent waits for a
// prompt, with nothing in flight.
func (s *State) notified(ev *Event) {
	switch ev.Source {
	case NotifyPermission, NotifyElicit:
		if s.Open == nil {
			s.Open = &OpenCall{At: ev.Time.Unix()}
		}
		s.Open.Asked = ev.Source
	case NotifyIdle:
		s.Open = nil
	}
}
