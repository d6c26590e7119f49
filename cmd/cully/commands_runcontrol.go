package main

import (
	"time"

	"github.com/spf13/cobra"
)

// Run control's commands: snapshots, rollback, stop and resume, and the
// policy file.

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
