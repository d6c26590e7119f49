package claude

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"cully/hookbridge"
	"cully/jsonlite"
)

// Doctor checks one scope: every event has a cully entry whose command
// runs, a committed file names no path of this machine, and the skill is
// present and current. A scope with no settings file, or none of cully's
// entries in it, has nothing to check.
func (Agent) Doctor(t hookbridge.Target, skill string) hookbridge.Wiring {
	where := fmt.Sprintf("Claude Code (%s, %s)", t.Scope, t.Settings)
	installCmd := "cully install" + t.Scope.Flags()
	b, err := os.ReadFile(t.Settings)
	if errors.Is(err, os.ErrNotExist) {
		return hookbridge.Wiring{}
	}
	if err != nil {
		return hookbridge.Wiring{Checks: []hookbridge.Check{{What: where + ": " + err.Error()}}}
	}
	var s struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if len(strings.TrimSpace(string(b))) == 0 {
		return hookbridge.Wiring{}
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return hookbridge.Wiring{Checks: []hookbridge.Check{{What: fmt.Sprintf("%s is not valid settings JSON: %v", where, jsonlite.Where(b, err)), Fix: "fix the file by hand; cully will not rewrite it"}}}
	}
	w, ok := hookbridge.ScanWiring(Events, func(ev string) []string {
		var cs []string
		for _, g := range s.Hooks[ev] {
			for _, hk := range g.Hooks {
				cs = append(cs, hk.Command)
			}
		}
		return cs
	}).Wiring(where, installCmd)
	if !ok {
		return w
	}
	cmd := w.Command
	add := func(c hookbridge.Check) { w.Checks = append(w.Checks, c) }
	if c, ok := hookbridge.SharedPathCheck(t, where, cmd, ""); ok {
		add(c)
	}
	add(hookbridge.SkillCheck(t.Skill, skill, installCmd))
	return w
}
