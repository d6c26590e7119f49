package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"cully/hookbridge/agents"
	"cully/hookrun"
)

// newRoot is the whole command tree. Each command is declared here or in
// commands_*.go (its help, example and flags) and does its work in a
// method of app with an options struct, so the command line and the work
// stay apart.
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
(docs/json.md). --short prints one line for a terminal's title or tmux's status bar:
how many live sessions (active in the last 12 hours) need you, are working, are idle.

` + whichReads,
		Example: `  cully status
  cully status --short         # cully: 1 needs you (paused) · 2 working · 3 idle
  cully status --session 5f3c9a1e --json
  cully status --rebuild       # rebuild every session's state from the journal first`,
		Args: a.noArgs,
		RunE: func(*cobra.Command, []string) error {
			if o.short {
				if o.json || o.rebuild || o.session != "" {
					return fail(codeUsage, errUsage, "--short sums up every live session: it takes no --json, --rebuild or --session")
				}
				return a.statusShort()
			}
			return a.status(o)
		},
	}
	sessionFlags(c, &o.which, reads)
	c.Flags().BoolVar(&o.json, "json", false, "print JSON (schema: docs/json.md)")
	c.Flags().BoolVar(&o.short, "short", false, "one line of every live session's need, for a terminal title or tmux's status bar")
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
	var fire bool
	c := &cobra.Command{
		Use:   "doctor",
		Short: "Check the installation and say how to fix what is wrong",
		Long: `Check the installation: the hook binary; every agent's entries in each scope (user,
project, shared: cully is installed when any one of them wires it, and twice when two
do with different commands); the skill; the config files (unknown keys and bad TOML,
with file and line); the state dir's privacy and writability; the journal's health;
the last hook call and errors.log. Each problem comes with its fix; exit 1 when one
needs fixing.

With --fire, doctor also runs every installed hook command as its agent would (the
agent's shell, environment and folder) with a harmless session-start payload, into a
scratch journal it then removes: the command must run, its record land under the
agent's name, and its answer parse under the agent's contract; for Codex, the entries
must be trusted, since Codex skips an untrusted hook without a word.`,
		Example: `  cully doctor
  cully doctor --fire`,
		Args: a.noArgs,
		RunE: func(*cobra.Command, []string) error { return a.doctor(fire) },
	}
	c.Flags().BoolVar(&fire, "fire", false, "run each installed hook command as its agent would, and check its record and answer")
	return c
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
OTEL_RESOURCE_ATTRIBUTES; with no endpoint set, a collector on this machine in plain text
(http://localhost:4318, gRPC 4317). It keeps its place in the journal and sends on from there after a
restart. Off unless you run it; never in the hook. docs/teams.md has a Collector recipe.`,
		Example: `  OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318 cully export
  OTEL_EXPORTER_OTLP_PROTOCOL=grpc OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4317 cully export --from start --once`,
		Args: a.noArgs,
		RunE: func(*cobra.Command, []string) error { return a.export(o) },
	}
	c.Flags().StringVar(&o.from, "from", "saved", "where to start: saved (where it last stopped; the first time, now, or with --once the whole journal), start (the whole journal) or end (only what comes next)")
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
