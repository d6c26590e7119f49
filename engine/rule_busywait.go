package engine

import (
	"fmt"
	"strings"
)

// ReasonBusyWait: calls that do nothing but print, made while waiting.
const ReasonBusyWait Reason = "busy-wait"

// busyWaitCalls is how many calls that only print (among the task's recent
// calls, State.Recent) make a pattern: one `echo` is a note to the user,
// a second is the agent filling its turn while something else works.
const busyWaitCalls = 2

// busyWait is raised when a foreground shell call does nothing but print
// (echo, printf, true, `:`: no program run, no file written) and another
// such call is among the task's recent ones: `echo "waiting for the review
// agents"`, again and again, while subagents or a background job run. A
// turn kept alive that way spends a model call per line and wakes for
// nothing; the host tells the agent when background work finishes. Shown,
// not told, unless busy_wait_tell is on.
var busyWait = checkpointRule{
	reason: ReasonBusyWait,
	action: "end the turn while the background work runs: its result will reach you when it finishes",
	alone:  true,
	due: func(s *State, ev *Event, _ *CmdSeen, _ *Config) (string, bool) {
		if ev.Subagent != "" || !IsShellTool(ev.Tool) || !printOnly(ev.Cmd) {
			return "", false
		}
		n := 0
		for _, r := range s.Recent {
			if printOnly(r.Preview) {
				n++
			}
		}
		if n < busyWaitCalls {
			return "", false
		}
		return fmt.Sprintf("%d of the task's recent calls only printed a line (`%s`): nothing ran", n, preview(ev)), true
	},
	tell: func(_ *State, cfg *Config) bool { return cfg.BusyWaitTell },
}

// printOnly reports whether a command line only prints: every command in it
// is echo, printf, true or `:`, with no file written.
func printOnly(cmd string) bool {
	if cmd == "" || !strings.HasPrefix(strings.TrimSpace(cmd), "echo") && !strings.HasPrefix(strings.TrimSpace(cmd), "printf") {
		return false // most calls: no lexing
	}
	segs := splitShell(cmd)
	if len(segs) == 0 {
		return false
	}
	for _, sg := range segs {
		if len(sg.redirs) > 0 || len(sg.words) == 0 {
			return false
		}
		switch sg.words[0] {
		case "echo", "printf", "true", ":":
		default:
			return false
		}
		for _, w := range sg.words[1:] {
			if strings.Contains(w, "$(") || strings.Contains(w, "`") {
				return false // a substitution runs something
			}
		}
	}
	return true
}
