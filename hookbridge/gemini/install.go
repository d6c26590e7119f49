package gemini

import (
	"fmt"
	"strings"

	"cully/hookbridge"
	"cully/install"
)

// Events are the Gemini CLI hook events cully registers: the tool events,
// the prompt and the end of its turn, the session's start and end.
// PreCompress is left out: it fires before every turn's compression check,
// so it says nothing, at the cost of a hook process a turn.
var Events = []string{"BeforeTool", "AfterTool", "BeforeAgent", "AfterAgent", "SessionStart", "SessionEnd"}

// HookTimeout is each entry's timeout in milliseconds (Gemini CLI's unit):
// a hook call takes milliseconds, so a cully stuck for this long is
// broken, and the agent goes on without it.
const HookTimeout = 5000

// hookName names cully's entries: Gemini CLI lists hooks by name in
// /hooks, and it knows a project's hooks it has already shown the user by
// name and command.
const hookName = "cully"

// Install computes the settings after merging cully's entries into them:
// one group per event holding cully's command, and nothing else changed.
// A second install changes nothing, and one with another command rewrites
// only the command.
func (Agent) Install(t hookbridge.Target, before []byte, o hookbridge.InstallOptions) (*install.Plan, error) {
	path, hookCmd := t.Settings, hookCommand(o.HookCommand)
	root, err := install.ParseSettings(path, before)
	if err != nil {
		return nil, err
	}
	p := &install.Plan{Path: path, Before: before, Notes: append([]string(nil), t.Notes...)}
	if o.StatusLineCommand != "" {
		p.Notes = append(p.Notes, "Gemini CLI has no status-line command: --statusline does nothing for it")
	}
	if hc := root.Get("hooksConfig"); hc != nil && string(hc.Get("enabled").Raw) == "false" {
		p.Notes = append(p.Notes, fmt.Sprintf("%s turns Gemini CLI's hooks off (hooksConfig.enabled is false): cully's entries are written, but run only once that is removed", path))
	}
	lists, err := install.EventLists(root, path, Events)
	if err != nil {
		return nil, err
	}
	for i := range Events {
		arr := lists[i]
		found := false
		for _, group := range arr.Items {
			for _, h := range group.Get("hooks").ItemsOrNil() {
				if !install.IsCullyCommand(h.Get("command").Str()) || found {
					continue // a duplicate of ours stays for uninstall to take
				}
				found = true
				if h.Get("command").Str() != hookCmd {
					h.Set("command", install.Scalar(hookCmd))
				}
				if tm := h.Get("timeout"); tm == nil || string(tm.Raw) != fmt.Sprint(HookTimeout) {
					h.Set("timeout", install.Scalar(HookTimeout))
				}
				install.SetHookEnv(h)
			}
		}
		if !found {
			h := install.Object()
			h.Set("name", install.Scalar(hookName))
			h.Set("type", install.Scalar("command"))
			h.Set("command", install.Scalar(hookCmd))
			h.Set("timeout", install.Scalar(HookTimeout))
			// The hook's environment in the entry's own (Gemini CLI's hook
			// env), not before its command: Gemini CLI trusts a hook by its
			// command line, which stays as it was.
			install.SetHookEnv(h)
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

// agentFlag is what a hook command needs for cully to read Gemini CLI's
// payloads: without it the hook takes them for Claude Code's (the default
// agent) and records each call as an unknown event of that agent.
const agentFlag = "--agent gemini"

// hookCommand is the command line of cully's entries: the hook command
// with --agent gemini, when it is cully's and does not name an agent yet.
func hookCommand(cmd string) string {
	if install.IsCullyCommand(cmd) && !strings.Contains(cmd, "--agent") {
		return cmd + " " + agentFlag
	}
	return cmd
}

// Uninstall computes the settings with exactly cully's entries removed:
// a group left empty goes, an event left with no group goes, and "hooks"
// goes when nothing is left in it.
func (Agent) Uninstall(t hookbridge.Target, before []byte) (*install.Plan, error) {
	return install.UninstallGrouped(t.Settings, before)
}
