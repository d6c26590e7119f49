package tui

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"cully/config"
	"cully/engine"
	"cully/runs"
	"cully/store"
	"cully/usage"
)

// Backend is the panel's I/O, called only from tea.Cmds.
type Backend interface {
	// Sessions lists the recorded sessions, most recently active first.
	Sessions() ([]store.SessionInfo, error)
	// State reads a session's state as the reducer left it.
	State(session string) (*engine.State, error)
	// Project names the project a session works in, from its directory.
	Project(dir string) Project
	// Root is a session's project root, from its run and its folder
	// (runs.Root): the panel lists and follows the sessions of the
	// repository it started in first.
	Root(run, cwd string) string
	// UsageHint is the command that gets cully the cost and context
	// figures an agent's host can report ("" when it cannot).
	UsageHint(agent string) string
	// Records reads on the host's own record of the session (its
	// transcript, rollout or session log) from where the last read
	// stopped: its tokens, context and estimated cost (nil: none read).
	Records(st *engine.State) *usage.Cache
	// Ack records that the user acknowledged checkpoints.
	Ack(session string, ids []string) error
	// Tell records that the user asked for checkpoints to be told to the
	// agent at its next tool call.
	Tell(session string, ids []string) error
	// Pause stops the session's run as `cully stop` does: the agent's
	// next tool call is refused, a final snapshot is taken. It returns
	// what happened, in a line.
	Pause(session string) (string, error)
	// Resume lets the session's run go on as `cully resume` does (raise:
	// --raise), reason recorded; refused, nothing is recorded and the
	// error says why.
	Resume(session string, raise bool, reason string) (string, error)
	// Diff reads what changed in the run's files since its start, each
	// file marked by who changed it (runs.Diff): nothing is written.
	Diff(session, run string) ([]runs.FileDiff, error)
	// Rollback rolls the session's run back to its start as `cully
	// rollback --to 0` does (dry: its dry run), recorded as it records it.
	Rollback(session string, dry bool) (*runs.Plan, error)
	// GoTo selects a tmux pane (the one the agent runs in), its window and
	// session, in the panel's tmux server.
	GoTo(pane string) error
	// Recent reads the records in the last window bytes of the journal.
	Recent(window int64) ([]*engine.Event, error)
	// Run reads what the session's run folder holds beyond its state (the
	// last snapshot's modified files, a failed rollback's record).
	Run(st *engine.State) RunFiles
	// Advisor is the advisor's standing for the session at now, and the
	// impact ledger's totals.
	Advisor(st *engine.State, now time.Time) AdvisorInfo
	// Errors reads the state dir's error log after byte off (off < 0:
	// only where it ends), as store.Home.ErrorsAfter does.
	Errors(off int64) (store.ErrorsTail, error)
	// Recording reads what the state dir says about records that did not
	// reach the journal, and the space left on its disk, as
	// store.Home.ReadRecording does. It never clears them: `cully doctor`
	// and `cully status` do, once they have shown them.
	Recording() (store.Recording, error)
}

// Project is where a session works: the git root's base name (or the
// directory's, outside git) and the branch checked out there.
type Project struct {
	Name   string
	Dir    string // the git root, or the directory itself
	Branch string // "" outside git; "detached 1a2b3c4" on a detached HEAD
}

// HomeBackend reads and writes a state directory through the store, with
// the same locks and reducer as the hook.
type HomeBackend struct {
	Home store.Home
	// Record stamps an event with the clock and appends it through the
	// reducer (the caller wires the clock and configuration in).
	Record func(ev *engine.Event) error
	// Hint is UsageHint (the caller knows which adapters report usage).
	Hint func(agent string) string
	// Read is Records (the caller knows the adapters that read records).
	Read func(st *engine.State) *usage.Cache
	// Workers are the advisor's commands from the user's config (read by
	// the caller at the panel's start); DiscoveryOff is CULLY_DISCOVERY=off.
	Workers      config.Workers
	DiscoveryOff bool
	// Cache keeps the ledger's totals and the last snapshot's files between
	// reloads (nil: read them every time).
	Cache *ReadCache
	// PauseRun and ResumeRun are Pause and Resume, as the commands do
	// them (the caller wires them in; nil: the panel cannot).
	PauseRun  func(session string) (string, error)
	ResumeRun func(session string, raise bool, reason string) (string, error)
	// Select is GoTo (the caller runs tmux; nil: the panel cannot).
	Select func(pane string) error
	// RollbackRun is Rollback, as the command does it (nil: the panel
	// cannot).
	RollbackRun func(session string, dry bool) (*runs.Plan, error)
	// Rules catch up a state a hook left behind the journal
	// (store.Home.ReadState); nil: the defaults.
	Rules *engine.Config
}

// Sessions lists sessions, most recently active first.
func (b HomeBackend) Sessions() ([]store.SessionInfo, error) { return b.Home.Sessions() }

// State reads a session's state under its lock.
func (b HomeBackend) State(session string) (*engine.State, error) {
	st, err := b.Home.ReadState(session, b.Rules)
	if errors.Is(err, os.ErrNotExist) {
		return engine.NewState(session), nil
	}
	return st, err
}

// Ack appends an ack event: the hook stops nudging for those checkpoints.
func (b HomeBackend) Ack(session string, ids []string) error {
	return b.Record(&engine.Event{Agent: "cully", Session: session, Kind: engine.KindAck, Hook: "ack", Ack: ids})
}

// errNoControl: the panel was started without run control wired in.
var errNoControl = errors.New("run control is not available in this panel")

// Pause asks the configured PauseRun.
func (b HomeBackend) Pause(session string) (string, error) {
	if b.PauseRun == nil {
		return "", errNoControl
	}
	return b.PauseRun(session)
}

// Resume asks the configured ResumeRun.
func (b HomeBackend) Resume(session string, raise bool, reason string) (string, error) {
	if b.ResumeRun == nil {
		return "", errNoControl
	}
	return b.ResumeRun(session, raise, reason)
}

// Tell appends a tell event: the hook's next pre-tool answer carries
// those checkpoints, once.
func (b HomeBackend) Tell(session string, ids []string) error {
	return b.Record(&engine.Event{Agent: "cully", Session: session, Kind: engine.KindTell, Hook: "tell", Tell: ids})
}

// Diff reads the run's diff since its start, within the snapshot
// store's bounds from the configuration.
func (b HomeBackend) Diff(session, run string) ([]runs.FileDiff, error) {
	var pol *runs.Policy
	if b.Rules != nil {
		p := runs.PolicyFor(b.Home.Dir, b.Rules.Snapshots)
		pol = &p
	}
	return runs.Diff(b.Home, runs.DiffRequest{Run: run, To: 0, Policy: pol})
}

// Rollback asks the configured RollbackRun.
func (b HomeBackend) Rollback(session string, dry bool) (*runs.Plan, error) {
	if b.RollbackRun == nil {
		return nil, errNoControl
	}
	return b.RollbackRun(session, dry)
}

// GoTo asks the configured Select.
func (b HomeBackend) GoTo(pane string) error {
	if b.Select == nil {
		return errors.New("this panel cannot select panes")
	}
	return b.Select(pane)
}

// Errors reads errors.log after off: the records cully's own failures
// left (a hook call that could not be recorded among them).
func (b HomeBackend) Errors(off int64) (store.ErrorsTail, error) { return b.Home.ErrorsAfter(off) }

// Recording reads the failure counter and the free space (see
// store/recording.go).
func (b HomeBackend) Recording() (store.Recording, error) { return b.Home.ReadRecording() }

// Recent reads the last window bytes of the live journal: every record but
// the host's usage reports (the panel keeps what it needs of them).
func (b HomeBackend) Recent(window int64) ([]*engine.Event, error) {
	var evs []*engine.Event
	_, _, err := b.Home.ScanTail(window, func(ev *engine.Event) error {
		if ev.Kind != engine.KindHostUsage {
			evs = append(evs, ev)
		}
		return nil
	})
	return evs, err
}

// UsageHint asks the configured hint function.
func (b HomeBackend) UsageHint(agent string) string {
	if b.Hint == nil {
		return ""
	}
	return b.Hint(agent)
}

// Records asks the configured reader.
func (b HomeBackend) Records(st *engine.State) *usage.Cache {
	if b.Read == nil {
		return nil
	}
	return b.Read(st)
}

// Project finds the git root at or above dir and reads its HEAD.
func (b HomeBackend) Project(dir string) Project { return FindProject(dir) }

// Root is where a session works, as the commands find it (runs.Root).
func (b HomeBackend) Root(run, cwd string) string { return runs.Root(b.Home, run, cwd) }

// maxGitUp bounds the walk from a directory up to its git root.
const maxGitUp = 64

// FindProject names the project of dir: the nearest enclosing git work
// tree (a .git directory, or a .git file pointing at a worktree's git
// directory) and its checked-out branch; outside git, dir's own base name.
func FindProject(dir string) Project {
	if dir == "" {
		return Project{}
	}
	dir = filepath.Clean(dir)
	p := Project{Name: filepath.Base(dir), Dir: dir}
	d := dir
	for i := 0; i < maxGitUp; i++ {
		git := filepath.Join(d, ".git")
		if fi, err := os.Stat(git); err == nil {
			p.Name, p.Dir = filepath.Base(d), d
			if !fi.IsDir() {
				git = gitDirOf(git, d)
			}
			if git != "" {
				p.Branch = branchOf(filepath.Join(git, "HEAD"))
			}
			break
		}
		up := filepath.Dir(d)
		if up == d {
			break
		}
		d = up
	}
	if p.Name == "." || p.Name == string(filepath.Separator) {
		p.Name = dir
	}
	return p
}

// gitDirOf reads a .git file ("gitdir: PATH", as in worktrees and
// submodules) and returns the directory it names.
func gitDirOf(file, root string) string {
	b, err := readSmall(file)
	if err != nil {
		return ""
	}
	line := strings.TrimSpace(string(b))
	g, ok := strings.CutPrefix(line, "gitdir:")
	if !ok {
		return ""
	}
	g = strings.TrimSpace(g)
	if !filepath.IsAbs(g) {
		g = filepath.Join(root, g)
	}
	return g
}

// branchOf reads a HEAD file: "ref: refs/heads/NAME" is NAME, a bare
// commit id is a detached HEAD.
func branchOf(head string) string {
	b, err := readSmall(head)
	if err != nil {
		return ""
	}
	s := strings.TrimSpace(string(b))
	if ref, ok := strings.CutPrefix(s, "ref:"); ok {
		ref = strings.TrimSpace(ref)
		if name, ok := strings.CutPrefix(ref, "refs/heads/"); ok {
			return name
		}
		return ref
	}
	if len(s) >= 7 {
		return "detached " + s[:7]
	}
	return ""
}

// readSmall reads at most 4 KiB: a HEAD or .git file is one line, and a
// FIFO or a huge file planted there must not stall the panel.
func readSmall(path string) ([]byte, error) {
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() { // before opening: opening a FIFO blocks
		return nil, errors.New("not a regular file")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, 4096)
	n, err := f.Read(buf)
	if n == 0 && err != nil {
		return nil, err
	}
	if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
		n = i
	}
	return buf[:n], nil
}

func itoa(n int) string { return strconv.Itoa(n) }
