package opencode

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"cully/hookbridge"
	"cully/install"
)

// Doctor checks one scope: cully's plugin is there, this cully's version,
// with a hook command that runs (and, in a committed file, names no path
// of this machine), and the skill is present and current. A scope without
// cully's plugin has nothing to check.
func (Agent) Doctor(t hookbridge.Target, skill string) hookbridge.Wiring {
	where := fmt.Sprintf("opencode (%s, %s)", t.Scope, t.Settings)
	installCmd := "cully install --agent opencode" + t.Scope.Flags()
	b, err := os.ReadFile(t.Settings)
	if errors.Is(err, os.ErrNotExist) {
		return hookbridge.Wiring{}
	}
	if err != nil {
		return hookbridge.Wiring{Checks: []hookbridge.Check{{What: where + ": " + err.Error()}}}
	}
	cmd := hookOf(b)
	if cmd == "" {
		return hookbridge.Wiring{}
	}
	w := hookbridge.Wiring{Command: cmd}
	add := func(c hookbridge.Check) { w.Checks = append(w.Checks, c) }
	if strings.Contains(string(b), "\n"+PluginVersion+"\n") {
		add(hookbridge.Check{OK: true, What: where + ": cully's plugin is installed"})
	} else {
		add(hookbridge.Check{Warn: true, What: where + ": cully's plugin is another cully's version", Fix: installCmd + " (rewrites it)"})
	}
	if !install.CommandRuns(cmd) {
		add(hookbridge.StaleCheck(where, installCmd, cmd))
	}
	if c, ok := hookbridge.SharedPathCheck(t, where, cmd, "opencode"); ok {
		add(c)
	}
	add(hookbridge.SkillCheck(t.Skill, skill, installCmd))
	return w
}
