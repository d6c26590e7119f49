package opencode

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"cully/hookbridge"
	"cully/install"
)

// PluginVersion is the version line cully's plugin carries: doctor tells
// a plugin an older cully wrote by it.
const PluginVersion = "// cully-plugin-version: 3" // 2: the hook runs with install.HookEnv; 3: a halted run's call is refused

// pluginMark opens every plugin cully writes: install and uninstall touch
// only a file that starts with it.
const pluginMark = "// cully's plugin for opencode"

// placeholder stands for the hook's command line in the plugin's text
// (plugin.Placeholder).
const placeholder = `"__CULLY_HOOK__"`

// ours reports whether a plugin file is one cully wrote.
func ours(b []byte) bool { return strings.HasPrefix(string(b), pluginMark) }

// hookOf reads the hook command a plugin cully wrote runs ("" for none).
func hookOf(b []byte) string {
	const decl = "\nconst HOOK = "
	s := string(b)
	i := strings.Index(s, decl)
	if !ours(b) || i < 0 {
		return ""
	}
	line := s[i+len(decl):]
	if j := strings.IndexByte(line, '\n'); j >= 0 {
		line = line[:j]
	}
	var cmd string
	if json.Unmarshal([]byte(line), &cmd) != nil {
		return ""
	}
	return cmd
}

// Install computes the plugin file: cully's plugin with the hook's command
// line in it. A file there that is not cully's is never replaced.
func (Agent) Install(t hookbridge.Target, before []byte, o hookbridge.InstallOptions) (*install.Plan, error) {
	if !strings.HasPrefix(o.Plugin, pluginMark) || !strings.Contains(o.Plugin, placeholder) {
		return nil, errors.New("this cully has no opencode plugin to install")
	}
	if before != nil && !ours(before) {
		return nil, fmt.Errorf("%s exists and is not cully's plugin: move it aside first", t.Settings)
	}
	quoted, _ := json.Marshal(o.HookCommand) // a JSON string is a JavaScript string
	after := []byte(strings.Replace(o.Plugin, placeholder, string(quoted), 1))
	p := &install.Plan{Path: t.Settings, Before: before, After: after, Changed: string(before) != string(after)}
	if !p.Changed {
		p.After = before
	}
	if o.StatusLineCommand != "" {
		p.Notes = append(p.Notes, "opencode has no status-line command: --statusline does nothing for it")
	}
	return p, nil
}

// Uninstall removes cully's plugin file, and only that: a file there that
// is not cully's stays.
func (Agent) Uninstall(t hookbridge.Target, before []byte) (*install.Plan, error) {
	p := &install.Plan{Path: t.Settings, Before: before, After: before}
	switch {
	case before == nil:
	case !ours(before):
		p.Notes = append(p.Notes, t.Settings+" is not cully's plugin: left as it is")
	default:
		p.After, p.Changed, p.Remove = nil, true, true
	}
	return p, nil
}
