package gemini

import (
	"errors"
	"fmt"
	"path/filepath"

	"cully/hookbridge"
)

// homeDir is the home Gemini CLI works from: $GEMINI_CLI_HOME (which
// stands for the whole home folder, .gemini and .agents below it), else
// HOME.
func homeDir(getenv func(string) string) (string, error) {
	if d := getenv("GEMINI_CLI_HOME"); d != "" {
		return d, nil
	}
	if h := getenv("HOME"); h != "" {
		return h, nil
	}
	return "", errors.New("HOME is not set")
}

// errProjectScope is why --scope project alone does not apply.
var errProjectScope = errorString("Gemini CLI reads one settings file in a repository, .gemini/settings.json, which teams commit and which has no part of this machine's own: " +
	"`cully install --agent gemini --scope project --shared` wires cully there with commands found on PATH (no path of this machine), " +
	"or `cully install --agent gemini` wires it for every project of this user")

// errorString is an error that is a constant: no package-level error is
// built at start-up in a package the hook links.
type errorString string

func (e errorString) Error() string { return string(e) }

// Target: the user scope is settings.json in ~/.gemini, with the skill in
// ~/.agents/skills/cully/, which Gemini CLI reads (as does Codex). The
// shared scope is the repository's .gemini/settings.json, with the skill
// in its .agents/skills/cully/. There is no project scope of this
// machine's own (errProjectScope). The notes say whether Gemini CLI
// trusts the folder, since it runs no hook from settings anywhere else.
func (Agent) Target(scope hookbridge.Scope, at hookbridge.Place) (hookbridge.Target, error) {
	home, err := homeDir(at.Getenv)
	if err != nil {
		return hookbridge.Target{}, err
	}
	var t hookbridge.Target
	switch scope {
	case hookbridge.ScopeUser, "":
		t = hookbridge.Target{Scope: hookbridge.ScopeUser, Settings: filepath.Join(home, ".gemini", "settings.json"),
			Skill: filepath.Join(home, ".agents", "skills", "cully", "SKILL.md")}
	case hookbridge.ScopeProject:
		return hookbridge.Target{}, errProjectScope
	case hookbridge.ScopeShared:
		if at.Project == "" {
			return hookbridge.Target{}, errors.New("no project directory")
		}
		t = hookbridge.Target{Scope: scope, Settings: filepath.Join(at.Project, ".gemini", "settings.json"),
			Skill: filepath.Join(at.Project, ".agents", "skills", "cully", "SKILL.md")}
	default:
		return hookbridge.Target{}, fmt.Errorf("scope is user, project or shared, not %q", scope)
	}
	t.Notes = trustNotes(home, at)
	return t, nil
}

// Present: gemini is on PATH, or its user folder (.gemini in the home
// it works from) exists.
func (Agent) Present(at hookbridge.Place) bool {
	d := ""
	if h, err := homeDir(at.Getenv); err == nil {
		d = filepath.Join(h, ".gemini")
	}
	return hookbridge.Found(d, "gemini")
}
