package engine

import "time"

// StateVersion changes whenever State changes shape; a state file of another
// version is rebuilt from the journal instead of being trusted.
const StateVersion = 7

// Caps that keep a session's state small, so loading it costs the same on
// every hook call however long the session runs.
// MaxRecent is how many recent calls a state keeps: a cycle of four
// calls going round twice needs eight. (A decoder sizes its slice by it.)
const MaxRecent = 8

const (
	maxFiles        = 256 // files remembered for the re-read guard (least recently read go first)
	maxCommands     = 64  // commands remembered for the retry rules
	maxWarned       = 256 // guard dedup keys remembered (as fingerprints)
	maxWarnings     = 20  // guard warnings kept for status and the panel, newest last
	maxRecent       = MaxRecent
	maxErrCmds      = 3  // distinct commands an error run names: enough for the evidence
	maxPreview      = 60 // runes of a command in the repetition rules' evidence
	maxFailChanges  = 4  // failures whose ChangeSeq a command keeps: twice the third-attempt default of 2 (a threshold above 4 never fires)
	maxCheckpoints  = 50 // checkpoints kept before closed ones are pruned: the history status and the panel show
	keptCheckpoints = 40 // newest kept by a prune (open ones always stay): 10 under the cap, so a prune is not a copy per raise
)

// State is one session's derived state. It is rebuilt exactly by replaying
// the session's journal records through Apply.
type State struct {
	// rollbackTo is a rollback the reducer decided on during one Apply
	// (enforce mode's auto_rollback), handed out as a signal by the same
	// call: never kept.
	rollbackTo *int

	V        int       `json:"v"`
	Session  string    `json:"session"`
	Agent    string    `json:"agent,omitempty"`
	Cwd      string    `json:"cwd,omitempty"`
	Started  time.Time `json:"started"`
	LastSeen time.Time `json:"last_seen"`
	Events   int       `json:"events"` // records applied
	Ended    bool      `json:"ended,omitempty"`
	Attended *bool     `json:"attended,omitempty"`
	// Pane is the tmux pane the agent runs in (TMUX_PANE, "%N"), as its
	// last session start or prompt said: the panel's g selects it.
	Pane string `json:"tmux_pane,omitempty"`

	// ClockSkews counts events whose time was before the previous one's.
	ClockSkews int `json:"clock_skews,omitempty"`

	Task       int `json:"task"`        // current task number; 0 before the first prompt
	CheckEpoch int `json:"check_epoch"` // advances on each successful check
	ChangeSeq  int `json:"change_seq"`  // advances on each edit or file seen to change

	// Activity since the last boundary, for the checkpoint rules.
	ReadsSinceAct   int `json:"reads_since_act"`   // reads since an edit, a check or a new task
	EditsSinceCheck int `json:"edits_since_check"` // edits since a successful check or a new task
	// EditsSinceTry counts edits since any check at all (passing, failing
	// or unknown): an agent whose build fails is verifying, one that never
	// builds is not.
	EditsSinceTry int `json:"edits_since_try,omitempty"`
	// FailedCheck is the preview of a test run that failed (tests counted
	// failing), kept until the next edit of code or check: what the
	// fix-in-test rule judges that edit against.
	FailedCheck string `json:"failed_check,omitempty"`
	// FailingCheck is the preview of the foreground agent's last check
	// while it fails (a passing check clears it): what the finish-failing
	// rule judges at the turn's end.
	FailingCheck string `json:"failing_check,omitempty"`
	// CodeSinceTry counts the foreground agent's edits of source code and
	// build files (codeFile: by extension, and go.mod, Makefile, mise.toml
	// and the like; not docs, data, nor a shell command whose files are
	// unknown) since any check: what the finish-unchecked rule judges at
	// the turn's end, and unchecked-commit at a commit.
	CodeSinceTry int `json:"code_since_try,omitempty"`
	// TaskEdits and TaskChecks count the task's edits of code (not prose,
	// not tests: the code under test) and its checks; PromptCmds are the fingerprints of the commands its prompt
	// reported failing (Event.PromptCmds), until a shell call runs one: what
	// the reported-command rule judges at the turn's end.
	TaskEdits  int      `json:"task_edits,omitempty"`
	TaskChecks int      `json:"task_checks,omitempty"`
	PromptCmds []string `json:"prompt_cmds,omitempty"`
	// TaskTests are fingerprints of the test files (fixtures, harness) the
	// task wrote with no failing check pending: tests the agent is
	// writing, whose own fixes after a failure are no fix-in-test.
	TaskTests []string `json:"task_tests,omitempty"`
	// Working: the foreground agent has made a call since the last prompt
	// and its turn has not ended; a prompt then interrupts it, in a session
	// whose host says when a turn ends (StopsSeen: one did before).
	Working   bool `json:"working,omitempty"`
	StopsSeen bool `json:"stops_seen,omitempty"`

	Counts Counts `json:"counts"`

	Checkpoints []Checkpoint         `json:"checkpoints,omitempty"`
	Warnings    []Warning            `json:"warnings,omitempty"` // guard warnings raised, newest last
	Files       map[string]*FileSeen `json:"files,omitempty"`
	Commands    map[string]*CmdSeen  `json:"commands,omitempty"`
	Warned      []string             `json:"warned,omitempty"` // guard dedup keys already used
	Usage       *HostUsage           `json:"usage,omitempty"`  // last host-reported usage
	// Transcript is how far the hooks have read the host's own record of
	// the session (the last event's TranscriptPos).
	Transcript *TranscriptPos `json:"transcript,omitempty"`
	// SubagentAt is the Unix second of a subagent's last tool call: a file
	// the foreground agent read before it is not an unchanged re-read of
	// the agent's own context once a subagent has worked since.
	SubagentAt int64 `json:"subagent_at,omitempty"`
	// Pres counts the foreground agent's pre-tool events: a failure whose
	// call started before the last one was booked ran beside it (ErrRun.At).
	Pres int `json:"pres,omitempty"`
	// Recent are the foreground agent's last finished calls, newest last,
	// for the repetition rules.
	Recent []RecentCall `json:"recent,omitempty"`
	// ErrRun is the current run of failures with one error signature,
	// whatever the command, for the same-error rule.
	ErrRun *ErrRun `json:"err_run,omitempty"`
	// Searches are the task's search terms that found nothing
	// (rule_emptysearch.go), Rerun the current run of one passing check
	// (rule_rerun.go), ProgFails the task's failures of a program by error
	// (rule_samefailure.go); all restart at a boundary.
	Searches  []Tally `json:"searches,omitempty"`
	Rerun     *Tally  `json:"rerun,omitempty"`
	ProgFails []Tally `json:"prog_fails,omitempty"`
	// Gaps are the programs the agent seems to lack in this task
	// (toolgap.go): the advisor's tool-gap research reads them.
	Gaps []ToolGap `json:"gaps,omitempty"`
	// Advice is the advisor's latest advice, until the agent has been told
	// it once (Told) or a new task makes it stale.
	Advice *Advice `json:"advice,omitempty"`
	// AdviceAt is the Unix second of the last advice event, whatever it
	// said: the hook asks for a refresh only an hour after it.
	AdviceAt int64 `json:"advice_at,omitempty"`
	NextCP   int   `json:"next_cp"` // checkpoint id sequence
	// Run is the current run (run control, run.go): nil before the first
	// prompt or tool call.
	Run *Run `json:"run,omitempty"`
	// Idle follows the turns that end with no tool call (rule_idleloop.go):
	// nil until a turn ends.
	Idle *IdleRun `json:"idle,omitempty"`
	// Open is the tool call in flight, nil when none (attention.go); Turn:
	// the foreground agent works on a turn (a prompt or a call came since
	// its last turn's end). What Attention derives a session's need from.
	Open *OpenCall `json:"open,omitempty"`
	Turn bool      `json:"turn,omitempty"`
}

// Advice is an advisor answer waiting for the agent.
type Advice struct {
	Text string `json:"text"`
	At   int64  `json:"at"` // Unix seconds
	Told bool   `json:"told,omitempty"`
}

// Counts are the session's activity totals.
type Counts struct {
	ToolCalls     int           `json:"tool_calls"`
	ByClass       map[Class]int `json:"by_class"`
	Failures      int           `json:"failures"`
	UnknownOut    int           `json:"unknown_outcomes"`
	Edits         int           `json:"edits"`
	Checks        int           `json:"checks"`
	ChecksOK      int           `json:"checks_ok"`
	ChecksFailed  int           `json:"checks_failed"`
	ChecksUnknown int           `json:"checks_unknown"`
	FilesRead     int           `json:"files_read"` // distinct files read
	Prompts       int           `json:"prompts"`
	Compactions   int           `json:"compactions"`
	Subagents     int           `json:"subagents"`
	Nudges        int           `json:"nudges"`
}

// FileSeen is what the session knows of one file. It is kept compact
// (integers, short keys): a session remembers up to maxFiles of them and
// the hook loads them all on every call, so each byte and each time parse
// here is paid before every tool call.
type FileSeen struct {
	Reads     int   `json:"n"`
	WholeAt   int64 `json:"wa,omitempty"` // Unix seconds of the last whole-file read; 0: none counts
	WholeMod  int64 `json:"wm,omitempty"` // file mtime at that read, Unix nanoseconds
	WholeSize int64 `json:"ws,omitempty"`
	Seen      int64 `json:"s"` // Unix seconds last read, for eviction
}

// RecentCall is one finished call: what was called and what came back.
type RecentCall struct {
	Call    string `json:"c"` // Event.CallFP
	Out     string `json:"o"` // Event.OutFP
	Preview string `json:"p"` // the command or "Tool target", short
	Failed  bool   `json:"f,omitempty"`
}

// ErrRun is a run of failed calls with the same error signature.
type ErrRun struct {
	Sig  string   `json:"sig"`  // Event.ErrSig
	N    int      `json:"n"`    // failures in the run
	Cmds []string `json:"cmds"` // distinct command previews, up to maxErrCmds
	// At is State.Pres when the last failure was counted: a failure booked
	// with no pre-tool event since started before that one ended, so it
	// could not answer it (calls in one parallel batch are one attempt).
	At int `json:"at,omitempty"`
}

// CmdSeen is the recent history of one normalized command.
type CmdSeen struct {
	Preview   string `json:"preview"`
	Runs      int    `json:"runs"`
	LastSeen  int64  `json:"seen"`       // Unix seconds, for eviction
	Fails     int    `json:"fails"`      // consecutive failures (reset by a success)
	SigStreak int    `json:"sig_streak"` // consecutive failures with the same signature
	LastSig   string `json:"last_sig,omitempty"`
	// ChangeAt holds ChangeSeq at the last failures (up to maxFailChanges),
	// newest last: a retry is blind when nothing changed across them and since.
	ChangeAt []int `json:"change_at,omitempty"`
	// Edit is the file an edit tool's command writes: a successful read of
	// it makes the next try an informed one, not a blind retry.
	Edit string `json:"edit,omitempty"`
}

// NewState returns the empty state of a session.
func NewState(session string) *State {
	return &State{V: StateVersion, Session: session}
}

func (s *State) ensure() {
	if s.Counts.ByClass == nil {
		s.Counts.ByClass = map[Class]int{}
	}
	if s.Files == nil {
		s.Files = map[string]*FileSeen{}
	}
	if s.Commands == nil {
		s.Commands = map[string]*CmdSeen{}
	}
}

// OpenCheckpoints returns the checkpoints still waiting for an answer.
func (s *State) OpenCheckpoints() []Checkpoint {
	var out []Checkpoint
	for _, c := range s.Checkpoints {
		if c.Status == StatusOpen {
			out = append(out, c)
		}
	}
	return out
}

// OnTrack summarises the session in one word for status lines and headers:
// a run the user stopped, one enforce mode halted or one paused says so
// before anything else (it is not on track: it waits for the user).
func (s *State) OnTrack() string {
	if r := s.Run; r != nil {
		switch {
		case r.Halted != nil && r.Halted.By == HaltStop:
			return "stopped"
		case r.Halted != nil:
			return "halted"
		case r.Paused != nil:
			return "paused"
		}
	}
	if len(s.OpenCheckpoints()) > 0 {
		return "checkpoint"
	}
	if s.Events == 0 {
		return "unknown"
	}
	return "on track"
}
