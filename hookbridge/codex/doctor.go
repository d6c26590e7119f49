package codex

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

// Doctor checks one scope's hooks.json: every event has a cully entry
// whose command runs and names the agent, and the skill is present and
// current. Whether Codex trusts the entries is TrustChecks' (it asks the
// codex binary). A scope with no hooks.json, or none of cully's entries in
// it, has nothing to check.
func (Agent) Doctor(t hookbridge.Target, skill string) hookbridge.Wiring {
	where := fmt.Sprintf("Codex (%s, %s)", t.Scope, t.Settings)
	installCmd := "cully install --agent codex" + t.Scope.Flags()
	b, err := os.ReadFile(t.Settings)
	if errors.Is(err, os.ErrNotExist) || err == nil && len(strings.TrimSpace(string(b))) == 0 {
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
	if err := json.Unmarshal(b, &s); err != nil {
		return hookbridge.Wiring{Checks: []hookbridge.Check{{What: fmt.Sprintf("%s is not valid hooks JSON: %v", where, jsonlite.Where(b, err)), Fix: "fix the file by hand; cully will not rewrite it"}}}
	}
	var noAgent []string
	w, ok := hookbridge.ScanWiring(Events, func(ev string) []string {
		var cs []string
		for _, g := range s.Hooks[ev] {
			for _, hk := range g.Hooks {
				if install.IsCullyCommand(hk.Command) && !strings.Contains(hk.Command, agentFlag) {
					noAgent = append(noAgent, ev)
				}
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
	if len(noAgent) > 0 {
		add(hookbridge.Check{What: fmt.Sprintf("%s: hook command %q does not say %s, so cully reads Codex's payloads as another agent's (%s)", where, cmd, agentFlag, strings.Join(noAgent, ", ")), Fix: installCmd})
	}
	if shells := install.UserShells(os.Getenv); install.HasHookEnv(cmd) && !hookShellTakesEnv(shells) {
		add(hookbridge.Check{What: fmt.Sprintf("%s: hook command %q sets %s before the command, and Codex runs hook commands through your shell, PowerShell (%s), which does not take it, so every cully hook fails", where, cmd, install.HookEnv, strings.Join(shells, ", ")), Fix: installCmd + " (it writes the command without it for PowerShell)"})
	}
	add(hookbridge.SkillCheck(t.Skill, skill, installCmd))
	return w
}
