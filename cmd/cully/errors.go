package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"cully/runs"
	"cully/store"
)

// Error codes: what a failed `--json` command prints as error.code
// (docs/json.md), so that a script can tell one failure from another
// without parsing the message. A code keeps its meaning within a schema
// version; new ones may be added.
const (
	codeUsage          = "usage"             // a bad flag, argument or value (exit 2)
	codeNoSession      = "no_session"        // no session recorded in the state dir yet
	codeUnknownSession = "unknown_session"   // --session names no recorded session
	codeAmbiguous      = "ambiguous_session" // --session is the start of several
	codeNoSessionHere  = "no_session_here"   // a change, and no session works in the current folder
	codeConfirm        = "confirm_needed"    // --session names another repository's session: no terminal to ask, no --yes
	codeNotConfirmed   = "not_confirmed"     // the user did not confirm acting on another repository's session
	codeStateDir       = "state_dir"         // the state dir cannot be used
	codeState          = "state_unreadable"  // a session's state cannot be read
	codeJournal        = "journal_unreadable"
	codeLocked         = "locked"    // another process held a lock too long
	codeNotFound       = "not_found" // a file or folder named does not exist
	codeNothing        = "nothing_to_replay"
	codeNoTerminal     = "no_terminal"
	codeNoRun          = "no_run"          // the session has no run yet (run control)
	codeSnapshot       = "snapshot_failed" // a recovery snapshot could not be taken
	codeRollback       = "rollback_failed" // a rollback could not restore every path: nothing was changed, or it was put back
	codeNotPaused      = "not_paused"      // cully resume: the run is not paused
	codeFailed         = "failed"          // anything else
)

// userError is an error a user reads: one plain sentence that says what
// is wrong and what to do next, and its code for --json.
type userError struct {
	code string
	msg  string
	err  error // the cause, for errors.Is; may be nil
	// A failed rollback's paths, for --json: every file the run modified,
	// and what stood in the way.
	paths    []string
	problems []runs.Problem
	// The sessions a refused choice names, with where each works.
	sessions []sessionRef
}

func (e *userError) Error() string { return e.msg }
func (e *userError) Unwrap() error { return e.err }

// fail is a userError with a formatted message.
func fail(code string, cause error, format string, args ...any) error {
	return &userError{code: code, msg: fmt.Sprintf(format, args...), err: cause}
}

// errorCode is the code a failure prints under --json.
func errorCode(err error) string {
	var ue *userError
	switch {
	case isUsage(err):
		return codeUsage
	case errors.As(err, &ue):
		return ue.code
	case errors.Is(err, store.ErrLockTimeout):
		return codeLocked
	}
	return codeFailed
}

// plain rewords an error that reached the top without being put in plain
// words (a file system error in Go's wording: "lstat /x: no such file or
// directory") so that no user reads Go's error text. A userError, a usage
// error or an error already worded for people passes unchanged.
func plain(err error) string {
	var ue *userError
	if errors.As(err, &ue) || isUsage(err) {
		return strings.TrimPrefix(err.Error(), errUsage.Error()+": ")
	}
	if errors.Is(err, store.ErrLockTimeout) {
		return "cully's state is locked by another cully process that did not let go in time: try again; CULLY_LOCK_TIMEOUT sets how long to wait (default 2s)"
	}
	msg := err.Error()
	var pe *fs.PathError
	if errors.As(err, &pe) && !errors.Is(err, store.ErrUnsafe) {
		// Keep what was being done ("allow FILE: …"), reword the part in Go's words.
		return strings.Replace(msg, pe.Error(), pathProblem(pe.Path, pe.Err), 1)
	}
	return msg
}

// pathProblem says what is wrong with a path, in words.
func pathProblem(path string, err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return path + " does not exist"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied on " + path + ": it is not yours to read or write"
	case errors.Is(err, syscall.ENOTDIR):
		return path + " is not a directory (or a part of its path is a file)"
	case errors.Is(err, syscall.EISDIR):
		return path + " is a directory, not a file"
	}
	return "cannot use " + path + ": " + strings.TrimPrefix(err.Error(), path+": ")
}

// stateDirError puts a state dir that cannot be used in plain words, with
// what to do about it.
func stateDirError(h store.Home, err error) error {
	if errors.Is(err, store.ErrUnsafe) { // its message says why and how to fix it
		return fail(codeStateDir, err, "%v (`cully doctor` checks the state dir; CULLY_HOME picks another)", err)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fail(codeStateDir, err, "cannot use the state dir: %s; point CULLY_HOME at a directory of your own (`cully doctor` checks it)", pathProblem(pe.Path, pe.Err))
	}
	return fail(codeStateDir, err, "cannot use the state dir %s: %v", h.Dir, err)
}

// checkHome runs the state dir's checks before a command reads it. A state
// dir that does not exist yet passes: there is nothing in it, which the
// command says in its own words.
func checkHome(h store.Home) error {
	if err := h.Check(); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return stateDirError(h, err)
	}
	return nil
}

// flagError puts pflag's complaint about a flag's value in plain words:
// `invalid argument "abc" for "--width" flag: strconv.ParseInt: parsing
// "abc": invalid syntax` becomes `--width takes a whole number, not "abc"`.
func flagError(c *cobra.Command, err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		name = strings.Trim(name, "'")
		if strings.HasPrefix(name, "-") {
			return fmt.Errorf("%w: %s needs a value", errUsage, name)
		}
		return fmt.Errorf("%w: %s", errUsage, msg)
	}
	rest, ok := strings.CutPrefix(msg, "invalid argument ")
	if !ok {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	q, err2 := strconv.QuotedPrefix(rest)
	if err2 != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	value, _ := strconv.Unquote(q)
	rest, ok = strings.CutPrefix(rest[len(q):], " for ")
	if !ok {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	fq, err2 := strconv.QuotedPrefix(rest)
	if err2 != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	flag, _ := strconv.Unquote(fq)
	if i := strings.LastIndex(flag, ", "); i >= 0 { // "-w, --width"
		flag = flag[i+2:]
	}
	want := "another value"
	if f := c.Flags().Lookup(strings.TrimLeft(flag, "-")); f != nil {
		want = flagKind(f)
	}
	return fmt.Errorf("%w: %s takes %s, not %q", errUsage, flag, want, value)
}

// flagKind says what a flag's value must be.
func flagKind(f *pflag.Flag) string {
	switch f.Value.Type() {
	case "int", "int64", "uint", "uint64":
		return "a whole number"
	case "float64", "float32":
		return "a number"
	case "bool":
		return "no value (or true or false)"
	case "duration":
		return "a duration such as 2s or 1m"
	}
	return "a " + f.Value.Type()
}

// jsonError is what a failed --json command prints on stdout.
type jsonError struct {
	Schema int `json:"schema_version"`
	Error  struct {
		Code     string         `json:"code"`
		Message  string         `json:"message"`
		Paths    []string       `json:"paths,omitempty"`
		Problems []runs.Problem `json:"problems,omitempty"`
		Sessions []sessionRef   `json:"sessions,omitempty"`
	} `json:"error"`
}

// printJSONError writes a failure as one JSON object on stdout.
func (a *app) printJSONError(err error) {
	var e jsonError
	e.Schema = jsonSchema
	e.Error.Code, e.Error.Message = errorCode(err), plain(err)
	var ue *userError
	if errors.As(err, &ue) {
		e.Error.Paths, e.Error.Problems, e.Error.Sessions = ue.paths, ue.problems, ue.sessions
	}
	enc := json.NewEncoder(jsonSafe{a.stdout})
	enc.SetIndent("", "  ")
	_ = enc.Encode(e)
}

// wantsJSON reports whether a command line asks for --json output of a
// command that has it: a failure is then printed as a JSON object too,
// even one found before the flags were parsed.
func wantsJSON(root *cobra.Command, args []string) bool {
	c, _, err := root.Find(args)
	if err != nil || c.Flags().Lookup("json") == nil {
		return false
	}
	on := false
	for _, x := range args {
		if x == "--" {
			break
		}
		if x == "--json" {
			on = true
		} else if v, ok := strings.CutPrefix(x, "--json="); ok {
			b, err := strconv.ParseBool(v)
			on = err != nil || b // a bad value still asks for JSON: its error is printed as JSON
		}
	}
	return on
}

// stderrIsTerminal reports whether stderr is a terminal (Fang's styled
// errors are for one).
func (a *app) stderrIsTerminal() bool {
	f, ok := a.stderr.(*os.File)
	return ok && isTerminal(f)
}
