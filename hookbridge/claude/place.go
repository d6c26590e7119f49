package claude

import (
	"errors"
	"fmt"
	"path/filepath"

	"cully/hookbridge"
)

// configDir is Claude Code's user folder: $CLAUDE_CONFIG_DIR, else ~/.claude.
func configDir(getenv func(string) string) (string, error) {
	if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return d, nil
	}
	home := getenv("HOME")
	if home == "" {
		return "", errors.New("HOME is not set")
	}
	return filepath.Join(home, ".claude"), nil
}

// Target: the user scope is settings.json in Claude Code's user folder.
// The project scope is .claude/settings.local.json at the project root,
// which Claude Code reads as this machine's own settings for the project
// and which teams do not commit; the shared scope is .claude/settings.json
// there, which they do. The skill sits in the same folder's skills/cully/.
func (Agent) Target(scope hookbridge.Scope, at hookbridge.Place) (hookbridge.Target, error) {
	var dir string
	switch scope {
	case hookbridge.ScopeUser, "":
		d, err := configDir(at.Getenv)
		if err != nil {
			return hookbridge.Target{}, err
		}
		dir, scope = d, hookbridge.ScopeUser
	case hookbridge.ScopeProject, hookbridge.ScopeShared:
		if at.Project == "" {
			return hookbridge.Target{}, errors.New("no project directory")
		}
		dir = filepath.Join(at.Project, ".claude")
	default:
		return hookbridge.Target{}, fmt.Errorf("scope is user, project or shared, not %q", scope)
	}
	t := hookbridge.Target{Scope: scope, Settings: filepath.Join(dir, "settings.json"), Skill: filepath.Join(dir, "skills", "cully", "SKILL.md")}
	if scope == hookbridge.ScopeProject {
		t.Settings = filepath.Join(dir, "settings.local.json")
		t.Ignore = "/.claude/settings.local.json"
	}
	return t, nil
}

// Present: claude is on PATH, or its user folder exists.
func (Agent) Present(at hookbridge.Place) bool {
	d, _ := configDir(at.Getenv)
	return hookbridge.Found(d, "claude")
}
