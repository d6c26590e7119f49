package cursor

import (
	"errors"
	"fmt"
	"path/filepath"

	"cully/hookbridge"
)

// Target: the user scope is ~/.cursor/hooks.json. A repository has one
// hooks file, .cursor/hooks.json, which Cursor runs in a trusted workspace
// and teams commit: the project scope writes it for this machine and asks
// git to ignore it, the shared scope writes it for everyone, with commands
// found on PATH. The skill goes to the matching skills folder.
func (Agent) Target(scope hookbridge.Scope, at hookbridge.Place) (hookbridge.Target, error) {
	var dir string
	switch scope {
	case hookbridge.ScopeUser, "":
		home := at.Getenv("HOME")
		if home == "" {
			return hookbridge.Target{}, errors.New("HOME is not set")
		}
		dir, scope = filepath.Join(home, ".cursor"), hookbridge.ScopeUser
	case hookbridge.ScopeProject, hookbridge.ScopeShared:
		if at.Project == "" {
			return hookbridge.Target{}, errors.New("no project directory")
		}
		dir = filepath.Join(at.Project, ".cursor")
	default:
		return hookbridge.Target{}, fmt.Errorf("scope is user, project or shared, not %q", scope)
	}
	t := hookbridge.Target{Scope: scope, Settings: filepath.Join(dir, "hooks.json"), Skill: filepath.Join(dir, "skills", "cully", "SKILL.md")}
	if scope == hookbridge.ScopeProject {
		t.Ignore = "/.cursor/hooks.json"
	}
	return t, nil
}

// Present: cursor-agent or cursor is on PATH, or ~/.cursor exists.
func (Agent) Present(at hookbridge.Place) bool {
	d := ""
	if home := at.Getenv("HOME"); home != "" {
		d = filepath.Join(home, ".cursor")
	}
	return hookbridge.Found(d, "cursor-agent", "cursor")
}
