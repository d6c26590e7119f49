package copilot

import (
	"cmp"
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

// fileEntries is what doctor reads of a hook file or settings file.
type fileEntries struct {
	Hooks map[string][]struct {
		Bash    string            `json:"bash"`
		Command string            `json:"command"`
		Env     map[string]string `json:"env"`
	} `json:"hooks"`
}

// Doctor checks one scope: every event has a cully entry whose command runs
// and that names its event, a committed file names no path of this
// machine, the skill is present and current; and, for a repository, what
// Copilot CLI does there besides (it runs repository hooks only in a
// trusted folder, and it also runs the Claude Code hooks the repository
// holds). A scope with no file, or none of cully's entries in it, has
// nothing to check.
func (a Agent) Doctor(t hookbridge.Target, skill string) hookbridge.Wiring {
	where := fmt.Sprintf("%s (%s, %s)", a.Title(), t.Scope, t.Settings)
	installCmd := "cully install --agent copilot" + t.Scope.Flags()
	b, err := os.ReadFile(t.Settings)
	if errors.Is(err, os.ErrNotExist) || err == nil && len(strings.TrimSpace(string(b))) == 0 {
		return hookbridge.Wiring{}
	}
	if err != nil {
		return hookbridge.Wiring{Checks: []hookbridge.Check{{What: where + ": " + err.Error()}}}
	}
	var s fileEntries
	if err := json.Unmarshal(b, &s); err != nil {
		return hookbridge.Wiring{Checks: []hookbridge.Check{{What: fmt.Sprintf("%s is not valid JSON: %v", where, jsonlite.Where(b, err)), Fix: "fix the file by hand; cully will not rewrite it"}}}
	}
	var unnamed []string
	lines := func(ev string) []string {
		var cs []string
		for _, h := range s.Hooks[ev] {
			line := h.Bash
			if line == "" {
				line = h.Command
			}
			cs = append(cs, line)
		}
		return cs
	}
	w, ok := hookbridge.ScanWiring(Events, func(ev string) []string {
		for _, h := range s.Hooks[ev] {
			if line := cmp.Or(h.Bash, h.Command); install.IsCullyCommand(line) && h.Env[EventVar] != ev {
				unnamed = append(unnamed, ev)
			}
		}
		return lines(ev)
	}).Wiring(where, installCmd)
	if !ok {
		return w
	}
	cmd := w.Command
	add := func(c hookbridge.Check) { w.Checks = append(w.Checks, c) }
	if retired := hookbridge.ScanRetired(Retired, lines); len(retired) > 0 {
		add(hookbridge.RetiredCheck(where, installCmd, retired))
	}
	if len(unnamed) > 0 {
		add(hookbridge.Check{What: where + ": cully's entry does not name its event (env " + EventVar + ") for " + strings.Join(unnamed, ", ") + ", so those calls cannot be told apart",
			Fix: installCmd + " (rewrites cully's entries)"})
	}
	if c, ok := hookbridge.SharedPathCheck(t, where, cmd, "copilot"); ok {
		add(c)
	}
	if t.Scope != hookbridge.ScopeUser {
		root := projectRoot(t)
		add(hookbridge.Check{OK: true, Warn: true, What: a.Title() + " runs a repository's hooks only in a folder you trusted (it asks at its first start there; `copilot -p` needs --trust-folder)"})
		for _, f := range []string{filepath.Join(root, ".claude", "settings.json"), filepath.Join(root, ".claude", "settings.local.json")} {
			if claude.Wires(f) {
				add(hookbridge.Check{Warn: true, What: fmt.Sprintf("%s also runs the Claude Code hooks in %s, which wire cully: each of its calls there is recorded twice", a.Title(), f),
					Fix: "keep one for this repository: cully uninstall --agent copilot" + t.Scope.Flags() + " (cully tells Copilot CLI's calls through Claude Code's entries apart, and records them as Copilot CLI's), or move Claude Code's to --scope user"})
			}
		}
	}
	add(hookbridge.SkillCheck(t.Skill, skill, installCmd))
	return w
}
