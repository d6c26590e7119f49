package main

import "github.com/spf13/cobra"

// The advisor's commands: advise, advisor setup and status, and the
// ledger of its impact.

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
