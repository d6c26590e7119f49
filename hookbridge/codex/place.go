package codex

import (
	"errors"
	"fmt"
	"path/filepath"

	"cully/hookbridge"
)

// home is Codex's home folder: $CODEX_HOME, else ~/.codex.
func home(getenv func(string) string) (string, error) {
	if d := getenv("CODEX_HOME"); d != "" {
		return d, nil
	}
	h := getenv("HOME")
	if h == "" {
		return "", errors.New("HOME is not set")
	}
	return filepath.Join(h, ".codex"), nil
}

// errShared: Codex reads one hooks file per project.
const errShared = decodeError("Codex reads one hooks file per project (.codex/hooks.json), which cully wires for this machine only: use --scope project without --shared (each teammate runs cully install there, since Codex asks each user to trust the hooks anyway)")

// Target: the user scope is hooks.json in Codex's home; the project scope
// is .codex/hooks.json at the project root, which install asks git to
// ignore (it names this machine's cully). Codex has no file a team commits
// apart from that one, so there is no shared scope. The skill goes where
// Codex reads skills besides its own home: ~/.agents/skills for the user,
// the project's .agents/skills for a project.
func (Agent) Target(scope hookbridge.Scope, at hookbridge.Place) (hookbridge.Target, error) {
	switch scope {
	case hookbridge.ScopeUser, "":
		d, err := home(at.Getenv)
		if err != nil {
			return hookbridge.Target{}, err
		}
		h := at.Getenv("HOME")
		if h == "" {
			return hookbridge.Target{}, errors.New("HOME is not set")
		}
		return hookbridge.Target{Scope: hookbridge.ScopeUser, Settings: filepath.Join(d, "hooks.json"),
			Skill: filepath.Join(h, ".agents", "skills", "cully", "SKILL.md")}, nil
	case hookbridge.ScopeProject:
		if at.Project == "" {
			return hookbridge.Target{}, errors.New("no project directory")
		}
		return hookbridge.Target{Scope: scope, Settings: filepath.Join(at.Project, ".codex", "hooks.json"),
			Skill: filepath.Join(at.Project, ".agents", "skills", "cully", "SKILL.md"), Ignore: "/.codex/hooks.json"}, nil
	case hookbridge.ScopeShared:
		return hookbridge.Target{}, errShared
	}
	return hookbridge.Target{}, fmt.Errorf("scope is user or project, not %q", scope)
}

// Present: codex is on PATH, or its home folder exists.
func (Agent) Present(at hookbridge.Place) bool {
	d, _ := home(at.Getenv)
	return hookbridge.Found(d, "codex")
}
