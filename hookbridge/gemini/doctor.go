package gemini

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"cully/hookbridge"
	"cully/install"
	"cully/jsonlite"
)

// Doctor checks one scope: every event has a cully entry whose command
// runs, hooks are not turned off, the folder is one Gemini CLI trusts, a
// committed file names no path of this machine, and the skill is present
// and current. A scope with no settings file, or none of cully's entries,
// has nothing to check.
func (Agent) Doctor(t hookbridge.Target, skill string) hookbridge.Wiring {
	where := fmt.Sprintf("Gemini CLI (%s, %s)", t.Scope, t.Settings)
	installCmd := "cully install --agent gemini" + t.Scope.Flags()
	b, err := os.ReadFile(t.Settings)
	if errors.Is(err, os.ErrNotExist) || err == nil && len(strings.TrimSpace(string(b))) == 0 {
		return hookbridge.Wiring{}
	}
	if err != nil {
		return hookbridge.Wiring{Checks: []hookbridge.Check{{What: where + ": " + err.Error()}}}
	}
	var s struct {
		Hooks map[string]json.RawMessage `json:"hooks"`
		// HooksConfig is Gemini CLI's switch for all hooks.
		HooksConfig struct {
			Enabled  *bool    `json:"enabled"`
			Disabled []string `json:"disabled"`
		} `json:"hooksConfig"`
	}
	if err := json.Unmarshal(stripComments(b), &s); err != nil {
		return hookbridge.Wiring{Checks: []hookbridge.Check{{What: fmt.Sprintf("%s is not valid settings JSON: %v", where, jsonlite.Where(stripComments(b), err)), Fix: "fix the file by hand; cully will not rewrite it"}}}
	}
	w, ok := hookbridge.ScanWiring(Events, func(ev string) []string {
		var groups []struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		}
		_ = json.Unmarshal(s.Hooks[ev], &groups) // a shape of the user's own is not cully's entry
		var cs []string
		for _, g := range groups {
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
	if e := s.HooksConfig.Enabled; e != nil && !*e {
		add(hookbridge.Check{What: where + ": hooksConfig.enabled is false, so Gemini CLI runs no hook at all", Fix: "remove hooksConfig.enabled from " + t.Settings})
	}
	for _, d := range s.HooksConfig.Disabled {
		if d == hookName || install.IsCullyCommand(d) {
			add(hookbridge.Check{What: where + ": hooksConfig.disabled lists cully's hook, so Gemini CLI skips it", Fix: "/hooks enable " + hookName + " in Gemini CLI"})
		}
	}
	if install.IsCullyCommand(cmd) && !strings.Contains(cmd, "--agent") {
		add(hookbridge.Check{What: fmt.Sprintf("%s: the hook command %q names no agent, so cully reads Gemini CLI's calls as Claude Code's and records each as an unknown event", where, cmd), Fix: installCmd + " (it adds " + agentFlag + ")"})
	}
	for _, n := range t.Notes {
		add(hookbridge.Check{Warn: true, What: n})
	}
	if c, ok := hookbridge.SharedPathCheck(t, where, cmd, "gemini"); ok {
		add(c)
	}
	add(hookbridge.SkillCheck(t.Skill, skill, installCmd))
	return w
}
