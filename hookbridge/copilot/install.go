package copilot

import (
	"fmt"

	"cully/hookbridge"
	"cully/install"
)

// Events are the Copilot CLI hook events cully registers: tool events
// (failures included), prompts, session start and end, the agent's stop,
// compaction and a subagent's start. Not notification: it fires for the
// user's screen, and the one notification the rules need (a background
// shell finishing) also arrives as a userPromptSubmitted.
var Events = []string{
	"preToolUse", "postToolUse", "postToolUseFailure", "userPromptSubmitted",
	"sessionStart", "sessionEnd", "agentStop", "preCompact", "subagentStart",
}

// Retired are the events an earlier cully registered whose records fed
// nothing: a subagent's stop (no answer of cully's reaches Copilot CLI
// there, and a subagent's calls carry no id to close) and errorOccurred
// (recorded as an event no rule, panel or ledger reads). Each firing cost
// a hook process; install takes their entries out, doctor notes them.
var Retired = []string{"subagentStop", "errorOccurred"}

// HookTimeout is each entry's timeoutSec: a hook call takes milliseconds,
// so a cully that is stuck for this long is broken, and Copilot CLI goes on
// without it (its timeouts fail open, preToolUse's too).
const HookTimeout = 5

// command is the bash line of an entry: the hook for this agent, and
// `|| true`, because Copilot CLI denies the tool call when a preToolUse
// command exits non-zero (its hooks reference): cully-hook itself always
// exits 0, but a binary deleted without `cully uninstall` must not block
// every tool call.
func command(hook string) string { return hook + " --agent copilot || true" }

// entryCommand is an entry's command line: bash, or the cross-platform
// command field.
func entryCommand(h *install.Node) string {
	if s := h.Get("bash").Str(); s != "" {
		return s
	}
	return h.Get("command").Str()
}

// Install computes the file after merging cully's entries into before (nil
// when it does not exist): one entry per event, each naming its event in
// its environment. Everything that is not cully's keeps its bytes.
func (Agent) Install(t hookbridge.Target, before []byte, o hookbridge.InstallOptions) (*install.Plan, error) {
	path, line := t.Settings, command(o.HookCommand)
	root, err := install.ParseSettings(path, before)
	if err != nil {
		return nil, err
	}
	p := &install.Plan{Path: path, Before: before}
	if hooksFile(t) {
		switch v := root.Get("version"); {
		case v == nil:
			root.Set("version", install.Scalar(1))
		case string(v.Raw) != "1":
			return nil, fmt.Errorf("%s: \"version\" is %s, and cully knows version 1 only; fix it by hand first", path, v.Raw)
		}
	}
	lists, err := install.EventLists(root, path, Events)
	if err != nil {
		return nil, err
	}
	for i, ev := range Events {
		arr := lists[i]
		var keep []*install.Node
		found := false
		for _, h := range arr.Items {
			if !install.IsCullyCommand(entryCommand(h)) {
				keep = append(keep, h)
				continue
			}
			if found {
				continue // a duplicate of ours: one is enough
			}
			found = true
			keep = append(keep, h)
			setEntry(h, line, ev)
		}
		if !found {
			h := install.Object()
			h.Set("type", install.Scalar("command"))
			setEntry(h, line, ev)
			keep = append(keep, h)
		}
		arr.Items = keep
	}
	install.RemoveFlatHooksOf(root, entryCommand, Retired)
	p.After = root.Encode()
	p.Changed = before == nil || !install.SameJSON(before, p.After)
	if !p.Changed {
		p.After = before
	}
	return p, nil
}

// setEntry makes an entry of ours run line for event ev, changing only what
// differs.
func setEntry(h *install.Node, line, ev string) {
	if h.Get("bash").Str() != line {
		h.Set("bash", install.Scalar(line))
	}
	if h.Get("command") != nil && install.IsCullyCommand(h.Get("command").Str()) {
		h.Del("command") // bash wins on Unix; an older line of ours must not linger
	}
	install.SetEnv(h, EventVar, ev)
	install.SetHookEnv(h) // beside the event: the entry's own environment
	if t := h.Get("timeoutSec"); t == nil || string(t.Raw) != fmt.Sprint(HookTimeout) {
		h.Set("timeoutSec", install.Scalar(HookTimeout))
	}
}

// Uninstall computes the file with cully's entries removed, each with its
// own whitespace and comma: everything else keeps its bytes. A hook file
// left with nothing but its version loses that too, so that a file install
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
	install.RemoveFlatHooks(root, entryCommand)
	if hooksFile(t) && len(root.Keys) == 1 && root.Keys[0] == "version" {
		root.Del("version")
	}
	p.After = root.Encode()
	p.Changed = string(before) != string(p.After)
	return p, nil
}
