package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"cully/engine"
	"cully/hookrun"
	"cully/store"
)

// Exit codes, mapped in one place.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// errUsage marks a usage error (exit 2).
var errUsage = errors.New("usage")

// app carries the streams and environment a subcommand may use.
type app struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
}

type command struct {
	name  string
	args  string
	about string
	run   func(a *app, args []string) error
}

func commands() []command {
	return []command{
		{"hook", "[--agent claude]", "one hook call: payload on stdin, the agent's answer on stdout (always exits 0)", cmdHook},
		{"status", "[--session ID] [--json] [--rebuild]", "session status: activity, checkpoints, guard warnings, journal health", cmdStatus},
		{"ack", "[ID...] [--all] [--session ID]", "acknowledge checkpoints", cmdAck},
		{"panel", "[--session ID] [--split [--width N]]", "the side-pane panel: follow a session, acknowledge checkpoints", cmdPanel},
		{"install", "[--agent claude] [--scope user|project] [--dry-run] [--statusline] [--command CMD]", "merge cully's hooks into the agent's settings and install the skill", cmdInstall},
		{"uninstall", "[--agent claude] [--scope user|project] [--dry-run]", "remove exactly what install added", cmdUninstall},
		{"doctor", "", "check the installation and say how to fix what is wrong", cmdDoctor},
		{"statusline", "", "Claude Code status-line command: one line of cully state", cmdStatusline},
		{"replay", "FILE... [--json]", "run the rules over recorded Claude Code transcripts; report what would have been flagged", cmdReplay},
		{"demo", "[--headless]", "a realistic session through the real hook path, in a temporary state dir", cmdDemo},
		{"version", "", "print the version", cmdVersion},
	}
}

func run(args []string, a *app) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(a.stdout)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	if args[0] == "--version" {
		args[0] = "version"
	}
	for _, c := range commands() {
		if c.name == args[0] {
			err := c.run(a, args[1:])
			switch {
			case err == nil:
				return exitOK
			case errors.Is(err, flag.ErrHelp):
				return exitOK
			case errors.Is(err, errUsage):
				fmt.Fprintf(a.stderr, "cully %s: %v\nusage: cully %s %s\n", c.name, err, c.name, c.args)
				return exitUsage
			default:
				fmt.Fprintf(a.stderr, "cully %s: %v\n", c.name, err)
				return exitError
			}
		}
	}
	fmt.Fprintf(a.stderr, "cully: unknown command %q\n\n", args[0])
	usage(a.stderr)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "cully watches AI coding agents through their hooks and nudges them when they loop.")
	fmt.Fprintln(w, "\nUsage: cully <command> [flags]\n\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.about)
	}
	fmt.Fprintln(w, "\nEnvironment: CULLY_HOME (state dir), CULLY_CONFIG (config file), CULLY_GUARD=off (no nudges),")
	fmt.Fprintln(w, "CULLY_NOW (RFC 3339 fixed clock), NO_COLOR. Run 'cully <command> -h' for a command's flags.")
}

// flags returns a FlagSet that reports to the command's stderr.
func (a *app) flags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("cully "+name, flag.ContinueOnError)
	fs.SetOutput(a.stderr)
	return fs
}

// parse parses flags and turns a parse failure into a usage error.
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	return nil
}

// home resolves the state directory.
func (a *app) home() (store.Home, error) { return hookrun.Home(a.getenv) }

// now reads the clock (CULLY_NOW or the wall clock).
func (a *app) now() (time.Time, error) { return hookrun.Now(a.getenv) }

// config loads the rule thresholds for a project directory.
func (a *app) config(projectDir string) (engine.Config, []error) {
	return hookrun.Config(a.getenv, projectDir)
}

// projectDir is the agent's project root.
func (a *app) projectDir() string { return hookrun.ProjectDir(a.getenv) }

// session picks the named session, or the most recently active one.
func (a *app) session(h store.Home, named string) (string, error) {
	if named != "" {
		return named, nil
	}
	id, err := h.LatestSession()
	if errors.Is(err, store.ErrNoSession) {
		return "", fmt.Errorf("no session recorded in %s yet: wire `cully hook` into your agent (see README) or try `cully demo`", h.Dir)
	}
	return id, err
}

func shortID(id string) string {
	if len(id) > 8 && strings.Count(id, "-") >= 4 {
		return id[:8]
	}
	return id
}
