package copilot

import (
	"errors"
	"fmt"
	"path/filepath"

	"cully/hookbridge"
)

// configDir is Copilot CLI's user folder: $COPILOT_HOME, else ~/.copilot.
func configDir(getenv func(string) string) (string, error) {
	if d := getenv("COPILOT_HOME"); d != "" {
		return d, nil
	}
	home := getenv("HOME")
	if home == "" {
		return "", errors.New("HOME is not set")
	}
	return filepath.Join(home, ".copilot"), nil
}

// Target: the user scope is cully's own file in Copilot CLI's user hooks
// folder (every *.json there is loaded). The project scope is the
// repository's .github/copilot/settings.local.json, whose inline "hooks"
// Copilot CLI reads as this machine's own settings (teams do not commit
// it; install asks git to ignore it); the shared scope is cully's own file
// in .github/hooks/, which teams commit. The skill goes to the user's
// skills folder, or the repository's .github/skills/ (both read by Copilot
// CLI, measured).
func (Agent) Target(scope hookbridge.Scope, at hookbridge.Place) (hookbridge.Target, error) {
	switch scope {
	case hookbridge.ScopeUser, "":
		dir, err := configDir(at.Getenv)
		if err != nil {
			return hookbridge.Target{}, err
		}
		return hookbridge.Target{Scope: hookbridge.ScopeUser, Settings: filepath.Join(dir, "hooks", "cully.json"),
			Skill: filepath.Join(dir, "skills", "cully", "SKILL.md")}, nil
	case hookbridge.ScopeProject, hookbridge.ScopeShared:
		if at.Project == "" {
			return hookbridge.Target{}, errors.New("no project directory")
		}
		t := hookbridge.Target{Scope: scope, Settings: filepath.Join(at.Project, ".github", "hooks", "cully.json"),
			Skill: filepath.Join(at.Project, ".github", "skills", "cully", "SKILL.md")}
		if scope == hookbridge.ScopeProject {
			t.Settings = filepath.Join(at.Project, ".github", "copilot", "settings.local.json")
			t.Ignore = "/.github/copilot/settings.local.json"
		}
		return t, nil
	}
	return hookbridge.Target{}, fmt.Errorf("scope is user, project or shared, not %q", scope)
}

// hooksFile reports whether a target is a hook configuration file of its
// own ({"version": 1, "hooks": …}) rather than a settings file holding
// inline hooks.
func hooksFile(t hookbridge.Target) bool { return t.Scope != hookbridge.ScopeProject }

// projectRoot is the repository a project-scope target lies in.
func projectRoot(t hookbridge.Target) string {
	return filepath.Dir(filepath.Dir(filepath.Dir(t.Settings)))
}

// Present: copilot is on PATH, or its user folder exists.
func (Agent) Present(at hookbridge.Place) bool {
	d, _ := configDir(at.Getenv)
	return hookbridge.Found(d, "copilot")
}
