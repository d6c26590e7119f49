package claude

import (
	"errors"
	"fmt"
	"os/exec"
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

// Target: the user scope is settings.json in Claude Code's user folder; the
// project scope is .claude/settings.json at the project root. The skill
// sits in the same folder's skills/cully/.
func (Agent) Target(scope hookbridge.Scope, at hookbridge.Place) (hookbridge.Target, error) {
	var dir string
	switch scope {
	case hookbridge.ScopeUser, "":
		d, err := configDir(at.Getenv)
		if err != nil {
			return hookbridge.Target{}, err
		}
		dir, scope = d, hookbridge.ScopeUser
	case hookbridge.ScopeProject:
		if at.Project == "" {
			return hookbridge.Target{}, errors.New("no project directory")
		}
		dir = filepath.Join(at.Project, ".claude")
	default:
		return hookbridge.Target{}, fmt.Errorf("scope is user or project, not %q", scope)
	}
	return hookbridge.Target{Scope: scope, Settings: filepath.Join(dir, "settings.json"), Skill: filepath.Join(dir, "skills", "cully", "SKILL.md")}, nil
}

// Present: claude is on PATH.
func (Agent) Present(hookbridge.Place) bool {
	_, err := exec.LookPath("claude")
	return err == nil
}
