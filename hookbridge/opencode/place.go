package opencode

import (
	"errors"
	"fmt"
	"path/filepath"

	"cully/hookbridge"
)

// configDir is opencode's user folder: $XDG_CONFIG_HOME/opencode, else
// ~/.config/opencode.
func configDir(getenv func(string) string) (string, error) {
	if d := getenv("XDG_CONFIG_HOME"); d != "" {
		return filepath.Join(d, "opencode"), nil
	}
	home := getenv("HOME")
	if home == "" {
		return "", errors.New("HOME is not set")
	}
	return filepath.Join(home, ".config", "opencode"), nil
}

// Target: opencode loads every plugins/*.js of its user folder and of a
// project's .opencode folder, and skills from their skills/ folders. The
// user scope's plugin is cully.js in the user folder; the shared scope's
// is .opencode/plugins/cully.js, which a team commits (no path of this
// machine in it); this machine's own in a project is
// .opencode/plugins/cully-local.js, which git is told to ignore.
func (Agent) Target(scope hookbridge.Scope, at hookbridge.Place) (hookbridge.Target, error) {
	switch scope {
	case hookbridge.ScopeUser, "":
		d, err := configDir(at.Getenv)
		if err != nil {
			return hookbridge.Target{}, err
		}
		return hookbridge.Target{Scope: hookbridge.ScopeUser, Settings: filepath.Join(d, "plugins", "cully.js"),
			Skill: filepath.Join(d, "skills", "cully", "SKILL.md")}, nil
	case hookbridge.ScopeProject, hookbridge.ScopeShared:
		if at.Project == "" {
			return hookbridge.Target{}, errors.New("no project directory")
		}
		dir := filepath.Join(at.Project, ".opencode")
		t := hookbridge.Target{Scope: scope, Settings: filepath.Join(dir, "plugins", "cully.js"), Skill: filepath.Join(dir, "skills", "cully", "SKILL.md")}
		if scope == hookbridge.ScopeProject {
			t.Settings = filepath.Join(dir, "plugins", "cully-local.js")
			t.Ignore = "/.opencode/plugins/cully-local.js"
		}
		return t, nil
	}
	return hookbridge.Target{}, fmt.Errorf("scope is user, project or shared, not %q", scope)
}

// Present: opencode is on PATH, or its user folder exists.
func (Agent) Present(at hookbridge.Place) bool {
	d, _ := configDir(at.Getenv)
	return hookbridge.Found(d, "opencode")
}
