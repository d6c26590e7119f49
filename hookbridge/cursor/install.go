package cursor

import (
	"fmt"
	"runtime"

	"cully/hookbridge"
	"cully/install"
)

// Events are the Cursor hook events cully registers: shell commands, MCP
// tools, file reads and edits, prompts, the agent's stop, session start
// and end, compaction and a subagent's start. Cursor's generic preToolUse
// and postToolUse are left out: they fire for the same shell commands,
// reads and edits again.
var Events = []string{
	"beforeShellExecution", "afterShellExecution", "beforeMCPExecution", "afterMCPExecution",
	"beforeReadFile", "afterFileEdit", "beforeSubmitPrompt", "stop",
	"sessionStart", "sessionEnd", "preCompact", "subagentStart",
}

// Retired are the events an earlier cully registered whose records fed
// nothing: a subagent's stop (cully answers no Cursor hook, and the rules
// count subagents at their start). Each firing cost a hook process;
// install takes their entries out, doctor notes them.
var Retired = []string{"subagentStop"}

// command is the command line of an entry: the hook for this agent. No
// timeout is written: its unit is not settled by Cursor's documentation,
// and a wrong guess would kill every call or none.
func command(hook string) string { return hook + " --agent cursor" }

// envBlocker is why the hook's environment cannot go before the command
// in a target ("" when it can). Cursor runs a hook command through a
// POSIX shell of its own on Linux and macOS, from live captures of the
// Cursor CLI published by others (none runs here): NAME=value before the
// hook took, and a trace of one call was `/bin/zsh -c '<its shell
// snapshot's wrapper>; builtin eval "$1"' -- '<command>' preToolUse`;
// its agent's terminal is bash or zsh. On Windows it runs them through
// CMD, which does not take it. That is others' capture, not a run here,
// so a user whose shell would not take it (install.ShellWithoutEnv) gets the
// command bare in case Cursor runs it through that shell, as does a file
// the team commits, which a teammate's Cursor may run through CMD. Only
// the user's shell is a choice of theirs worth telling them of (yours).
func envBlocker(t hookbridge.Target, shells []string) (why string, yours bool) {
	if runtime.GOOS == "windows" {
		return "Cursor runs hook commands through CMD on Windows, which does not take " + install.HookEnv + " before a command", false
	}
	if t.Scope == hookbridge.ScopeShared {
		return "the file is everyone's, and a teammate's Cursor on Windows runs hook commands through CMD, which does not take " + install.HookEnv + " before a command", false
	}
	if sh := install.ShellWithoutEnv(shells); sh != "" {
		return fmt.Sprintf("your shell %s does not take %s before a command, and cully cannot tell whether Cursor runs hook commands through it", sh, install.HookEnv), true
	}
	return "", false
}

// Install computes hooks.json after merging cully's entries into before
// (nil when it does not exist). Everything that is not cully's keeps its
// bytes. The hook's environment goes before the command, as for Claude
// Code, where nothing stands against it (envBlocker).
func (Agent) Install(t hookbridge.Target, before []byte, o hookbridge.InstallOptions) (*install.Plan, error) {
	path, line := t.Settings, command(o.HookCommand)
	why, yours := envBlocker(t, o.Shells)
	if why == "" {
		line = install.WithHookEnv(line)
	}
	root, err := install.ParseSettings(path, before)
	if err != nil {
		return nil, err
	}
	p := &install.Plan{Path: path, Before: before}
	if yours && install.IsCullyCommand(line) {
		p.Notes = append(p.Notes, why+", so the hook runs without it, about 0.1 ms a call slower (docs/agents.md)")
	}
	switch v := root.Get("version"); {
	case v == nil:
		root.Set("version", install.Scalar(1))
	case string(v.Raw) != "1":
		return nil, fmt.Errorf("%s: \"version\" is %s, and cully knows version 1 only; fix it by hand first", path, v.Raw)
	}
	lists, err := install.EventLists(root, path, Events)
	if err != nil {
		return nil, err
	}
	for i := range Events {
		arr := lists[i]
		var keep []*install.Node
		found := false
		for _, h := range arr.Items {
			if !install.IsCullyCommand(h.Get("command").Str()) {
				keep = append(keep, h)
				continue
			}
			if found {
				continue // a duplicate of ours: one is enough
			}
			found = true
			keep = append(keep, h)
			if h.Get("command").Str() != line {
				h.Set("command", install.Scalar(line))
			}
		}
		if !found {
			h := install.Object()
			h.Set("command", install.Scalar(line))
			keep = append(keep, h)
		}
		arr.Items = keep
	}
	install.RemoveFlatHooksOf(root, func(h *install.Node) string { return h.Get("command").Str() }, Retired)
	p.After = root.Encode()
	p.Changed = before == nil || !install.SameJSON(before, p.After)
	if !p.Changed {
		p.After = before
	}
	return p, nil
}

// Uninstall computes hooks.json with cully's entries removed, each with its
// own whitespace and comma: everything else keeps its bytes. A file left
// with nothing but its version loses that too, so that a file install
// created is seen to hold nothing of anyone's and goes.
func (Agent) Uninstall(t hookbridge.Target, before []byte) (*install.Plan, error) {
	path := t.Settings
	p := &install.Plan{Path: path, Before: before}
	if before == nil {
		return p, nil
	}
	root, err := install.ParseSettings(path, before)
	if err != nil {
		return nil, err
	}
	install.RemoveFlatHooks(root, func(h *install.Node) string { return h.Get("command").Str() })
	if len(root.Keys) == 1 && root.Keys[0] == "version" {
		root.Del("version")
	}
	p.After = root.Encode()
	p.Changed = string(before) != string(p.After)
	return p, nil
}
