package codex

import (
	"fmt"
	"runtime"
	"strings"

	"cully/hookbridge"
	"cully/install"
)

// Events are the Codex hook events cully registers: the tool events,
// prompt submit, session start and end, stop, compaction and subagents.
// PermissionRequest (an approval prompt), PostCompact and Interrupt tell
// the rules nothing.
var Events = []string{
	"PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart", "SessionEnd",
	"Stop", "PreCompact", "SubagentStart", "SubagentStop",
}

// HookTimeout is each entry's timeout in seconds (Codex's unit): a hook
// call takes milliseconds, so a cully stuck this long is broken, and Codex
// goes on without it.
const HookTimeout = 5

// endTimeout is SessionEnd's: Codex clamps it to 3 seconds, and says so on
// every run when an entry asks for more.
const endTimeout = 3

func timeoutOf(event string) int {
	if event == "SessionEnd" {
		return endTimeout
	}
	return HookTimeout
}

// agentFlag is what a hook command needs for cully to read Codex's payloads.
const agentFlag = "--agent codex"

// hookCommand is the command line of cully's entries: the hook command
// with --agent codex, when it is cully's and does not name an agent yet.
func hookCommand(cmd string) string {
	if install.IsCullyCommand(cmd) && !strings.Contains(cmd, "--agent") {
		return cmd + " " + agentFlag
	}
	return cmd
}

// Install computes hooks.json after installing cully's entries, one per
// event, each in a group of its own with no matcher (every tool), as
// {"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":…,"timeout":5}]}],…}}.
// Codex has no status line. Codex runs each command through the user's
// shell ($SHELL -lc); where that shell takes NAME=value before a command
// (install.AssignmentShell), the hook's environment goes there, as for
// Claude Code. Codex 0.171's entries have no environment of their own, and
// both scopes are this machine's own, so the shell that reads it is the
// user's.
func (Agent) Install(t hookbridge.Target, before []byte, o hookbridge.InstallOptions) (*install.Plan, error) {
	path, hookCmd := t.Settings, hookCommand(o.HookCommand)
	if runtime.GOOS != "windows" && install.AssignmentShell(o.Shell) {
		hookCmd = install.WithHookEnv(hookCmd)
	}
	root, err := install.ParseSettings(path, before)
	if err != nil {
		return nil, err
	}
	p := &install.Plan{Path: path, Before: before}
	if o.StatusLineCommand != "" {
		p.Notes = append(p.Notes, "status line: Codex has no status-line command, so there is none to install")
	}
	lists, err := install.EventLists(root, path, Events)
	if err != nil {
		return nil, err
	}
	for i, ev := range Events {
		arr := lists[i]
		timeout := timeoutOf(ev)
		found := false
		for _, group := range arr.Items {
			for _, h := range group.Get("hooks").ItemsOrNil() {
				if !install.IsCullyCommand(h.Get("command").Str()) || found {
					continue
				}
				found = true
				if h.Get("command").Str() != hookCmd {
					h.Set("command", install.Scalar(hookCmd))
				}
				if tn := h.Get("timeout"); tn == nil || string(tn.Raw) != fmt.Sprint(timeout) {
					h.Set("timeout", install.Scalar(timeout))
				}
			}
		}
		if !found {
			h := install.Object()
			h.Set("type", install.Scalar("command"))
			h.Set("command", install.Scalar(hookCmd))
			h.Set("timeout", install.Scalar(timeout))
			group := install.Object()
			group.Set("hooks", &install.Node{Kind: 'a', Items: []*install.Node{h}})
			arr.Items = append(arr.Items, group)
		}
	}
	p.After = root.Encode()
	p.Changed = before == nil || !install.SameJSON(before, p.After)
	if !p.Changed {
		p.After = before
	}
	return p, nil
}

// Uninstall computes hooks.json with cully's entries removed, each with
// its own whitespace and comma: everything else keeps its bytes.
func (Agent) Uninstall(t hookbridge.Target, before []byte) (*install.Plan, error) {
	return install.UninstallGrouped(t.Settings, before)
}
