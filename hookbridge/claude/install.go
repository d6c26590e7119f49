package claude

import (
	"fmt"
	"runtime"
	"strings"

	"cully/hookbridge"
	"cully/install"
)

// Events are the Claude Code hook events cully registers: tool events
// (including failures and batches), prompt submit, session start and end,
// stop, compaction and subagents.
var Events = []string{
	"PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch",
	"UserPromptSubmit", "SessionStart", "SessionEnd", "Stop", "PreCompact",
	"SubagentStart", "SubagentStop",
}

// HookTimeout is each entry's timeout in seconds: a hook call takes
// milliseconds, so a cully that is stuck for this long is broken, and the
// agent goes on without it.
const HookTimeout = 5

// Install computes the settings after installing cully's hooks (and
// the status line when statusline is set and the user has none).
func (Agent) Install(t hookbridge.Target, before []byte, o hookbridge.InstallOptions) (*install.Plan, error) {
	path, hookCmd, statusCmd := t.Settings, o.HookCommand, o.StatusLineCommand
	if runtime.GOOS != "windows" {
		// Claude Code runs a hook's command line through a POSIX shell
		// here, so the hook's environment can go before it.
		hookCmd = install.WithHookEnv(hookCmd)
	}
	root, err := install.ParseSettings(path, before)
	if err != nil {
		return nil, err
	}
	p := &install.Plan{Path: path, Before: before}
	lists, err := install.EventLists(root, path, Events)
	if err != nil {
		return nil, err
	}
	for i := range Events {
		arr := lists[i]
		found := false
		for _, group := range arr.Items {
			for _, h := range group.Get("hooks").ItemsOrNil() {
				if install.IsCullyCommand(h.Get("command").Str()) {
					if found { // a duplicate of ours: keep one
						continue
					}
					found = true
					if h.Get("command").Str() != hookCmd {
						h.Set("command", install.Scalar(hookCmd))
					}
					if t := h.Get("timeout"); t == nil || string(t.Raw) != fmt.Sprint(HookTimeout) {
						h.Set("timeout", install.Scalar(HookTimeout))
					}
				}
			}
		}
		if !found {
			h := install.Object()
			h.Set("type", install.Scalar("command"))
			h.Set("command", install.Scalar(hookCmd))
			h.Set("timeout", install.Scalar(HookTimeout))
			list := &install.Node{Kind: 'a', Items: []*install.Node{h}}
			group := install.Object()
			group.Set("hooks", list)
			arr.Items = append(arr.Items, group)
		}
	}
	if statusCmd != "" {
		sl := root.Get("statusLine")
		switch {
		case sl == nil:
			n := install.Object()
			n.Set("type", install.Scalar("command"))
			n.Set("command", install.Scalar(statusCmd))
			root.Set("statusLine", n)
		case install.IsCullyCommand(sl.Get("command").Str()):
			sl.Set("command", install.Scalar(statusCmd))
		default:
			p.Notes = append(p.Notes, fmt.Sprintf("status line: %s already has one (%q), and cully never replaces it (to show both, make its command `cully statusline --then %s`)",
				path, sl.Get("command").Str(), shellQuote(sl.Get("command").Str())))
		}
	}
	p.After = root.Encode()
	p.Changed = before == nil || !install.SameJSON(before, p.After)
	if !p.Changed {
		p.After = before
	}
	return p, nil
}

// Uninstall computes the settings with cully's entries removed, each
// with its own whitespace and comma: everything else keeps its bytes.
func (Agent) Uninstall(t hookbridge.Target, before []byte) (*install.Plan, error) {
	path := t.Settings
	p := &install.Plan{Path: path, Before: before}
	if before == nil {
		p.After = nil
		return p, nil
	}
	root, err := install.ParseSettings(path, before)
	if err != nil {
		return nil, err
	}
	install.RemoveGroupedHooks(root)
	if sl := root.Get("statusLine"); sl != nil && install.IsCullyCommand(sl.Get("command").Str()) {
		root.Del("statusLine")
	}
	p.After = root.Encode()
	p.Changed = string(before) != string(p.After)
	return p, nil
}

// shellQuote is s as one shell word: in single quotes unless it is a plain
// word already.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"$`\\!*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
