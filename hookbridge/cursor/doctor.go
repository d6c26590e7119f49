package cursor

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"cully/hookbridge"
	"cully/hookbridge/claude"
	"cully/install"
	"cully/jsonlite"
)

// Doctor checks one scope: every event has a cully entry whose command
// runs, a committed file names no path of this machine, the hook's
// environment is set before the command only where nothing stands against
// it (envBlocker), the skill is
// present and current; and what Cursor does besides: it runs a project's
// hooks only in a trusted workspace, and it can run the Claude Code hooks
// it finds too. A scope with no file, or none of cully's entries in it, has
// nothing to check.
func (a Agent) Doctor(t hookbridge.Target, skill string) hookbridge.Wiring {
	where := fmt.Sprintf("%s (%s, %s)", a.Title(), t.Scope, t.Settings)
	installCmd := "cully install --agent cursor" + t.Scope.Flags()
	b, err := os.ReadFile(t.Settings)
	if errors.Is(err, os.ErrNotExist) || err == nil && len(strings.TrimSpace(string(b))) == 0 {
		return hookbridge.Wiring{}
	}
	if err != nil {
		return hookbridge.Wiring{Checks: []hookbridge.Check{{What: where + ": " + err.Error()}}}
	}
	var s struct {
		Hooks map[string][]struct {
			Command string `json:"command"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return hookbridge.Wiring{Checks: []hookbridge.Check{{What: fmt.Sprintf("%s is not valid JSON: %v", where, jsonlite.Where(b, err)), Fix: "fix the file by hand; cully will not rewrite it"}}}
	}
	commands := func(ev string) []string {
		var cs []string
		for _, h := range s.Hooks[ev] {
			cs = append(cs, h.Command)
		}
		return cs
	}
	w, ok := hookbridge.ScanWiring(Events, commands).Wiring(where, installCmd)
	if !ok {
		return w
	}
	cmd := w.Command
	add := func(c hookbridge.Check) { w.Checks = append(w.Checks, c) }
	if retired := hookbridge.ScanRetired(Retired, commands); len(retired) > 0 {
		add(hookbridge.RetiredCheck(where, installCmd, retired))
	}
	if c, ok := hookbridge.SharedPathCheck(t, where, cmd, "cursor"); ok {
		add(c)
	}
	if why, _ := envBlocker(t, install.UserShells(os.Getenv)); why != "" && install.HasHookEnv(cmd) {
		add(hookbridge.Check{What: fmt.Sprintf("%s: hook command %q sets %s before the command, and %s, so cully's hook may fail on every call", where, cmd, install.HookEnv, why), Fix: installCmd + " (it writes the command without it then)"})
	}
	// The Claude Code files Cursor also reads with its third-party hooks
	// setting on: the user's for a user install, the repository's for one
	// in a repository.
	base := filepath.Dir(filepath.Dir(t.Settings))
	claudeFiles := []string{filepath.Join(base, ".claude", "settings.json")}
	if t.Scope != hookbridge.ScopeUser {
		add(hookbridge.Check{OK: true, Warn: true, What: a.Title() + " runs a repository's hooks only in a trusted workspace"})
		claudeFiles = append(claudeFiles, filepath.Join(base, ".claude", "settings.local.json"))
	}
	for _, f := range claudeFiles {
		if claude.Wires(f) {
			add(hookbridge.Check{OK: true, Warn: true, What: fmt.Sprintf("%s also wires cully: with Cursor's third-party hooks setting on, Cursor runs those hooks too and each call is recorded twice, once as Claude Code's", f),
				Fix: "leave that setting off, or keep cully in one of the two"})
		}
	}
	add(hookbridge.SkillCheck(t.Skill, skill, installCmd))
	return w
}
