package hookbridge

import (
	"errors"
	"io"
	"io/fs"
	"time"

	"cully/engine"
	"cully/install"
)

// Agent is one agent's hook protocol: how to read its hook calls and how to
// answer them. It is all the hook path needs.
type Agent interface {
	// Name is the --agent value and the journal's agent field ("claude").
	Name() string
	// Title is the agent's name as its users know it ("Claude Code").
	Title() string
	// ProjectVars are the host's environment variables that name the
	// project root, in the order they are tried.
	ProjectVars() []string
	// Decode turns one hook payload into an Event.
	Decode(raw []byte, env Env) (*engine.Event, error)
	// DecodeHead salvages an Event from the head of a payload too large to
	// decode whole (total is the payload's full size).
	DecodeHead(head []byte, total int64, env Env) *engine.Event
	// Encode is the answer to a hook event that carries a nudge to the
	// model: one JSON object and a newline, or nothing when the event has no
	// channel to the model or the nudge is empty.
	Encode(hookEvent, nudge string) []byte
}

// Env is what an adapter may know besides the payload: the clock reading,
// the host's environment variables and a file stat (injected so tests and
// replays control them).
type Env struct {
	Now    time.Time
	Getenv func(string) string
	Stat   func(string) (fs.FileInfo, error)
	// Open opens a regular file of the host's own for reading (Gemini CLI's
	// session log, for its token figures); nil where nothing may be read
	// (tests, replays), and then those figures stay unknown.
	Open   func(string) (io.ReadCloser, error)
	Config *engine.Config
	Quiet  bool // CULLY_GUARD=off
}

// Var reads one of the host's environment variables ("" when unset or when
// the environment was not given).
func (e Env) Var(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

// ErrEmpty is returned for an empty payload.
var ErrEmpty = errors.New("empty payload")

// Scope is where an installation lives: the user's own settings, or a
// repository's (this machine's own settings there, or the ones its team
// commits).
type Scope string

// The scopes.
const (
	ScopeUser    Scope = "user"
	ScopeProject Scope = "project" // the repository's settings of this machine only, which git ignores
	ScopeShared  Scope = "shared"  // the repository's settings its team commits: no path of this machine in them
)

// Scopes are every scope, in the order doctor and status look in them:
// cully is installed for an agent when one of them wires it.
var Scopes = []Scope{ScopeUser, ScopeProject, ScopeShared}

// Flags are the command-line flags that pick the scope, for messages
// ("--scope project --shared").
func (s Scope) Flags() string {
	switch s {
	case ScopeProject:
		return " --scope project"
	case ScopeShared:
		return " --scope project --shared"
	}
	return ""
}

// Place is what an installer needs to find an agent's files: the
// environment (HOME and the agent's own variables) and, for the project
// scopes, the project's root.
type Place struct {
	Getenv  func(string) string
	Project string
}

// Target is where cully's entries and skill go for one scope.
type Target struct {
	Scope    Scope
	Settings string // the agent's settings file that holds the hook entries
	Skill    string // the skill file
	// Ignore, for a file of this machine's own inside the repository, is
	// its path from the project root as a git ignore pattern
	// ("/.claude/settings.local.json"): install asks git to ignore it.
	Ignore string
	// Notes are what the agent's own rules mean for this target, found
	// when it was computed (Gemini CLI runs hooks only in folders it
	// trusts): install prints them, doctor shows them as warnings.
	Notes []string
}

// InstallOptions are the choices of one `cully install`.
type InstallOptions struct {
	HookCommand       string // the command line the agent runs for each hook
	StatusLineCommand string // when set, also install the status line (agents that have one)
	// Plugin is the plugin text of an agent that runs plugins instead of
	// hook commands (opencode), from package cully/plugin, which the hook
	// binary does not link.
	Plugin string
	// Shells are the user's shells (install.UserShells), for an agent that
	// runs hook commands through one of them (Codex): whether the hook's
	// environment can go before the command.
	Shells []string
}

// Check is one line of `cully doctor`: a pass, a note (Warn) or a failure,
// with the fix for anything that is not a plain pass.
type Check struct {
	OK   bool
	Warn bool
	What string
	Fix  string
}

// Wiring is what doctor found in one scope: its checks, and the hook
// command of cully's entries there ("" when the scope holds none, and
// then no checks unless its file cannot be read).
type Wiring struct {
	Checks  []Check
	Command string
}

// Installer is an agent whose settings cully can wire itself into.
type Installer interface {
	Agent
	// Target says where cully's entries and skill go for a scope.
	Target(scope Scope, at Place) (Target, error)
	// Install computes the settings after merging cully's entries into
	// before (nil when the file does not exist). Everything that is not
	// cully's stays as it was.
	Install(t Target, before []byte, o InstallOptions) (*install.Plan, error)
	// Uninstall computes the settings with exactly cully's entries removed.
	Uninstall(t Target, before []byte) (*install.Plan, error)
	// Doctor checks one scope's installation (skill: this cully's skill
	// text). Whether cully is installed at all, across scopes, is the
	// caller's to judge.
	Doctor(t Target, skill string) Wiring
	// Present reports whether the agent looks installed here (its binary on
	// PATH or its config folder).
	Present(at Place) bool
}

// Completer is an agent whose hook payloads leave out what its own record
// of the session holds (Codex: a command's exit code, the token counts, in
// its rollout). Complete runs for every event, under the session's lock,
// after Decode (raw and env are what Decode was given) and before the rules
// see the event: it reads on in that record from the position the
// session's state holds (st.Transcript), fills in the event, and sets
// ev.Transcript to how far it read. Its work is bounded whatever the
// record's size, and it never fails: what it cannot read stays unknown.
type Completer interface {
	Agent
	Complete(raw []byte, env Env, ev *engine.Event, st *engine.State)
}

// Halter is an agent whose host can refuse a tool call from its hook:
// a halted run (enforce mode, `cully stop`) is refused through it, in the
// host's own hook contract. Every adapter is one.
type Halter interface {
	Agent
	// EncodeHalt is the answer to any event of a halted run; reason is
	// engine.HaltText (why, and what the user must do), passed on as is,
	// and nudge what Encode would have carried.
	//
	//   - Pre-tool events: the call is refused, the model told the reason
	//     with the nudge after it.
	//   - Post-tool events: the agent's loop ends after the call in flight
	//     where the host can (continue:false), else plain Encode.
	//   - Turn-end events (Stop, AfterAgent, agentStop): the turn ends where
	//     the host can, never continued (continue:false overrides another
	//     hook's block in Claude Code).
	//   - Prompt events (UserPromptSubmit, BeforeAgent, beforeSubmitPrompt):
	//     the prompt is blocked with the reason where the host can.
	//   - Everything else: plain Encode(hookEvent, nudge).
	//
	// It never answers anything that allows a call: a refusal must not skip
	// the user's own approval.
	EncodeHalt(hookEvent, reason, nudge string) []byte
	// EncodeRefuse refuses one pre-tool call and lets the agent go on
	// (engine.RefuseCall: summary-only): EncodeHalt's refusal without
	// ending the loop. Other events get plain Encode(hookEvent, nudge).
	EncodeRefuse(hookEvent, reason, nudge string) []byte
}

// Truster is an installer for an agent that runs user hooks only once the
// user trusts them (Codex). Both methods run after the settings are
// written, outside the hook.
type Truster interface {
	Installer
	// Trust marks cully's entries in t as trusted through the agent's own
	// mechanism. done says what it did; when it cannot (the agent's binary
	// is missing, or refused), step is the one thing the user must do.
	Trust(t Target) (done, step string, err error)
	// TrustChecks are doctor's lines on whether the agent will run cully's
	// entries in t: untrusted, or modified since they were trusted.
	TrustChecks(t Target) []Check
}

// ReplayStats counts a recorded session's lines, the ones that were not
// JSON or could not be read (Corrupt: of the lines a replay needs; a line
// whose head says it holds nothing for the rules is not read further),
// tool results whose call was not in the record (Skipped), and records
// found twice across the session's files and taken once (Duplicates).
type ReplayStats struct {
	Lines, Skipped, Corrupt, Duplicates int
}

// Add sums two files' or sessions' counts.
func (s *ReplayStats) Add(o ReplayStats) {
	s.Lines += o.Lines
	s.Skipped += o.Skipped
	s.Corrupt += o.Corrupt
	s.Duplicates += o.Duplicates
}

// Replayer is an agent whose recorded sessions can be replayed through the
// rules (`cully replay`).
type Replayer interface {
	Agent
	// Record is what its recorded sessions are called ("transcript").
	Record() string
	// RecordDirs are the folders where the agent keeps its recorded
	// sessions, for a replay that names none.
	RecordDirs(getenv func(string) string) ([]string, error)
	// Identify reads the first lines of a file: the session its records
	// belong to, or, when it is not one of the agent's recorded sessions,
	// why not (a few words for the warning).
	Identify(head io.Reader) (session, why string)
	// Replay reads one recorded file and calls fn with each event, in the
	// order of its lines.
	Replay(r io.Reader, cfg *engine.Config, fn func(ev *engine.Event) error) (ReplayStats, error)
	// ReplaySession reads every file of one session (split parts, subagent
	// transcripts), takes each record once, orders the records by time and
	// calls fn with each event in that order.
	ReplaySession(files []io.Reader, cfg *engine.Config, fn func(ev *engine.Event) error) (ReplayStats, error)
}

// StatusLiner is an agent with a status-line command that receives the
// host's own usage figures (`cully statusline`).
type StatusLiner interface {
	Agent
	// StatusLine reads the host's status-line input: its session id and
	// the usage figures it exposes.
	StatusLine(raw []byte) (session string, u *engine.HostUsage, err error)
}

// Skilled is an installer whose skill says more than cully's common one:
// what the agent must be told in advance because its hooks cannot carry a
// note to the model.
type Skilled interface {
	Installer
	// SkillText is the skill this agent gets, given cully's common one.
	SkillText(common string) string
}

// SkillFor is the skill text an installer writes and doctor compares.
func SkillFor(in Installer, common string) string {
	if s, ok := in.(Skilled); ok {
		return s.SkillText(common)
	}
	return common
}

// Guest is an agent that runs another agent's hook entries as well as its
// own: GitHub Copilot CLI runs the Claude Code hooks a repository holds,
// with payloads of its own. Hosts says, from a hook call's environment,
// that a call to the named agent's entry is really this agent's.
type Guest interface {
	Agent
	Hosts(agent string, getenv func(string) string) bool
}
