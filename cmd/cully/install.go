package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"cully/install"
	"cully/skill"
)

// claudeTarget is where cully goes for one scope.
type claudeTarget struct {
	settings string
	skill    string
}

func (a *app) claudeTarget(scope string) (claudeTarget, error) {
	switch scope {
	case "user", "":
		dir := a.getenv("CLAUDE_CONFIG_DIR")
		if dir == "" {
			home := a.getenv("HOME")
			if home == "" {
				return claudeTarget{}, errors.New("HOME is not set")
			}
			dir = filepath.Join(home, ".claude")
		}
		return claudeTarget{filepath.Join(dir, "settings.json"), filepath.Join(dir, "skills", "cully", "SKILL.md")}, nil
	case "project":
		wd, err := os.Getwd()
		if err != nil {
			return claudeTarget{}, err
		}
		return claudeTarget{filepath.Join(wd, ".claude", "settings.json"), filepath.Join(wd, ".claude", "skills", "cully", "SKILL.md")}, nil
	}
	return claudeTarget{}, fmt.Errorf("%w: --scope is user or project, not %q", errUsage, scope)
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
		return "", errors.New("cully is running from `go run`, whose binary is deleted on exit: install it first (go install ./cmd/cully ./cmd/cully-hook) and run the installed cully")
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
	if p := filepath.Join(filepath.Dir(self), "cully-hook"); isExecutable(p) {
		return shellQuote(p), "", nil
	}
	if p, err := exec.LookPath("cully-hook"); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return shellQuote(abs), "", nil
		}
	}
	return shellQuote(self) + " hook", "cully-hook was not found beside cully or on PATH; using `cully hook`, which starts slower (go install ./cmd/cully-hook)", nil
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

func shellQuote(p string) string {
	if strings.ContainsAny(p, " \t'\"$`\\!*?[]{}()<>|&;#~") {
		return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
	}
	return p
}

func cmdInstall(a *app, args []string) error   { return a.installCmd("install", args) }
func cmdUninstall(a *app, args []string) error { return a.installCmd("uninstall", args) }

func (a *app) installCmd(verb string, args []string) error {
	fs := a.flags(verb)
	agent := fs.String("agent", "claude", "the agent: claude (codex, gemini and cursor are not supported yet)")
	scope := fs.String("scope", "user", "user (~/.claude) or project (./.claude)")
	dry := fs.Bool("dry-run", false, "print what would change, write nothing")
	statusline := new(bool)
	command := new(string)
	if verb == "install" {
		statusline = fs.Bool("statusline", false, "also install cully's status line, unless one is already set")
		command = fs.String("command", "", "hook command to write (default: cully-hook beside this binary)")
	}
	if err := parse(fs, args); err != nil {
		return err
	}
	if *agent != "claude" {
		return fmt.Errorf("%w: agent %q is not supported yet (supported: claude)", errUsage, *agent)
	}
	t, err := a.claudeTarget(*scope)
	if err != nil {
		return err
	}
	before, err := os.ReadFile(t.settings)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("read %s: %w", t.settings, err)
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
		if plan, err = install.ClaudeInstall(t.settings, before, hookCmd, statusCmd); err != nil {
			return err
		}
		sk = install.PlanSkillInstall(t.skill, skill.SKILL)
	} else {
		if plan, err = install.ClaudeUninstall(t.settings, before); err != nil {
			return err
		}
		sk = install.PlanSkillRemove(t.skill, skill.SKILL)
	}
	for _, n := range plan.Notes {
		fmt.Fprintln(a.stdout, "note:", n)
	}
	if *dry {
		if plan.Changed {
			fmt.Fprint(a.stdout, install.Diff(t.settings, plan.Before, plan.After))
		} else {
			fmt.Fprintf(a.stdout, "%s: no change\n", t.settings)
		}
		fmt.Fprintf(a.stdout, "skill %s: %s\n(dry run: nothing written)\n", t.skill, skillVerb(sk.Action))
		return nil
	}
	stamp := time.Now().UTC().Format("20060102T150405.000000000")
	if err := install.Apply(plan, stamp); err != nil {
		return err
	}
	if plan.Changed {
		fmt.Fprintf(a.stdout, "%s: updated", t.settings)
		if plan.Before != nil {
			fmt.Fprintf(a.stdout, " (previous file kept as %s)", filepath.Base(t.settings)+".cully-backup-"+stamp)
		}
		fmt.Fprintln(a.stdout)
	} else {
		fmt.Fprintf(a.stdout, "%s: no change (already %sed)\n", t.settings, verb)
	}
	if err := install.ApplySkill(sk, skill.SKILL); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "skill %s: %s\n", t.skill, skillVerb(sk.Action))
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
