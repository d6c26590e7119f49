package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"charm.land/fang/v2"

	"cully/engine"
	"cully/env"
	"cully/hookbridge"
	"cully/hookbridge/agents"
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

// errSilent fails a command that has nothing left to say: the reader of
// its output went away (exit 1, nothing on stderr).
var errSilent = errors.New("output closed")

// app carries the streams and environment a subcommand may use.
type app struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
	cmd    string // the command being run ("cully panel"), for error hints
	json   bool   // the command line asks for --json: a failure is printed as JSON too

	lockWarned bool // a bad CULLY_LOCK_TIMEOUT was reported once
}

// run executes one command line and maps its result to an exit code: 0
// done, 1 failed, 2 used wrongly (a bad flag, argument or value).
func run(args []string, a *app) int {
	root := newRoot(a)
	a.json = wantsJSON(root, args)
	root.SetArgs(args)
	root.SetIn(a.stdin)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	err := fang.Execute(context.Background(), root,
		fang.WithVersion(versionLine()),
		fang.WithErrorHandler(a.printError),
		fang.WithNotifySignal(os.Interrupt),
	)
	switch {
	case err == nil:
		return exitOK
	case isUsage(err):
		return exitUsage
	}
	return exitError
}

// isUsage tells a usage error: ours, or one of Cobra's own (a bad flag, an
// unknown command, the wrong number of arguments).
func isUsage(err error) bool {
	if errors.Is(err, errUsage) {
		return true
	}
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "flag needs an argument", "invalid argument", "accepts ", "requires at least", "requires at most"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// printError writes a failed command's error in plain words (see plain):
// styled by Fang on a terminal, one plain line ("cully: …") for scripts
// and logs, with a hint for usage errors. Under --json the error is also
// one JSON object on stdout (docs/json.md), and stderr gets the one line.
func (a *app) printError(w io.Writer, styles fang.Styles, err error) {
	if errors.Is(err, errSilent) {
		return
	}
	msg := plain(err)
	if a.json {
		a.printJSONError(err)
		fmt.Fprintf(termSafe{a.stderr}, "cully: %s\n", msg)
		return
	}
	if a.stderrIsTerminal() && a.getenv("NO_COLOR") == "" {
		fang.DefaultErrorHandler(w, styles, errors.New(msg))
		if isUsage(err) && !strings.HasPrefix(err.Error(), "unknown") {
			fmt.Fprintln(w, "  Try --help for usage.")
		}
		return
	}
	fmt.Fprintf(termSafe{a.stderr}, "cully: %s\n", msg)
	if isUsage(err) {
		cmd := a.cmd
		if cmd == "" {
			cmd = "cully"
		}
		fmt.Fprintf(a.stderr, "Run '%s --help' for usage.\n", cmd)
	}
}

// adapter finds an agent's adapter by its --agent name and checks that it
// can do what a command needs (T: hookbridge.Installer, Replayer, …); what
// says what that is, for the error.
func adapter[T hookbridge.Agent](name, what string) (T, error) {
	var zero T
	ag, err := agents.Lookup(name)
	if err != nil {
		return zero, fmt.Errorf("%w: %v", errUsage, err)
	}
	t, ok := ag.(T)
	if !ok {
		return zero, fmt.Errorf("%w: cully cannot %s %s yet", errUsage, what, ag.Title())
	}
	return t, nil
}

// env is the process environment every command resolves its settings from.
func (a *app) env() env.Env { return env.Env{Getenv: a.getenv} }

// home resolves the state directory.
func (a *app) home() (store.Home, error) {
	h, err := a.env().Home()
	if err != nil {
		return h, fail(codeStateDir, err, "%v", err)
	}
	if _, lerr := a.env().LockWait(); lerr != nil && !a.lockWarned {
		// Said once, and the command goes on with the wait it names.
		a.lockWarned = true
		fmt.Fprintf(termSafe{a.stderr}, "cully: %s\n", lerr)
		if h.Check() == nil { // a state dir that exists: a read creates none
			_ = h.LogError("config", lerr, nil)
		}
	}
	return h, nil
}

// now reads the clock (CULLY_NOW or the wall clock).
func (a *app) now() (time.Time, error) { return a.env().Now() }

// config is the rule configuration that applies here (see configDir).
func (a *app) config() engine.Config {
	cfg, _ := a.env().Config(a.configDir())
	return cfg
}

// minPrefix is the shortest start of a session id that --session takes
// for the whole id (the panel shows eight characters): shorter, and a
// typo would too easily name some other session.
const minPrefix = 4

// session finds the session a --session name names: a recorded
// session's id, or the start of exactly one (minPrefix characters or
// more). Which session a command acts on is sessionFor's choice.
func (a *app) session(h store.Home, named string) (string, error) {
	if err := checkHome(h); err != nil {
		return "", err
	}
	if _, err := os.Lstat(h.StatePath(named)); err == nil {
		return named, nil
	}
	ss, err := h.Sessions()
	if err != nil {
		return "", stateDirError(h, err)
	}
	var match []string
	if len(named) >= minPrefix {
		for _, s := range ss {
			if strings.HasPrefix(s.ID, named) {
				match = append(match, s.ID)
			}
		}
	}
	switch {
	case len(match) == 1:
		return match[0], nil
	case len(match) > 1:
		return "", fail(codeAmbiguous, nil, "session %q is ambiguous in %s: it starts %s; give more of the id", named, h.Dir, listIDs(match, false))
	}
	return "", unknownSession(h, named, ss)
}

// unknownSession says that --session names nothing, and which sessions
// there are.
func unknownSession(h store.Home, named string, ss []store.SessionInfo) error {
	if len(ss) == 0 {
		return fail(codeUnknownSession, nil, "no session %q in %s: none is recorded there yet; wire `cully hook` into your agent (see README) or try `cully demo`", named, h.Dir)
	}
	ids := make([]string, len(ss))
	for i, s := range ss {
		ids[i] = s.ID
	}
	return fail(codeUnknownSession, nil, "no session %q in %s; recorded there, most recent first: %s (`cully status` shows this folder's, `cully status --session ID` another)", named, h.Dir, listIDs(ids, true))
}

// listIDs names sessions by their short ids, at most five.
func listIDs(ids []string, short bool) string {
	const most = 5
	var out []string
	for i, id := range ids {
		if i == most {
			out = append(out, fmt.Sprintf("and %d more", len(ids)-most))
			break
		}
		if short {
			id = shortID(id)
		}
		out = append(out, strconv.Quote(id))
	}
	return strings.Join(out, ", ")
}

// errNoSession is the state dir with no session in it yet.
type errNoSession struct {
	dir   string
	wired []string // the settings files that wire cully's hook here
}

func (e errNoSession) Error() string {
	if len(e.wired) > 0 {
		return fmt.Sprintf("no session recorded in %s yet: cully's hook is installed (%s) and waiting for the agent's first tool call (an agent already running loads it when it restarts)", e.dir, strings.Join(e.wired, ", "))
	}
	return fmt.Sprintf("no session recorded in %s yet, and cully's hook is not installed: run `cully install` (docs/claude-code.md), or try `cully demo`", e.dir)
}

// noSession says why there is no session: the hook is not installed, or
// it is and no agent has called it yet.
func (a *app) noSession(h store.Home) errNoSession {
	e := errNoSession{dir: h.Dir}
	at := a.place()
	for _, ag := range agents.All() {
		if in, ok := ag.(hookbridge.Installer); ok {
			found, _ := wiring(in, at)
			for _, f := range found {
				e.wired = append(e.wired, in.Title()+": "+f.t.Settings)
			}
		}
	}
	return e
}

func shortID(id string) string {
	if len(id) > 8 && strings.Count(id, "-") >= 4 {
		return id[:8]
	}
	return id
}
