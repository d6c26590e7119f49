package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"cully/hookbridge/agents"
	"cully/hookrun"
)

// newRoot is the whole command tree. Each command is declared here (its
// help, example and flags) and does its work in a method of app with an
// options struct, so the command line and the work stay apart.
func newRoot(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:   "cully",
		Short: "Watch AI coding agents through their hooks and nudge them when they loop",
		Long: `cully watches AI coding agents (` + watched() + ` today) through their lifecycle hooks.
On every tool call the agent runs cully-hook: cully records the call in a shared
journal, applies local rules (no model call) and hands the agent a short,
deduplicated nudge when it loops, re-reads, explores without acting, or edits
without checking. It refuses a call only when you ask it to: cully stop,
enforce mode, or the budget of a run nobody watches.

Environment: CULLY_HOME (state dir), CULLY_CONFIG (config file), CULLY_GUARD=off
(no nudges), CULLY_NOW (RFC 3339 fixed clock; anything else is an error),
CULLY_LOCK_TIMEOUT, NO_COLOR.

Exit codes: 0 done, 1 failed, 2 used wrongly (bad flag, argument or value); with --json
a failure is also one JSON object on stdout, its error code stable (docs/json.md).
` + "`cully hook`" + ` and cully-hook always exit 0.`,
		Example: `  go run ./cmd/cully demo      # see it on a scripted session
  cully install && cully doctor
  cully panel --split          # the side pane, inside tmux`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentPreRunE = func(c *cobra.Command, _ []string) error {
		a.cmd = c.CommandPath()
		switch c.Name() {
		case "hook", "statusline": // they never fail the agent: a bad setting goes to errors.log
			return nil
		}
		_, err := a.now() // a clock set wrong is said once, up front, not ignored
		return err
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		a.cmd = c.CommandPath()
		return flagError(c, err)
	})
	root.AddCommand(
		hookCmd(a), statusCmd(a), ackCmd(a), panelCmd(a), installCmd(a, "install"), installCmd(a, "uninstall"),
		allowCmd(a, "allow"), allowCmd(a, "deny"), doctorCmd(a), statuslineCmd(a), replayCmd(a), demoCmd(a), versionCmd(a),
		snapshotCmd(a), snapshotsCmd(a), rollbackCmd(a), stopCmd(a), resumeCmd(a), adviseCmd(a), advisorCmd(a), ledgerCmd(a), exportCmd(a), daemonCmd(a),
		policyCmd(a),
	)
	return root
}

// noArgs refuses arguments as a usage error.
func (a *app) noArgs(c *cobra.Command, args []string) error {
	a.cmd = c.CommandPath()
	if len(args) > 0 {
		return fmt.Errorf("%w: %s takes no arguments (got %q)", errUsage, c.CommandPath(), args[0])
	}
	return nil
}

func hookCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "hook [--agent NAME]",
		Short: "One hook call: payload on stdin, the agent's answer on stdout",
		Long: `One hook call: the agent's payload on stdin, its answer on stdout. It always exits 0,
and an error of cully's own goes to errors.log in the state dir, never to the agent.
The lean cully-hook binary does the same with a faster start; install wires that one in.
Flags are read leniently: the agent owns these streams, so an unknown flag is ignored.`,
		Example:            `  cully hook --agent claude < payload.json`,
		DisableFlagParsing: true, // the agent owns the streams: never a usage message
		RunE: func(c *cobra.Command, args []string) error {
			for _, x := range args {
				if x == "-h" || x == "--help" {
					return c.Help()
				}
			}
			hookrun.IgnoreSIGPIPE()
			hookrun.Run(hookrun.IO{Stdin: a.stdin, Stdout: a.stdout, Stderr: a.stderr, Getenv: a.getenv, Detach: hookrun.Detach, Wait: hookrun.Wait}, hookrun.Agent(args))
			return nil
		},
	}
	return c
}

func statusCmd(a *app) *cobra.Command {
	var o statusOpts
	c := &cobra.Command{
		Use:   "status",
		Short: "This folder's (or the named) session: activity, checkpoints, guards, budget",
		Long: `Status of this folder's session, or the one --session names: tool calls by
class, failures, checks and their outcomes, files read, open and closed checkpoints,
guard warnings, the host's budget figures (unknown where the host did not say), the
journal's health and the config files with their problems (file and line). Before any
session it says whether cully's hook is installed (then it waits for the agent's first
tool call) and lists the config. --json prints the same as a versioned JSON document
(docs/json.md).

` + whichReads,
		Example: `  cully status
  cully status --session 5f3c9a1e --json
  cully status --rebuild       # rebuild every session's state from the journal first`,
		Args: a.noArgs,
		RunE: func(*cobra.Command, []string) error { return a.status(o) },
	}
	sessionFlags(c, &o.which, reads)
	c.Flags().BoolVar(&o.json, "json", false, "print JSON (schema: docs/json.md)")
	c.Flags().BoolVar(&o.rebuild, "rebuild", false, "replay the whole journal to rebuild every session's state first (with --session, that session's)")
	return c
}

func ackCmd(a *app) *cobra.Command {
	var o ackOpts
	c := &cobra.Command{
		Use:   "ack [ID...] [--all]",
		Short: "Acknowledge checkpoints: the hook stops nudging for them",
		Long: `Acknowledge open checkpoints of this folder's (or the named) session. The agent is no
longer nudged about them; they stay in status and the panel as acknowledged.

` + whichChanges,
		Example: `  cully ack c1
  cully ack c1 c2 --session 5f3c9a1e
  cully ack --all`,
		RunE: func(_ *cobra.Command, args []string) error { return a.ack(o, args) },
	}
	sessionFlags(c, &o.which, changes)
	c.Flags().BoolVar(&o.all, "all", false, "acknowledge every open checkpoint")
	return c
}

func panelCmd(a *app) *cobra.Command {
	o := panelOpts{width: splitWidth}
	c := &cobra.Command{
		Use:   "panel",
		Short: "The side pane: follow a session, acknowledge checkpoints",
		Long: `The side-pane panel. Started in a repository, it follows that repository's most recent
session, else the most recently active one (tab or 1-9: another one), and lists the
sessions (this repository's first), checkpoints (open ones first) and guard warnings, the
budget and recent activity. j/k select a checkpoint or a guard, enter reads it in full
(evidence, when it was raised, what the agent was told), a acknowledges (u undoes for
a few seconds), A acknowledges all, b cycles alerts (off, bell, desktop), ? shows the
keys and the legend, q quits. --split opens it in a new tmux pane to the right and
leaves the focus where it was. It needs a terminal; without one, cully status gives a
one-shot view.`,
		Example: `  cully panel
  cully panel --split --width 60
  cully panel --session 5f3c9a1e`,
		Args: a.noArgs,
		RunE: func(c *cobra.Command, _ []string) error { return a.panel(c.Context(), o) },
	}
	c.Flags().StringVar(&o.session, "session", "", "follow this session: its id, or its first characters (default: this folder's most recent session, else the most recent)")
	c.Flags().BoolVar(&o.split, "split", false, "inside tmux: open the panel in a new pane to the right")
	c.Flags().IntVar(&o.width, "width", splitWidth, "width of the --split pane, in columns")
	return c
}

func installCmd(a *app, verb string) *cobra.Command {
	o := installOpts{agent: agents.Default, scope: "user"}
	c := &cobra.Command{
		Use:   verb,
		Short: "Merge cully's hooks into the agent's settings and install the skill",
		Long: `Merge cully's hook entries into the agent's settings and write cully's skill. Only
cully's entries are added: every other byte of the file stays as it was (keys, order,
indentation, spacing), a second install changes nothing, and the previous file is
backed up in the state dir (backups/, the newest 3 per settings file). A skill you
edited is never overwritten: install keeps it and says so.

Where:
  --scope user               the agent's user settings (~/.claude/settings.json): every project
  --scope project            this repository, this machine only: .claude/settings.local.json at
                             the repository's root (git's top level, from any subdirectory; the
                             current directory outside a repository). Claude Code reads it, teams
                             do not commit it, and install asks git to ignore it
                             (.git/info/exclude) unless git already does
  --scope project --shared   this repository, for everyone: .claude/settings.json, the file teams
                             commit, so its commands name no path of this machine (cully-hook on
                             PATH, by name)

Those are Claude Code's files; --agent picks another agent, whose files docs/agents.md
lists (Codex: $CODEX_HOME/hooks.json, else ~/.codex/hooks.json, and ~/.agents/skills; it runs
only hooks the user trusts, which install asks codex to record, or says the one step left;
GitHub Copilot CLI: ~/.copilot/hooks/cully.json, .github/copilot/settings.local.json,
.github/hooks/cully.json; Cursor: ~/.cursor/hooks.json, .cursor/hooks.json). --agent all
installs for every agent found on this machine, and says which it skipped.

--dry-run prints the diff and what install would do, and writes nothing.`,
		Example: `  cully install
  cully install --agent all
  cully install --dry-run
  cully install --scope project --statusline
  cully install --scope project --shared
  cully install --agent codex`,
		Args: a.noArgs,
		RunE: func(*cobra.Command, []string) error { return a.installCmd(verb, o) },
	}
	if verb == "uninstall" {
		c.Short = "Remove exactly what install added"
		c.Long = `Remove cully's hook entries (and its status line) from the agent's settings, each with
its own whitespace: every other byte stays. The skill goes if it is still cully's text.
What install created goes too once nothing else is in it: the settings file, the
folders, its line in .git/info/exclude; so a repository is left as it was. The scopes
are install's: --scope project leaves the committed .claude/settings.json alone
(--shared removes cully from that one). --agent all uninstalls from every agent.
--dry-run says what would go.`
		c.Example = `  cully uninstall
  cully uninstall --agent all
  cully uninstall --scope project --dry-run`
	}
	c.Flags().StringVar(&o.agent, "agent", agents.Default, "the agent ("+agents.Names()+"), or "+allAgents+" (every agent found here)")
	c.Flags().StringVar(&o.scope, "scope", "user", "user (the agent's user settings) or project (this repository's, this machine only)")
	c.Flags().BoolVar(&o.shared, "shared", false, "with --scope project: the settings the team commits (.claude/settings.json), with commands found on PATH")
	c.Flags().BoolVar(&o.dryRun, "dry-run", false, "print what would change, write nothing")
	if verb == "install" {
		c.Flags().BoolVar(&o.statusline, "statusline", false, "also install cully's status line, unless one is already set")
		c.Flags().StringVar(&o.command, "command", "", "hook command to write (default: cully-hook beside this binary; with --shared, cully-hook on PATH)")
	}
	return c
}

func allowCmd(a *app, verb string) *cobra.Command {
	c := &cobra.Command{
		Use:   "allow [FILE]",
		Short: "Let a repository's .cully.toml tune the thresholds (its exact content)",
		Long: `Allow a project file: until you do, a repository's .cully.toml is ignored (and said so
in errors.log, status and doctor), because anyone who can commit to a repository can
write one. allow shows what the file sets and what is wrong with it, then records its
absolute path and the SHA-256 of its content in the state dir (allowed.json). Once the
file changes it is ignored again until allowed again. Thresholds are all it can set,
each held to its project range (docs/rules.md).

FILE defaults to the .cully.toml of the current repository's root (the nearest
directory holding .git, else the current directory); a directory means its .cully.toml.`,
		Example: `  cully allow
  cully allow ~/src/app/.cully.toml`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error { return a.allow(args) },
	}
	if verb == "deny" {
		c.Use = "deny [FILE]"
		c.Short = "Withdraw a project file's allowance: it is ignored, without a reminder"
		c.Long = `Deny a project file: its allowance is removed and the denial recorded, so the hook
ignores the file without reminding you at each session start. ` + "`cully allow`" + ` undoes it.
FILE defaults as for allow: the .cully.toml of the current repository's root.`
		c.Example = `  cully deny
  cully deny ~/src/app/.cully.toml`
		c.RunE = func(_ *cobra.Command, args []string) error { return a.deny(args) }
	}
	return c
}

func doctorCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Check the installation and say how to fix what is wrong",
		Long: `Check the installation: the hook binary; every agent's entries in each scope (user,
project, shared: cully is installed when any one of them wires it, and twice when two
do with different commands); the skill; the config files (unknown keys and bad TOML,
with file and line); the state dir's privacy and writability; the journal's health;
the last hook call and errors.log. Each problem comes with its fix; exit 1 when one
needs fixing.`,
		Example: `  cully doctor`,
		Args:    a.noArgs,
		RunE:    func(*cobra.Command, []string) error { return a.doctor() },
	}
}

func statuslineCmd(a *app) *cobra.Command {
	var agent, then string
	c := &cobra.Command{
		Use:   "statusline [--then CMD]",
		Short: "Claude Code status-line command: one line of cully state",
		Long: `Claude Code's status-line command: reads the host's status JSON on stdin, prints one
line of cully state, and records the host's own cost and context figures so budgets
use them. It never fails the status line.

--then CMD keeps the status line you had: after cully's line, CMD runs through the shell
with the same JSON on its stdin, and what it prints follows (at most 10 seconds; a
failure goes to errors.log).`,
		Example: `  echo '{"session_id":"s1"}' | cully statusline
  cully statusline --then 'npx -y ccusage statusline'`,
		Args: a.noArgs,
		RunE: func(*cobra.Command, []string) error { return a.statuslineCmd(agent, then) },
	}
	c.Flags().StringVar(&agent, "agent", agents.Default, "the agent whose status line calls this")
	c.Flags().StringVar(&then, "then", "", "the status-line command to run after cully's, with the same input")
	return c
}

func replayCmd(a *app) *cobra.Command {
	o := replayOpts{}
	c := &cobra.Command{
		Use:   "replay [FILE|DIR]...",
		Short: "Run the rules over recorded transcripts: what would have been flagged",
		Long: `Run the rules over recorded sessions (Claude Code transcripts, Codex rollouts) and report
what cully would have flagged, where (the time, tool and redacted command or file of each
call), totals per rule, and its nudges per 100 tool calls. Nothing is written to the state
dir.

Folders are read recursively; with no argument, the agents' own folders that exist
($CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects; $CODEX_HOME/sessions, else
~/.codex/sessions). Each file is read by the agent that recorded it (--agent: only that
one's). Every file that carries the same session id is one session: a transcript split in
parts (full.jsonl.001, .002, …) is merged, each record taken once and all in time order,
and a subagent's transcript (<session>/subagents/agent-*.jsonl) is replayed inside its
parent's session. Any other file is skipped with one warning line on stderr; the command
fails when nothing could be replayed. Sessions are replayed in parallel; on a terminal, a
replay longer than a second shows its progress.`,
		Example: `  cully replay                                  # every transcript and rollout the agents kept
  cully replay ~/.claude/projects/-home-me-app/
  cully replay --agent codex ~/.codex/sessions/2026/
  cully replay session.jsonl --json`,
		RunE: func(_ *cobra.Command, args []string) error { return a.replay(o, args) },
	}
	c.Flags().BoolVar(&o.json, "json", false, "print JSON (schema: docs/json.md)")
	c.Flags().StringVar(&o.agent, "agent", "", "read only this agent's recorded sessions ("+agents.Names()+"; default: every one's)")
	c.Flags().StringVar(&o.moments, "moments", "", "a moments file (bench/quality/moments.tsv): say which of its moments the rules caught within 3 calls")
	return c
}

func demoCmd(a *app) *cobra.Command {
	o := demoOpts{speed: 1}
	c := &cobra.Command{
		Use:   "demo",
		Short: "A realistic agent session through the real hook path, live in the panel",
		Long: `A scripted, realistic agent session sent through the real hook path into a temporary
state dir, shown live in the panel: captions in its footer say what happens and what the
agent was told, and a closing screen with the next step stays until you press q (about a
minute; --speed 2 plays it twice as fast). Without a terminal, or with --headless, it
prints the same captions, what the agent was told, and the final status. The temporary
folder is removed however the demo ends (q, Ctrl-C, SIGTERM, a hang-up, a closed pipe)
unless --keep.`,
		Example: `  cully demo
  cully demo --speed 2
  cully demo --headless`,
		Args: a.noArgs,
		RunE: func(c *cobra.Command, _ []string) error { return a.demo(c.Context(), o) },
	}
	c.Flags().BoolVar(&o.headless, "headless", false, "print the session and the final status instead of opening the panel")
	c.Flags().BoolVar(&o.keep, "keep", false, "keep the temporary state dir and print its path")
	c.Flags().Float64Var(&o.speed, "speed", 1, "play the session this many times faster in the panel (0.5: slower)")
	return c
}

func versionCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the version",
		Example: `  cully version`,
		Args:    a.noArgs,
		RunE: func(*cobra.Command, []string) error {
			fmt.Fprintln(a.stdout, "cully "+versionLine())
			return nil
		},
	}
}

func snapshotCmd(a *app) *cobra.Command {
	o := snapshotOpts{timeout: 2 * time.Minute}
	c := &cobra.Command{
		Use:   "snapshot",
		Short: "Take a recovery snapshot of the run now, or wait for the hook's",
		Long: `Take a recovery snapshot of this folder's (or the named) session's run now: a file in
runs/<run_id>/ of the state dir, in seed 001's format (run_id, step, timestamp,
state_snapshot, files_modified), its files' content kept in the repository's snapshot store.
The hook takes them by itself, in the background: at the run's start (step 0), every 10
tool calls or 120 seconds, whichever comes first, and when the agent ends its turn.
--wait waits until every snapshot the hook asked for has finished, and fails when the
last one failed (docs/run-control.md). CULLY_SNAPSHOTS=off stops the hook taking any.

` + whichChanges + `
--wait takes none: it picks its session as status does.`,
		Example: `  cully snapshot
  cully snapshot --wait --timeout 30s`,
		Args: a.noArgs,
		RunE: func(*cobra.Command, []string) error { return a.snapshot(o) },
	}
	sessionFlags(c, &o.which, changes)
	c.Flags().BoolVar(&o.wait, "wait", false, "wait for the snapshots the hook started, take none")
	c.Flags().DurationVar(&o.timeout, "timeout", o.timeout, "with --wait: how long to wait")
	// What the hook passes to the snapshot it starts.
	c.Flags().BoolVar(&o.background, "background", false, "the hook's background snapshot")
	c.Flags().BoolVar(&o.serve, "serve", false, "serve the hook's snapshot queue (started by the hook)")
	c.Flags().StringVar(&o.run, "run", "", "the run's id")
	c.Flags().IntVar(&o.task, "task", 0, "the run's task")
	c.Flags().StringVar(&o.reason, "reason", "", "why the snapshot was asked for")
	c.Flags().IntVar(&o.calls, "calls", 0, "the run's tool calls")
	c.Flags().StringVar(&o.dir, "dir", "", "the project folder")
	c.Flags().StringVar(&o.mark, "mark", "", "the hook's capture around a call: pre or post")
	c.Flags().StringVar(&o.call, "call", "", "with --mark: the call's id")
	c.Flags().StringVar(&o.destructive, "destructive", "", "with --mark=pre: the destructive command about to run")
	c.Flags().StringArrayVar(&o.paths, "path", nil, "with --mark=post: a file the call edited, from --dir")
	for _, f := range []string{"background", "serve", "run", "task", "reason", "calls", "dir", "mark", "call", "destructive", "path"} {
		_ = c.Flags().MarkHidden(f)
	}
	return c
}

func snapshotsCmd(a *app) *cobra.Command {
	var o snapshotsOpts
	c := &cobra.Command{
		Use:   "snapshots",
		Short: "List the run's recovery snapshots: step, time, files modified",
		Long: `List the recovery snapshots of this folder's (or the named) session's current run, oldest
first: each one's step, time, why it was taken, the run's tool calls then, and the files
modified since the run's start. --json prints them as a JSON document (docs/json.md).

` + whichReads,
		Example: `  cully snapshots
  cully snapshots --session 5f3c9a1e --json`,
		Args: a.noArgs,
		RunE: func(*cobra.Command, []string) error { return a.snapshots(o) },
	}
	sessionFlags(c, &o.which, reads)
	c.Flags().BoolVar(&o.json, "json", false, "print JSON (schema: docs/json.md)")
	c.AddCommand(snapshotsPruneCmd(a))
	return c
}

func snapshotsPruneCmd(a *app) *cobra.Command {
	o := pruneOpts{keepDays: -1}
	c := &cobra.Command{
		Use:   "prune",
		Short: "Remove old runs' snapshots and the content no kept run needs",
		Long: `Apply the snapshot stores' policy now, in every repository: a run is kept when it is one
of the newest [snapshots] keep_runs (20) or started within keep_days (7); then, while a
store is over its cap (max_store_bytes: a tenth of the disk, 256 MiB to 4 GiB), its
oldest runs go. A run in use and each repository's newest run are always kept. Runs go
whole; the content no kept run refers to is then removed. The same prune runs by itself
at each run's start when something is due. --keep-runs and --keep-days change the policy
for this prune only.`,
		Example: `  cully snapshots prune
  cully snapshots prune --keep-runs 3 --keep-days 0 --json`,
		Args: a.noArgs,
		RunE: func(*cobra.Command, []string) error { return a.snapshotsPrune(o) },
	}
	c.Flags().IntVar(&o.keepRuns, "keep-runs", 0, "keep this many newest runs of each repository (default: the policy's)")
	c.Flags().IntVar(&o.keepDays, "keep-days", -1, "keep the runs started within this many days (default: the policy's)")
	c.Flags().BoolVar(&o.json, "json", false, "print JSON (schema: docs/json.md)")
	return c
}

func rollbackCmd(a *app) *cobra.Command {
	o := rollbackOpts{to: -1}
	c := &cobra.Command{
		Use:   "rollback",
		Short: "Put the run's files back as they were at a snapshot",
		Long: `Put the files the run changed back as they were at a snapshot (--to STEP; default the
run's last one; 0 is the run's start). Only those files are touched: each is written
back, or removed when it was created since; every other file stays as it is, the user's
own earlier edits included. The state before is snapshotted first, so the rollback
itself can be undone with cully rollback --to <that step>. Every path is checked
before any is changed: when one cannot be restored (a folder now stands where a file
was, a folder is not writable) or its content now is held by no snapshot (grown past
the size cap, a secret file, a special file), nothing is changed, every file the run
modified is listed, and the command exits 1; --force then rolls back the rest and
leaves those files as they are. Bytes come back exactly (line endings, modes, links).

` + whichChanges + `
--dry-run changes nothing: it picks its session as status does.`,
		Example: `  cully rollback --dry-run
  cully rollback --to 0
  cully rollback --to 3 --json`,
		Args: a.noArgs,
		RunE: func(*cobra.Command, []string) error { return a.rollback(o) },
	}
	sessionFlags(c, &o.which, changes)
	c.Flags().IntVar(&o.to, "to", -1, "the snapshot's step (cully snapshots lists them; default: the last)")
	c.Flags().BoolVar(&o.dryRun, "dry-run", false, "say what would change, change nothing")
	c.Flags().BoolVar(&o.force, "force", false, "roll back the rest when a file's content is held by no snapshot, leaving that file as it is")
	c.Flags().BoolVar(&o.json, "json", false, "print JSON (schema: docs/json.md)")
	return c
}

func stopCmd(a *app) *cobra.Command {
	var o stopOpts
	c := &cobra.Command{
		Use:   "stop",
		Short: "Stop the run: its next tool call is refused; final snapshot and a summary",
		Long: `Stop this folder's (or the named) session's run: the tool call under way finishes by
itself; every later tool call is refused by the agent's host, with the reason, and the
agent's turn ends where the host can end it (Claude Code, Codex, Gemini CLI), until
cully resume; a final snapshot is taken; a summary says what the run did (tool calls,
files modified, the checks it ran and how each last came out) and what is left as
cully knows it (unverified edits, failing checks, open checkpoints).
--soft only pauses: the agent is told at each call to make no further changes, and
nothing is refused. --revert also puts the run's uncommitted changes back as they were
at its start (files the run committed are kept), as cully rollback --to 0 does.
cully status shows the stop.

` + whichChanges,
		Example: `  cully stop
  cully stop --revert --session 5f3c9a1e --yes`,
		Args: a.noArgs,
		RunE: func(*cobra.Command, []string) error { return a.stop(o) },
	}
	sessionFlags(c, &o.which, changes)
	c.Flags().BoolVar(&o.revert, "revert", false, "also revert the run's uncommitted changes, to its start")
	c.Flags().BoolVar(&o.soft, "soft", false, "only pause: tell the agent at each call, refuse nothing")
	c.Flags().BoolVar(&o.force, "force", false, "with --revert: revert the rest when a file's content is held by no snapshot, leaving that file as it is")
	return c
}

func resumeCmd(a *app) *cobra.Command {
	var o resumeOpts
	c := &cobra.Command{
		Use:   "resume [--raise] [--reason TEXT]",
		Short: "Let a stopped or halted run go on; --raise doubles the budget it reached",
		Long: `Resume this folder's (or the named) session's stopped, paused or halted run: its tool
calls run again, and --reason is recorded in the journal (also after a failed rollback,
whose warning it clears). --raise doubles every budget the run has reached, as seed 001
answers a false positive (legitimate, repetitive work); a run halted at its budget needs
it. A note (--reason) is required to override cully: with --raise, or after a halt of
enforce mode; lifting your own cully stop needs none (docs/run-control.md).

` + whichChanges,
		Example: `  cully resume
  cully resume --raise --reason "the bulk rename is legitimate"`,
		Args: a.noArgs,
		RunE: func(*cobra.Command, []string) error { return a.resume(o) },
	}
	sessionFlags(c, &o.which, changes)
	c.Flags().StringVar(&o.reason, "reason", "", "why the run may go on (recorded; required with --raise or after a halt of enforce mode)")
	c.Flags().BoolVar(&o.raise, "raise", false, "double every budget the run has reached (seed 001: 2×)")
	return c
}

func adviseCmd(a *app) *cobra.Command {
	var o adviseOpts
	c := &cobra.Command{
		Use:   "advise [--session ID]",
		Short: "Ask the advisor now: an explicit evaluation, outside the automatic budget",
		Long: `Runs the advisor worker ([advisor] command in your config) on this folder's (or the named)
session's evidence, under its deadline, and records the advice in the journal: the next
nudge carries it to the agent once. An explicit request is outside the automatic budget
and recorded as explicit. --auto is the automatic request the hook starts in the
background when the evidence changes: it takes the budget decision first (docs/advisor.md).
With no [advisor] command the advisor is off and this says so.

` + whichChanges,
		Example: `  cully advise
  cully advise --session 5f3c9a1e`,
		Args: a.noArgs,
		RunE: func(*cobra.Command, []string) error { return a.advise(o) },
	}
	sessionFlags(c, &o.which, changes)
	c.Flags().BoolVar(&o.auto, "auto", false, "an automatic request, under the budget (what the hook starts)")
	return c
}

func advisorCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "advisor",
		Short: "Set up the advisor's worker command",
		Args:  a.noArgs,
	}
	var o setupOpts
	setup := &cobra.Command{
		Use:   "setup [--agent claude|codex] [--discovery] [--yes]",
		Short: "Propose a headless, read-only advisor command for claude or codex on PATH, and write it on confirmation",
		Long: `Finds claude and codex on PATH and proposes, for the first found (or --agent), the exact
headless, read-only command the advisor runs: for Claude Code, print mode with a small model,
Read/Grep/Glob only (WebSearch only for discovery), a turn cap and no hooks; for Codex, exec in
a read-only sandbox. It shows the config text and what each part allows, then appends it to
your config file when you confirm (a terminal asks; --yes writes without asking; otherwise
nothing is written). A config that already sets a worker is never edited: setup says where.
docs/advisor.md has every flag and the prompt, word for word.`,
		Example: `  cully advisor setup
  cully advisor setup --agent codex --yes
  cully advisor setup --discovery --dry-run`,
		Args: a.noArgs,
		RunE: func(*cobra.Command, []string) error { return a.advisorSetup(o) },
	}
	setup.Flags().StringVar(&o.agent, "agent", "", "the client to use: claude or codex (default: the first found, claude first)")
	setup.Flags().BoolVar(&o.discovery, "discovery", false, "also write a [discovery] command (public research before the advice; Claude Code only)")
	setup.Flags().IntVar(&o.deadline, "deadline", 0, "the worker's deadline in seconds, 1–600 (default: 120, not written)")
	setup.Flags().BoolVar(&o.yes, "yes", false, "write without asking")
	setup.Flags().BoolVar(&o.dryRun, "dry-run", false, "show the proposal, write nothing")
	c.AddCommand(setup)
	return c
}

func ledgerCmd(a *app) *cobra.Command {
	var o ledgerOpts
	c := &cobra.Command{
		Use:   "ledger [--session ID] [--json]",
		Short: "The impact ledger: analyses skipped, requests spent, what nudges cost (estimated)",
		Long: `Every analysis the advisor's budget skipped (identical evidence, spacing, the hourly cap,
discovery's cooldown, a deferral) with the estimated prompt tokens it avoided; every request
spent, counted against them (net); and what the nudges told to agents cost their context:
their text once, and again in each later model request of the session (each request
re-sends the conversation), per session, and as a share of the host's own input-token count
where the host reports one. Every token figure is an estimate (bytes/4), labelled so.
--session: one session's figures only. --json: docs/json.md.`,
		Example: `  cully ledger
  cully ledger --json`,
		Args: a.noArgs,
		RunE: func(*cobra.Command, []string) error { return a.ledger(o) },
	}
	c.Flags().BoolVar(&o.json, "json", false, "print JSON (schema: docs/json.md)")
	c.Flags().StringVar(&o.session, "session", "", "one session's figures only: its id, or its first characters")
	return c
}

func exportCmd(a *app) *cobra.Command {
	o := exportOpts{from: "saved"}
	c := &cobra.Command{
		Use:   "export [--from saved|start|end] [--once]",
		Short: "Send the journal to an OpenTelemetry collector (OTLP): log records, a span per tool call",
		Long: `Follows the journal and sends it over OTLP: every record as a log record, every tool call
as a span (pre-tool to post-tool) inside a span for its task, and checkpoints, guard
warnings, nudges, budget and run-control signals as WARN log records and span events. Keyed
with the host's ids (session.id, prompt.id, gen_ai.tool.call.id) and resource attributes a
fleet groups by (service, host, user; repository and agent on each record); a task joins the
host's trace when the host gave the hook a TRACEPARENT. Configured with the standard
OTEL_EXPORTER_OTLP_* variables (protocol grpc or http/protobuf, endpoint, headers, TLS) and
OTEL_RESOURCE_ATTRIBUTES. It keeps its place in the journal and sends on from there after a
restart. Off unless you run it; never in the hook. docs/teams.md has a Collector recipe.`,
		Example: `  OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318 cully export
  OTEL_EXPORTER_OTLP_PROTOCOL=grpc OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4317 cully export --from start --once`,
		Args: a.noArgs,
		RunE: func(*cobra.Command, []string) error { return a.export(o) },
	}
	c.Flags().StringVar(&o.from, "from", "saved", "where to start: saved (where it last stopped; now, the first time), start (the whole journal) or end (only what comes next)")
	c.Flags().BoolVar(&o.once, "once", false, "send what the journal holds now, then exit")
	return c
}

func daemonCmd(a *app) *cobra.Command {
	var o daemonOpts
	c := &cobra.Command{
		Use:   "daemon [--listen 127.0.0.1:PORT] [--token]",
		Short: "Serve hook calls to your own processes: a Unix socket, or loopback with a secret (measured, not installed by default)",
		Long: `Serves hook calls over HTTP: each POST to /hook/AGENT (claude) is one hook call, run in
this process exactly as cully-hook runs it, the answer in the response; GET /health answers
ok. One per state dir.

By default it listens on a Unix socket in the state dir (daemon.sock, 0600) and serves only
processes of your own user, which the kernel names for each connection: for clients that can
reach a socket (curl --unix-socket). Claude Code's http hooks cannot reach a Unix socket: for
them, --listen 127.0.0.1:PORT, and every request must carry this install's secret in
"Authorization: Bearer $CULLY_DAEMON_TOKEN" (--token prints it; the hook entry lists
CULLY_DAEMON_TOKEN in allowedEnvVars). Either way a request with an Origin header (a web
page), a Host other than the address listened on (a DNS-rebound name) or a body that is not
application/json is refused. docs/security.md has the model.

It saves the host a process start per hook event, but an http hook whose daemon is down fails
open and the call goes unrecorded, so cully install keeps command hooks:
docs/performance.md has the measurement in the real client, and the hook entry.`,
		Example: `  cully daemon
  export CULLY_DAEMON_TOKEN="$(cully daemon --token)"; cully daemon --listen 127.0.0.1:4781`,
		Args: a.noArgs,
		RunE: func(*cobra.Command, []string) error { return a.daemon(o) },
	}
	c.Flags().StringVar(&o.listen, "listen", "", "serve loopback TCP at HOST:PORT (e.g. 127.0.0.1:4781), each request carrying the secret, instead of the Unix socket")
	c.Flags().BoolVar(&o.token, "token", false, "print the secret requests over --listen carry (made on first use, 0600 in the state dir), and exit")
	return c
}

func policyCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "policy",
		Short: "Write or print run-control-policy.md: budgets, checkpoints, runaway rules, shutdown, rollback",
		Long: `The run control policy (seed 001's five sections) generated from the configuration in
effect: the budget table (cully's limit, what the agents' own configuration sets, the
seed's recommendation), the snapshot policy, the runaway rules, the graceful stop and the
rollback policy. init writes it; show prints it.`,
		Args: a.noArgs,
	}
	c.AddCommand(policyInitCmd(a), policyShowCmd(a))
	return c
}

func policyInitCmd(a *app) *cobra.Command {
	var o policyOpts
	c := &cobra.Command{
		Use:   "init [--class standard|multi-file|full-repo] [--force]",
		Short: "Write run-control-policy.md at the repository root",
		Long: `Write run-control-policy.md at the repository root (git's top level of the current
folder; outside a repository, the current folder; the command says which). The budget
table's Limit is what cully enforces (your [budget], else the class default), its Current
Setting what Claude Code's settings files and Codex's config.toml set (none where they
set nothing), its Recommended seed 001's default for the class (--class; default: your
[budget] class, else standard). An existing file is not overwritten without --force.`,
		Example: `  cully policy init
  cully policy init --class multi-file --force`,
		Args: a.noArgs,
		RunE: func(*cobra.Command, []string) error { return a.policyInit(o) },
	}
	c.Flags().StringVar(&o.class, "class", "", "task class for the defaults: standard, multi-file or full-repo")
	c.Flags().BoolVar(&o.force, "force", false, "replace an existing run-control-policy.md")
	return c
}

func policyShowCmd(a *app) *cobra.Command {
	var o policyOpts
	c := &cobra.Command{
		Use:     "show [--class standard|multi-file|full-repo]",
		Short:   "Print the policy cully policy init would write, writing nothing",
		Example: `  cully policy show --class full-repo`,
		Args:    a.noArgs,
		RunE:    func(*cobra.Command, []string) error { return a.policyShow(o) },
	}
	c.Flags().StringVar(&o.class, "class", "", "task class for the defaults: standard, multi-file or full-repo")
	return c
}
