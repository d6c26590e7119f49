package hookbridge

import (
	"fmt"
	"os"
	"strings"

	"cully/install"
)

// The checks every adapter's Doctor makes the same way, with the same
// words: whether each event has cully's entry, whether its command runs,
// and whether the skill is there and this cully's.

// PresenceCheck says which of an agent's events have no cully entry, or
// that all of them (events in all) have one.
func PresenceCheck(where, installCmd string, missing []string, events int) Check {
	if len(missing) > 0 {
		return Check{What: where + ": no cully entry for " + strings.Join(missing, ", "), Fix: installCmd + " (idempotent: it adds what is missing)"}
	}
	return Check{OK: true, What: fmt.Sprintf("%s: hook entries present for all %d events", where, events)}
}

// StaleCheck is the problem of a hook command that does not run.
func StaleCheck(where, installCmd, cmd string) Check {
	return Check{What: fmt.Sprintf("%s: hook command %q does not run (missing or not executable)", where, cmd), Fix: installCmd + " (rewrites the command to this cully)"}
}

// RetiredCheck is the note on an install by an earlier cully that still
// has entries on events this one no longer registers (their records fed
// nothing): they work, and each costs the host a hook process when it
// fires, so install takes them out.
func RetiredCheck(where, installCmd string, retired []string) Check {
	return Check{Warn: true, What: fmt.Sprintf("%s: can be updated: an earlier cully's entries on %s, events this cully no longer uses", where, strings.Join(retired, ", ")),
		Fix: installCmd + " (takes those entries out: each costs the host a hook process when it fires)"}
}

// ScanRetired lists the retired events (an adapter's Retired) that still
// have cully's entry (commands lists an event's, as for ScanWiring).
func ScanRetired(retired []string, commands func(ev string) []string) []string {
	var out []string
	for _, ev := range retired {
		for _, c := range commands(ev) {
			if install.IsCullyCommand(c) {
				out = append(out, ev)
				break
			}
		}
	}
	return out
}

// SkillCheck compares the skill file at path with this cully's text.
func SkillCheck(path, skill, installCmd string) Check {
	b, err := os.ReadFile(path)
	switch {
	case err != nil:
		return Check{What: "skill missing: " + path, Fix: installCmd}
	case string(b) != skill:
		return Check{Warn: true, What: "skill " + path + " differs from this cully's (edited, or written by another version): install keeps it",
			Fix: "to take this version, delete it and run " + installCmd}
	}
	return Check{OK: true, What: "skill present and current: " + path}
}

// WiringScan is what a doctor found of cully's entries in an agent's hook
// settings: the events with no cully command, those whose command does not
// run, and the (last) cully command found.
type WiringScan struct {
	Missing, Stale []string
	Command        string
	events         int
}

// ScanWiring looks for cully's command among each event's hook commands
// (commands lists an event's, in the agent's own settings shape).
func ScanWiring(events []string, commands func(ev string) []string) WiringScan {
	s := WiringScan{events: len(events)}
	for _, ev := range events {
		found := false
		for _, c := range commands(ev) {
			if install.IsCullyCommand(c) {
				found, s.Command = true, c
				if !install.CommandRuns(c) {
					s.Stale = append(s.Stale, ev)
				}
			}
		}
		if !found {
			s.Missing = append(s.Missing, ev)
		}
	}
	return s
}

// Wiring begins the doctor's report from the scan: nothing (false) when no
// event has cully's entry, else the presence check and, when a command
// does not run, the stale one.
func (s WiringScan) Wiring(where, installCmd string) (Wiring, bool) {
	if len(s.Missing) == s.events {
		return Wiring{}, false
	}
	w := Wiring{Command: s.Command, Checks: []Check{PresenceCheck(where, installCmd, s.Missing, s.events)}}
	if len(s.Stale) > 0 {
		w.Checks = append(w.Checks, StaleCheck(where, installCmd, s.Command))
	}
	return w, true
}

// SharedPathCheck warns when a target the team commits (ScopeShared)
// names a path of this machine in its hook command: the teammates who
// pull it run a hook that is not there. agent is the --agent value
// ("" for Claude Code, the default).
func SharedPathCheck(t Target, where, cmd, agent string) (Check, bool) {
	if t.Scope != ScopeShared || install.PathFree(cmd) {
		return Check{}, false
	}
	flag := ""
	if agent != "" {
		flag = " --agent " + agent
	}
	return Check{Warn: true, What: fmt.Sprintf("%s: the hook command %q names a path of this machine, in a file your team commits", where, cmd),
		Fix: fmt.Sprintf("cully uninstall%s --scope project --shared, then cully install%s --scope project (this machine only) or --shared with cully-hook on PATH", flag, flag)}, true
}
