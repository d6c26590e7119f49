package engine

import "time"

// SchemaVersion is the version of the journal record. Readers accept any
// record whose version they know and skip (and count) the rest.
const SchemaVersion = 1

// Kind is the normalized hook event, common to every agent protocol.
type Kind string

// Normalized event kinds.
const (
	KindSessionStart Kind = "session_start"
	KindSessionEnd   Kind = "session_end"
	KindPrompt       Kind = "prompt"     // an accepted user prompt: a new task
	KindPreTool      Kind = "pre_tool"   // before a tool call
	KindPostTool     Kind = "post_tool"  // after a tool call, success or failure
	KindBatch        Kind = "tool_batch" // all calls of one model message resolved
	KindCompact      Kind = "compact"    // the agent's context was compacted
	KindStop         Kind = "stop"       // the agent finished its turn
	KindSubagent     Kind = "subagent"   // a subagent started or stopped
	KindNotify       Kind = "notify"     // host notification
	KindAck          Kind = "ack"        // the user acknowledged checkpoints (cully ack, panel)
	KindTell         Kind = "tell"       // the user asked for checkpoints to be told at the agent's next call (the panel's t)
	KindHostUsage    Kind = "host_usage" // the host's own cost/context figures (status line)
	KindSnapshot     Kind = "snapshot"   // a recovery snapshot of the run was written, or failed (cully snapshot)
	KindPause        Kind = "pause"      // the user paused the run (cully stop)
	KindResume       Kind = "resume"     // the user resumed it, with a note (cully resume)
	KindRollback     Kind = "rollback"   // the user rolled the run's files back to a snapshot, or tried to (cully rollback)
	KindAdvice       Kind = "advice"     // the advisor's result: its advice, or why it gave none (cully advise)
	KindOther        Kind = "other"      // any other host event, recorded as is
)

// Class says what a tool call does, for the rules.
type Class string

// Tool call classes.
const (
	ClassRead  Class = "read"  // read or search: Read, Grep, Glob, cat, rg, git log, …
	ClassEdit  Class = "edit"  // changes files: Edit, Write, apply_patch, sed -i, > file, …
	ClassCheck Class = "check" // verifies work: tests, builds, linters, type checks
	ClassRun   Class = "run"   // any other command
	ClassPoll  Class = "poll"  // reads a background task's output or waits: neither a read nor a repeat
	ClassAsk   Class = "ask"   // the user answers the agent: a question, a plan to accept
	ClassOther Class = "other" // agent bookkeeping: subagents, task lists, tool search
)

// Outcome of a tool call. Only OutcomeOK with a known exit status 0 is a
// success; everything the host did not say is unknown.
type Outcome string

// Tool call outcomes.
const (
	OutcomeOK      Outcome = "ok"
	OutcomeFailed  Outcome = "failed"
	OutcomeUnknown Outcome = "unknown"
)

// Notes of a call the user refused at the host's permission prompt: it never
// ran, so it is no failed attempt; refused with a message, the user is
// steering, as when they answer a question (a boundary).
const (
	NoteRejected = "rejected"
	NoteSteered  = "rejected with feedback"
)

// Event is one journal record: one hook call (or one cully action such as an
// ack), normalized across agents. Pointer fields are nil where the host did
// not say.
type Event struct {
	V         int       `json:"v"`
	Time      time.Time `json:"ts"`
	Agent     string    `json:"agent"`
	Session   string    `json:"session"`
	Task      int       `json:"task"`           // set by the reducer: the task the event belongs to
	Hook      string    `json:"hook,omitempty"` // the host's own event name
	Kind      Kind      `json:"kind"`
	Subagent  string    `json:"subagent,omitempty"`
	Source    string    `json:"source,omitempty"` // session start source, stop reason, compaction trigger
	Cwd       string    `json:"cwd,omitempty"`
	Tool      string    `json:"tool,omitempty"`
	ToolUseID string    `json:"tool_use_id,omitempty"`
	// PromptID is the host's id of the user prompt the event belongs to
	// (Claude Code's prompt_id, Codex's turn_id), for joining cully's
	// records to the host's own telemetry.
	PromptID string `json:"prompt_id,omitempty"`
	// TraceParent is the W3C trace context the host gave the hook
	// (TRACEPARENT), so an export joins the host's trace; validated, ids only.
	TraceParent string `json:"traceparent,omitempty"`
	// Pane is the tmux pane the agent runs in (TMUX_PANE, validated:
	// "%N"), on session starts and prompts; "" outside tmux.
	Pane  string `json:"tmux_pane,omitempty"`
	Class Class  `json:"class,omitempty"`

	Target string `json:"target,omitempty"` // file path, project-relative where possible
	// Files are the further files an edit writes besides Target (a patch
	// that touches several), so a change to each of them is noted.
	Files  []string   `json:"files,omitempty"`
	Size   *int64     `json:"size,omitempty"`   // target size at hook time
	Mtime  *time.Time `json:"mtime,omitempty"`  // target modification time at hook time
	Ranged bool       `json:"ranged,omitempty"` // a read with an offset/limit/range
	// Bounded: the host itself refuses a whole read past its own size limit
	// (Claude Code's Read), so a large-read warning would repeat it.
	Bounded bool `json:"bounded,omitempty"`

	CmdFP   string  `json:"cmd_fp,omitempty"`   // hash of the normalized command
	Cmd     string  `json:"cmd,omitempty"`      // short redacted preview
	Outcome Outcome `json:"outcome,omitempty"`  // post-tool only
	Exit    *int    `json:"exit,omitempty"`     // exit status where the host gives one
	FailSig string  `json:"fail_sig,omitempty"` // hash of exit code + first normalized error lines
	// ErrSig hashes the error text alone, with names and paths blanked, so
	// the same error from different commands matches; empty when the
	// failure printed nothing to judge by.
	ErrSig string `json:"err_sig,omitempty"`
	// Missing is the program a failed shell call could not find
	// (MissingProgram: a shell's "command not found", or exit status 127),
	// a word of the recorded command; the tool-gap evidence.
	Missing string `json:"missing,omitempty"`
	// FamilyFP hashes a check command with its narrowing flags removed
	// (`go test -run X ./p` → `go test ./p`): re-runs of one failing test
	// or target with different selectors are one family.
	FamilyFP string `json:"family_fp,omitempty"`
	// CallFP hashes the tool and its whole input, OutFP the outcome and the
	// head of its result: two calls with both equal did the same thing and
	// got the same answer.
	CallFP string `json:"call_fp,omitempty"`
	OutFP  string `json:"out_fp,omitempty"`
	// SearchFP hashes a search's term (SearchFP: Grep, Glob, a shell grep
	// or rg …), never its text; Matches is what the search found: 0
	// nothing, N at least N matches or files; nil where the host did not
	// say (a nil, not -1: the zero value of every other event must not
	// read as a search that found nothing).
	SearchFP string `json:"search_fp,omitempty"`
	Matches  *int   `json:"matches,omitempty"`
	// FilterFP hashes a search's file filter (Grep's glob and type, rg -g,
	// grep --include …) as written, when it has one: the same malformed
	// filter finds nothing whatever the pattern.
	FilterFP string `json:"filter_fp,omitempty"`
	// PlainFP hashes a check command with its output plumbing removed
	// (PlainCommand: `| tail -5`, `2>&1`, -v, -count=1 …): runs that differ
	// only in how much they print share it.
	PlainFP string `json:"plain_fp,omitempty"`
	Note    string `json:"note,omitempty"` // timeout, interrupted, background, masked, …
	// Advice is the advisor worker's answer (advice events only), redacted
	// and bounded; empty when the run was skipped or gave nothing.
	Advice  string `json:"advice,omitempty"`
	Changes bool   `json:"changes,omitempty"` // a shell command seen to write files
	// Created: the edit made every file it wrote (Claude Code's Write
	// answered "create", an apply_patch that only adds files): no earlier
	// version of a file changed.
	Created bool `json:"created,omitempty"`
	// Destructive names the command that throws uncommitted work away
	// (Shell.Destructive): the hook snapshots the work tree before it.
	Destructive string `json:"destructive,omitempty"`
	// Tests is what a check's own output said: its runner and the counts
	// it printed (run control's test baseline); nil when no reader settled
	// anything.
	Tests *TestCounts `json:"tests,omitempty"`
	// Plan is the agent's plan as a plan or todo call shows it (Claude
	// Code's TodoWrite): its items done of the total, for the runaway
	// rule on tokens against progress; nil for any other call.
	Plan *PlanProgress `json:"plan,omitempty"`

	// What a turn's end (stop events) keeps of the agent's closing message,
	// never its text (closing.go): its normalised form's fingerprint, its
	// similarity sketch (16 hex digits), and what the phrase table reads in
	// it (SaysWaiting, SaysBlocked, SaysPaused, SaysDone; "" for none).
	// Empty where the host gives no closing message (Copilot CLI).
	EndFP     string `json:"end_fp,omitempty"`
	EndSketch string `json:"end_sketch,omitempty"`
	EndSays   string `json:"end_says,omitempty"`
	// EndClaim is what the message claims of the checks (claim.go:
	// ClaimPasses, "" for no claim).
	EndClaim string `json:"end_claim,omitempty"`
	// Forced: the host says a Stop hook's block forced this turn on
	// (stop_hook_active): an automation, not the user, continued it.
	Forced bool `json:"forced,omitempty"`
	// PromptFP is a user prompt's fingerprint (PromptFingerprint), never
	// its text: an automation re-sends the same prompt; "" when the host
	// gave none.
	PromptFP string `json:"prompt_fp,omitempty"`

	Attended *bool `json:"attended,omitempty"` // false when the host says nobody is watching
	Quiet    bool  `json:"quiet,omitempty"`    // CULLY_GUARD=off: record, never nudge
	// Defer marks the tool events of a host whose pre-tool answer never
	// reaches the model (Gemini CLI's BeforeTool, opencode's
	// tool.execute.before): what a pre-tool event would have said is held,
	// and the call's post-tool event, whose answer the host appends to the
	// tool's result, delivers it with the checkpoints due by then.
	Defer bool `json:"defer,omitempty"`
	// NoSnapshots: CULLY_SNAPSHOTS=off, no recovery snapshot is asked for
	// (the run is still followed). In the record, as Quiet is, so that a
	// replay asks for what the live hook asked for.
	NoSnapshots bool `json:"no_snapshots,omitempty"`

	// PromptCmds are the fingerprints of the commands a prompt reports
	// misbehaving (PromptCommands), prompt events only: never its text.
	PromptCmds []string `json:"prompt_cmds,omitempty"`

	Ack      []string   `json:"ack,omitempty"`      // checkpoint ids acknowledged ("*" = all)
	Tell     []string   `json:"tell,omitempty"`     // checkpoint ids to tell the agent at its next call (tell events)
	Rejected []Rejected `json:"rejected,omitempty"` // calls the host refused before any tool hook (batch events)
	Usage    *HostUsage `json:"usage,omitempty"`    // host-reported usage (status line, transcript)
	// Transcript is how far the adapter has read the host's own record of
	// the session to complete this event (see TranscriptPos); nil when it
	// read none.
	Transcript *TranscriptPos `json:"transcript,omitempty"`
	// TranscriptPath is the host's record of the session as the payload
	// names it, for the adapter that completes events from it. It is never
	// journaled: the record keeps no path of this machine it does not need.
	TranscriptPath string `json:"-"`

	// Run control's own events (snapshot, pause, resume, rollback): the run
	// they are about, the snapshot's step, and the files concerned (a
	// snapshot's files_modified, a rollback's restored or failing paths):
	// at most MaxEventPaths of them, PathCount in all.
	Run       string   `json:"run,omitempty"`
	Step      *int     `json:"step,omitempty"`
	Paths     []string `json:"paths,omitempty"`
	PathCount int      `json:"path_count,omitempty"`

	Signals []Signal `json:"signals,omitempty"` // what cully raised or said on this event (output of the reducer)
}

// TestCounts are the figures a check printed about itself.
type TestCounts struct {
	Runner  string `json:"runner"`
	Passed  int    `json:"passed"`
	Failed  int    `json:"failed"`
	Errors  int    `json:"errors"`
	Skipped int    `json:"skipped"`
	// Counted: the runner's own figures for the whole run, not a tally of
	// what part of the output was visible.
	Counted bool `json:"counted,omitempty"`
}

// Rejected is a tool call the host refused before running it or calling
// any pre/post tool hook (Claude Code: an Edit whose old_string is not
// found); only the batch event shows it. It counts as a failed call.
type Rejected struct {
	Tool   string `json:"tool"`
	Class  Class  `json:"class,omitempty"`
	Target string `json:"target,omitempty"`
	FP     string `json:"fp"`
	Sig    string `json:"sig"`
}

// HostUsage holds figures the host itself reported. Nil fields are unknown.
//
// Tokens are the session's totals so far. InputTokens is the input the
// host did not read from its prompt cache; CacheReadTokens the input it
// did (most of a long session: the context re-sent every request), apart,
// and CacheWriteTokens the input it wrote to the cache. Where a host counts
// cached input inside its input figure (Codex), the adapter takes it out.
type HostUsage struct {
	CostUSD          *float64 `json:"cost_usd,omitempty"`
	InputTokens      *int64   `json:"input_tokens,omitempty"`
	OutputTokens     *int64   `json:"output_tokens,omitempty"`
	CacheReadTokens  *int64   `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens *int64   `json:"cache_write_tokens,omitempty"`
	ContextTokens    *int64   `json:"context_tokens,omitempty"`
	ContextWindow    *int64   `json:"context_window,omitempty"`
	Model            string   `json:"model,omitempty"`
}

// Equal reports whether two sets of host figures are the same (nil only
// equals nil).
func (u *HostUsage) Equal(o *HostUsage) bool {
	if u == nil || o == nil {
		return u == o
	}
	eq := func(x, y *int64) bool { return x == nil && y == nil || x != nil && y != nil && *x == *y }
	eqf := func(x, y *float64) bool { return x == nil && y == nil || x != nil && y != nil && *x == *y }
	return u.Model == o.Model && eqf(u.CostUSD, o.CostUSD) && eq(u.InputTokens, o.InputTokens) && eq(u.OutputTokens, o.OutputTokens) &&
		eq(u.CacheReadTokens, o.CacheReadTokens) && eq(u.CacheWriteTokens, o.CacheWriteTokens) &&
		eq(u.ContextTokens, o.ContextTokens) && eq(u.ContextWindow, o.ContextWindow)
}

// TranscriptPos is how far a hook has read the host's own record of a
// session (Codex's rollout, whose lines hold what its hook payloads leave
// out: a command's exit code, the token counts), and the outcomes it read
// there whose call's hook had not come yet. The adapter that reads one sets
// it on the event it completes, and the session's state keeps the latest,
// so each hook call reads on from where the last one stopped.
type TranscriptPos struct {
	File  string     `json:"file"`            // which record: a hash of its path
	Off   int64      `json:"off"`             // bytes read, up to the end of a whole line
	Exits []CallExit `json:"exits,omitempty"` // outcomes not yet claimed, oldest first
	// Seen are the messages whose usage was counted last (a hash of each
	// message's ids, newest last, a few dozen): Claude Code writes a
	// message's usage on each of its content blocks' lines, and a resumed
	// session writes earlier messages again. SeenUsage is what was counted
	// for the newest (input, cache writes, cache reads, output): its later
	// lines carry the final figures, which replace it.
	Seen      []string `json:"seen,omitempty"`
	SeenUsage []int64  `json:"seen_usage,omitempty"`
}

// CallExit is one call's outcome as the host recorded it.
type CallExit struct {
	ID     string `json:"id"`               // the call's tool_use_id
	Exit   *int   `json:"exit,omitempty"`   // its exit status, where the host gave one
	Status string `json:"status,omitempty"` // the host's word for how it ended: completed, failed, declined
}

// Clone copies p, its list included.
func (p *TranscriptPos) Clone() *TranscriptPos {
	if p == nil {
		return nil
	}
	c := *p
	c.Exits = append([]CallExit(nil), p.Exits...)
	c.Seen = append([]string(nil), p.Seen...)
	c.SeenUsage = append([]int64(nil), p.SeenUsage...)
	return &c
}
