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

// hookShellTakesEnv reports whether the shell Codex runs hook commands
// through takes NAME=value before a command, given the user's shells
// (install.UserShells). Codex 0.171 runs them with its session's shell and
// -c, whatever $SHELL says: in the real client, $SHELL set to tcsh, fish,
// zsh, sh, mksh, dash, pwsh, nu or unset, every hook ran as `/bin/bash -c
// "<command>"` for a user whose login shell is bash (e2e/codex_test.go
// has the tcsh case). That shell is the login shell when Codex knows it as
// bash, zsh or sh, PowerShell (-NoProfile -Command) when it is PowerShell,
// and otherwise bash, zsh or /bin/sh, the first there is (Codex's
// shell_detect). So only PowerShell does not take it: a PowerShell among
// the user's shells means the command goes bare.
func hookShellTakesEnv(shells []string) bool {
	for _, sh := range shells {
		if isPowerShell(sh) {
			return false
		}
	}
	return true
}

// isPowerShell reports whether a shell path names PowerShell, by its file
// stem as Codex tells shells apart.
func isPowerShell(shell string) bool {
	n := install.ShellName(shell)
	return n == "pwsh" || n == "powershell"
}

// Install computes hooks.json after installing cully's entries, one per
// event, each in a group of its own with no matcher (every tool), as
// {"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":…,"timeout":5}]}],…}}.
// Codex has no status line. Codex runs each command through a shell of the
// sh family (hookShellTakesEnv), so the hook's environment goes before it,
// as for Claude Code: Codex 0.171's entries have no environment of their
// own. Not on Windows, nor for a user whose shell is PowerShell.
func (Agent) Install(t hookbridge.Target, before []byte, o hookbridge.InstallOptions) (*install.Plan, error) {
	path, hookCmd := t.Settings, hookCommand(o.HookCommand)
	bare := ""
	if runtime.GOOS != "windows" {
		if hookShellTakesEnv(o.Shells) {
			hookCmd = install.WithHookEnv(hookCmd)
		} else if install.IsCullyCommand(hookCmd) {
			bare = fmt.Sprintf("your shell is PowerShell (%s), which Codex runs hook commands through and which does not take %s before a command, so the hook runs without it, about 0.1 ms a call slower (docs/agents.md)", strings.Join(o.Shells, ", "), install.HookEnv)
		}
	}
	root, err := install.ParseSettings(path, before)
	if err != nil {
		return nil, err
	}
	p := &install.Plan{Path: path, Before: before}
	if bare != "" {
		p.Notes = append(p.Notes, bare)
	}
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
