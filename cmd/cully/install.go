package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"cully/hookbridge"
	"cully/hookbridge/agents"
	"cully/install"
	"cully/installrun"
)

// place is where installers look: the environment and the project root of
// the current directory (see projectRoot).
func (a *app) place() hookbridge.Place {
	wd, _ := os.Getwd()
	root, _ := install.ProjectRoot(wd)
	return hookbridge.Place{Getenv: a.getenv, Project: root}
}

// selfPath is this binary's path, or an error when it is a `go run` build
// that will vanish.
func selfPath() (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	if r, err := filepath.EvalSymlinks(self); err == nil {
		self = r
	}
	if strings.Contains(self, string(filepath.Separator)+"go-build") {
		return "", errors.New("cully is running from `go run`, whose binary is deleted on exit: install it first (CGO_ENABLED=0 go install ./cmd/cully ./cmd/cully-hook) and run the installed cully")
	}
	return self, nil
}

// hookCommand is the command line written into this machine's settings:
// the lean cully-hook beside this binary or on PATH, else `cully hook`,
// by absolute path (whatever PATH the agent starts with).
func hookCommand() (string, string, error) {
	self, err := selfPath()
	if err != nil {
		return "", "", err
	}
	if p := filepath.Join(filepath.Dir(self), "cully-hook"); install.IsExecutable(p) {
		return shellQuote(p), "", nil
	}
	if p, err := exec.LookPath("cully-hook"); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return shellQuote(abs), "", nil
		}
	}
	return shellQuote(self) + " hook", "cully-hook was not found beside cully or on PATH; using `cully hook`, which starts slower (CGO_ENABLED=0 go install ./cmd/cully-hook)", nil
}

// errSharedNeedsPath is why --shared cannot pick a command.
var errSharedNeedsPath = errors.New("--shared writes the settings your team commits, so its commands name no path of this machine: put cully-hook on PATH first (CGO_ENABLED=0 go install ./cmd/cully ./cmd/cully-hook), or install for this machine only (--scope project without --shared)")

// sharedHookCommand is the command line for settings a team commits: a
// program on PATH, by name only, the same on every machine that has cully.
func sharedHookCommand() (string, string, error) {
	if _, err := exec.LookPath("cully-hook"); err == nil {
		return "cully-hook", "", nil
	}
	if _, err := exec.LookPath("cully"); err == nil {
		return "cully hook", "cully-hook is not on PATH; using `cully hook`, which starts slower", nil
	}
	return "", "", errSharedNeedsPath
}

func shellQuote(p string) string {
	if strings.ContainsAny(p, " \t'\"$`\\!*?[]{}()<>|&;#~") {
		return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
	}
	return p
}

type installOpts struct {
	agent      string
	scope      string
	shared     bool
	dryRun     bool
	statusline bool   // install only
	command    string // install only
}

// targetScope is the scope the flags pick.
func (o installOpts) targetScope() (hookbridge.Scope, error) {
	switch {
	case o.scope != string(hookbridge.ScopeUser) && o.scope != string(hookbridge.ScopeProject):
		return "", fmt.Errorf("%w: --scope is user or project, not %q", errUsage, o.scope)
	case o.shared && o.scope != string(hookbridge.ScopeProject):
		return "", fmt.Errorf("%w: --shared goes with --scope project", errUsage)
	case o.shared:
		return hookbridge.ScopeShared, nil
	}
	return hookbridge.Scope(o.scope), nil
}

// commands are the hook and status-line commands an install writes, and a
// note about the hook's (for stderr).
func (o installOpts) commands(scope hookbridge.Scope) (hook, status, note string, err error) {
	shared := scope == hookbridge.ScopeShared
	switch {
	case o.command != "" && shared && !install.PathFree(o.command):
		return "", "", "", fmt.Errorf("%w: --shared writes the settings your team commits: --command %q names a path of this machine; give a command on PATH (such as cully-hook)", errUsage, o.command)
	case o.command != "":
		hook = o.command
	case shared:
		hook, note, err = sharedHookCommand()
	default:
		hook, note, err = hookCommand()
	}
	if err != nil || !o.statusline {
		return hook, "", note, err
	}
	if shared {
		if _, err := exec.LookPath("cully"); err != nil {
			return "", "", "", errSharedNeedsPath
		}
		return hook, "cully statusline", note, nil
	}
	self, err := selfPath()
	if err != nil {
		return "", "", "", err
	}
	return hook, shellQuote(self) + " statusline", note, nil
}

// allAgents is the --agent value that installs for every agent found here
// (and uninstalls from every one).
const allAgents = "all"

func (a *app) installCmd(verb string, o installOpts) error {
	if o.agent == allAgents {
		return a.installAll(verb, o)
	}
	in, err := adapter[hookbridge.Installer](o.agent, "install itself into")
	if err != nil {
		return err
	}
	return a.installOne(verb, o, in)
}

// installAll runs install (or uninstall) for every registered agent that
// installs itself, under a line naming each: install for those found on
// this machine (the others are named and skipped), uninstall for all of
// them, so that nothing cully wrote is left behind. One agent's failure
// does not stop the others; each is reported.
func (a *app) installAll(verb string, o installOpts) error {
	if _, err := o.targetScope(); err != nil {
		return err
	}
	w := termSafe{a.stdout}
	var failed []error
	ran := 0
	for _, ag := range agents.All() {
		in, ok := ag.(hookbridge.Installer)
		if !ok {
			continue
		}
		fmt.Fprintf(w, "%s:\n", in.Title())
		if verb == "install" && !in.Present(a.place()) {
			fmt.Fprintf(w, "not found on this machine: skipped (cully install --agent %s installs for it anyway)\n", in.Name())
			continue
		}
		ran++
		if err := a.installOne(verb, o, in); err != nil {
			fmt.Fprintf(w, "failed: %v\n", err)
			failed = append(failed, fmt.Errorf("%s: %w", in.Title(), err))
		}
	}
	switch {
	case len(failed) > 0:
		return errors.Join(failed...)
	case ran == 0:
		return fmt.Errorf("%w: no agent that cully watches (%s) was found on this machine; name one with --agent to install for it anyway", errUsage, watched())
	}
	return nil
}

// installOne is install (or uninstall) for one agent.
func (a *app) installOne(verb string, o installOpts, in hookbridge.Installer) error {
	scope, err := o.targetScope()
	if err != nil {
		return err
	}
	r, err := installrun.New(in, scope, a.getenv, o.dryRun, termSafe{a.stdout}, a.stderr)
	if err != nil {
		return err
	}
	h, err := a.home()
	if err != nil {
		return fmt.Errorf("%s keeps its backups and its record in the state dir: %w", verb, err)
	}
	if !o.dryRun {
		if err := h.Ensure(); err != nil {
			return fmt.Errorf("%s keeps its backups and its record in the state dir: %w", verb, err)
		}
	}
	if err := r.InStateDir(h.Dir); err != nil {
		return err
	}
	if verb == "install" {
		err = r.PlanInstall(o.commands)
	} else {
		err = r.PlanUninstall()
	}
	if err != nil {
		return err
	}
	return r.Execute()
}
