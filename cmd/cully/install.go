package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"cully/hookbridge"
	"cully/install"
	"cully/skill"
)

// place is where installers look: the environment and, for the project
// scope, the working directory.
func (a *app) place() hookbridge.Place {
	wd, _ := os.Getwd()
	return hookbridge.Place{Getenv: a.getenv, Project: wd}
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

// hookCommand is the command line written into the agent's settings: the
// lean cully-hook beside this binary or on PATH, else `cully hook`.
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

func shellQuote(p string) string {
	if strings.ContainsAny(p, " \t'\"$`\\!*?[]{}()<>|&;#~") {
		return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
	}
	return p
}

type installOpts struct {
	agent      string
	scope      string
	dryRun     bool
	statusline bool   // install only
	command    string // install only
}

func (a *app) installCmd(verb string, o installOpts) error {
	dry, statusline, command := &o.dryRun, &o.statusline, &o.command
	in, err := adapter[hookbridge.Installer](o.agent, "install itself into")
	if err != nil {
		return err
	}
	scope := hookbridge.Scope(o.scope)
	if scope != hookbridge.ScopeUser && scope != hookbridge.ScopeProject {
		return fmt.Errorf("%w: --scope is user or project, not %q", errUsage, o.scope)
	}
	t, err := in.Target(scope, a.place())
	if err != nil {
		return err
	}
	before, err := os.ReadFile(t.Settings)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("read %s: %w", t.Settings, err)
	}
	if errors.Is(err, os.ErrNotExist) {
		before = nil
	}
	var plan *install.Plan
	var sk install.SkillAction
	if verb == "install" {
		hookCmd, note, err := hookCommand()
		if *command != "" {
			hookCmd, note, err = *command, "", nil
		}
		if err != nil {
			return err
		}
		if note != "" {
			fmt.Fprintln(a.stderr, "note:", note)
		}
		statusCmd := ""
		if *statusline {
			self, err := selfPath()
			if err != nil {
				return err
			}
			statusCmd = shellQuote(self) + " statusline"
		}
		if plan, err = in.Install(t, before, hookbridge.InstallOptions{HookCommand: hookCmd, StatusLineCommand: statusCmd}); err != nil {
			return err
		}
		sk = install.PlanSkillInstall(t.Skill, skill.SKILL)
	} else {
		if plan, err = in.Uninstall(t, before); err != nil {
			return err
		}
		sk = install.PlanSkillRemove(t.Skill, skill.SKILL)
	}
	for _, n := range plan.Notes {
		fmt.Fprintln(a.stdout, "note:", n)
	}
	if *dry {
		if plan.Changed {
			fmt.Fprint(a.stdout, install.Diff(t.Settings, plan.Before, plan.After))
		} else {
			fmt.Fprintf(a.stdout, "%s: no change\n", t.Settings)
		}
		fmt.Fprintf(a.stdout, "skill %s: %s\n(dry run: nothing written)\n", t.Skill, skillVerb(sk.Action))
		return nil
	}
	stamp := time.Now().UTC().Format("20060102T150405.000000000")
	if err := install.Apply(plan, stamp); err != nil {
		return err
	}
	if plan.Changed {
		fmt.Fprintf(a.stdout, "%s: updated", t.Settings)
		if plan.Before != nil {
			fmt.Fprintf(a.stdout, " (previous file kept as %s)", filepath.Base(t.Settings)+".cully-backup-"+stamp)
		}
		fmt.Fprintln(a.stdout)
	} else {
		fmt.Fprintf(a.stdout, "%s: no change (already %sed)\n", t.Settings, verb)
	}
	if err := install.ApplySkill(sk, skill.SKILL); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "skill %s: %s\n", t.Skill, skillVerb(sk.Action))
	return nil
}

func skillVerb(action string) string {
	switch action {
	case "write":
		return "written"
	case "keep":
		return "already current"
	case "remove":
		return "removed"
	case "left":
		return "left in place (it was edited after cully wrote it)"
	}
	return "not present"
}
