package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"cully/runs"
	"cully/store"
)

// Which session a command acts on (docs/run-control.md, "Which session"):
// by default the most recent session whose project root holds the folder
// the command runs in, so that a rollback typed in one repository never
// touches another; another repository's session only when --session names
// it, and once the user confirms (a terminal asks; --yes in scripts).

// access is what a command does to the session it picks.
type access int

const (
	// reads: status, snapshots, a dry run. With no session of this folder
	// they show the most recent one, and say whose it is.
	reads access = iota
	// changes: rollback, stop, resume, ack, snapshot, advise. With no
	// session of this folder they refuse.
	changes
)

// which is how a command line names its session: --session, and --yes to
// act on another repository's session without being asked.
type which struct {
	session string
	yes     bool
}

// Which session a command acts on, as its help says it.
const (
	whichReads = `The session is the most recent one working in this folder (its repository: the run's
work tree, else git's top level of the agent's folder); with none here, the most recent
of all, and the output says whose it is. --session names another.`
	whichChanges = `The session is the most recent one working in this folder (its repository: the run's
work tree, else git's top level of the agent's folder), so that a command typed in one
repository never acts on another's; with none here it refuses and lists the recent
sessions. --session names another repository's session: a terminal asks you to confirm,
--yes does not ask (scripts), and without either it refuses.`
)

// sessionFlags declares --session, and --yes for a command that changes
// files or run state.
func sessionFlags(c *cobra.Command, w *which, acc access) {
	c.Flags().StringVar(&w.session, "session", "", "session id, or its first characters (default: the most recent one working in this folder)")
	if acc == changes {
		c.Flags().BoolVar(&w.yes, "yes", false, "act on the --session of another repository without asking")
	}
}

// picked is the session a command acts on, and where it works.
type picked struct {
	id    string
	root  string // its project root (runs.Root); "" when unknown
	here  string // the folder the command runs in, symlinks resolved
	named bool   // --session named it
	mine  bool   // its root holds the folder the command runs in
}

// elsewhere is the note a reading command prints when, no session
// working in this folder, it shows the most recent one: "" otherwise.
func (p picked) elsewhere() string {
	if p.mine || p.named {
		return ""
	}
	return fmt.Sprintf("no session works in this folder (%s); this is the most recent one, which works in %s (type the command there, or pass --session ID)", orUnknownFolder(p.here), rootName(p.root))
}

// rootName names a project root in a sentence.
func rootName(root string) string {
	if root == "" {
		return "an unknown folder (the agent gave none)"
	}
	return root
}

// folder is the folder the command runs in, symlinks resolved ("" when it
// cannot be read: then no session is this folder's).
func (a *app) folder() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	return runs.Resolve(wd)
}

// sessionFor picks the session a command acts on: the one w names, or the
// most recent one working in this folder. A reading command with no
// session here gets the most recent one (p.elsewhere says so); a changing
// one is refused, with the recent sessions and where each works. A named
// session of another repository needs the user's yes before a change.
func (a *app) sessionFor(h store.Home, w which, acc access) (picked, error) {
	p := picked{here: a.folder()}
	if w.session != "" {
		id, err := a.session(h, w.session)
		if err != nil {
			return p, err
		}
		p.id, p.named = id, true
		if st, err := h.ReadState(id, nil); err == nil {
			run := ""
			if st.Run != nil {
				run = st.Run.ID
			}
			p.root = runs.Root(h, run, st.Cwd)
		}
		p.mine = runs.Within(p.root, p.here)
		if acc == changes && !p.mine && !w.yes {
			return p, a.confirmElsewhere(p)
		}
		return p, nil
	}
	if err := checkHome(h); err != nil {
		return p, err
	}
	ss, err := h.Sessions()
	if err != nil {
		return p, stateDirError(h, err)
	}
	if len(ss) == 0 {
		none := a.noSession(h)
		return p, fail(codeNoSession, none, "%s", none.Error())
	}
	roots := make([]string, len(ss))
	for i, s := range ss {
		roots[i] = runs.Root(h, s.Run, s.Cwd)
		if runs.Within(roots[i], p.here) {
			p.id, p.root, p.mine = s.ID, roots[i], true
			return p, nil
		}
	}
	if acc == reads {
		p.id, p.root = ss[0].ID, roots[0]
		return p, nil
	}
	return p, a.noSessionHere(p.here, ss, roots)
}

// mostListed is how many sessions an error lists, most recent first.
const mostListed = 5

// noSessionHere refuses a change with no session of this folder: it
// lists the most recent sessions and where each works.
func (a *app) noSessionHere(here string, ss []store.SessionInfo, roots []string) error {
	now, _ := a.now()
	var b strings.Builder
	fmt.Fprintf(&b, "no session works in this folder (%s), and %s acts only on a session of the repository it runs in, so that it never changes another repository's files. The most recent sessions:", orUnknownFolder(here), a.cmd)
	var refs []sessionRef
	for i, s := range ss {
		if i == mostListed {
			fmt.Fprintf(&b, "\n  and %d more", len(ss)-mostListed)
			break
		}
		fmt.Fprintf(&b, "\n  %-8s  %s  (active %s)", shortID(s.ID), rootName(roots[i]), since(now, s.LastSeen))
		ref := sessionRef{ID: s.ID, LastActivity: s.LastSeen.UTC()}
		if roots[i] != "" {
			ref.Root = &roots[i]
		}
		refs = append(refs, ref)
	}
	b.WriteString("\nType the command in the repository of the session you mean, or name it with --session ID (from another folder you are asked to confirm; --yes in scripts).")
	return &userError{code: codeNoSessionHere, msg: b.String(), sessions: refs}
}

// confirmElsewhere asks, on a terminal, before a change to a session of
// another repository; without a terminal it refuses and says to add --yes.
func (a *app) confirmElsewhere(p picked) error {
	where := rootName(p.root)
	if !isTerminal(a.stdin) || !isTerminal(a.stderr) {
		return &userError{code: codeConfirm, sessions: []sessionRef{p.ref()},
			msg: fmt.Sprintf("session %s works in %s, not in this folder (%s): add --yes to run %s on it from here, or run it in that session's repository", shortID(p.id), where, orUnknownFolder(p.here), a.cmd)}
	}
	fmt.Fprintf(a.stderr, "Session %s works in %s, not in this folder (%s).\nRun %s on that repository's session? [y/N] ", shortID(p.id), where, orUnknownFolder(p.here), a.cmd)
	ans, _ := bufio.NewReader(a.stdin).ReadString('\n')
	if ans := strings.ToLower(strings.TrimSpace(ans)); ans == "y" || ans == "yes" {
		return nil
	}
	return &userError{code: codeNotConfirmed, sessions: []sessionRef{p.ref()},
		msg: fmt.Sprintf("not confirmed: %s did nothing to session %s (of %s)", a.cmd, shortID(p.id), where)}
}

// orUnknownFolder names the folder the command runs in.
func orUnknownFolder(here string) string {
	if here == "" {
		return "unknown: it cannot be read"
	}
	return here
}

// sessionRef is a session an error names, for --json.
type sessionRef struct {
	ID           string    `json:"id"`
	Root         *string   `json:"project_root"` // null: unknown
	LastActivity time.Time `json:"last_activity,omitzero"`
}

// ref is p as an error names it.
func (p picked) ref() sessionRef {
	r := sessionRef{ID: p.id}
	if p.root != "" {
		root := p.root
		r.Root = &root
	}
	return r
}
