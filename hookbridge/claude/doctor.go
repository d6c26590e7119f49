package claude

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"cully/hookbridge"
	"cully/install"
)

// Doctor checks one scope: every event has a cully entry whose command
// runs, and the skill is present and current. A user scope with no settings
// file is a failure only when Claude Code is on this machine; a project
// scope without one is simply not used.
func (Agent) Doctor(t hookbridge.Target, skill string, present bool) []hookbridge.Check {
	b, err := os.ReadFile(t.Settings)
	if errors.Is(err, os.ErrNotExist) {
		if t.Scope != hookbridge.ScopeUser {
			return nil
		}
		if !present {
			return []hookbridge.Check{{OK: true, Warn: true, What: "Claude Code: not found (no " + t.Settings + ", no claude on PATH)"}}
		}
		return []hookbridge.Check{{What: "Claude Code (user): cully is not installed in " + t.Settings, Fix: "cully install"}}
	}
	if err != nil {
		return []hookbridge.Check{{What: "Claude Code: " + err.Error()}}
	}
	var s struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string `json:"command"`
				Timeout int    `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return []hookbridge.Check{{What: fmt.Sprintf("Claude Code (%s): %s is not valid settings JSON: %v", t.Scope, t.Settings, err), Fix: "fix the file by hand; cully will not rewrite it"}}
	}
	var missing, stale []string
	var cmd string
	for _, ev := range Events {
		found := false
		for _, g := range s.Hooks[ev] {
			for _, hk := range g.Hooks {
				if install.IsCullyCommand(hk.Command) {
					found = true
					cmd = hk.Command
					if !install.CommandRuns(hk.Command) {
						stale = append(stale, ev)
					}
				}
			}
		}
		if !found {
			missing = append(missing, ev)
		}
	}
	var out []hookbridge.Check
	where := fmt.Sprintf("Claude Code (%s, %s)", t.Scope, t.Settings)
	installCmd := "cully install"
	if t.Scope == hookbridge.ScopeProject {
		installCmd = "cully install --scope project"
	}
	switch {
	case len(missing) == len(Events):
		if t.Scope == hookbridge.ScopeUser {
			out = append(out, hookbridge.Check{What: where + ": cully is not installed", Fix: installCmd})
		}
		return out
	case len(missing) > 0:
		out = append(out, hookbridge.Check{What: where + ": no cully entry for " + strings.Join(missing, ", "), Fix: installCmd + " (idempotent: it adds what is missing)"})
	default:
		out = append(out, hookbridge.Check{OK: true, What: where + ": hook entries present for all " + fmt.Sprint(len(Events)) + " events"})
	}
	if len(stale) > 0 {
		out = append(out, hookbridge.Check{What: fmt.Sprintf("%s: hook command %q does not run (missing or not executable)", where, cmd), Fix: installCmd + " (rewrites the command to this cully)"})
	}
	if sb, err := os.ReadFile(t.Skill); err != nil {
		out = append(out, hookbridge.Check{What: "skill missing: " + t.Skill, Fix: installCmd})
	} else if string(sb) != skill {
		out = append(out, hookbridge.Check{Warn: true, What: "skill " + t.Skill + " differs from this cully's (edited, or from another version)", Fix: installCmd + " to update it, unless the edit is yours"})
	} else {
		out = append(out, hookbridge.Check{OK: true, What: "skill present and current: " + t.Skill})
	}
	return out
}
