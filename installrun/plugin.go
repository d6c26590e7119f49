package installrun

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"cully/hookbridge"
	"cully/plugin"
)

// PluginAt is a host's install of cully as its plugin (Claude Code's
// plugin, the Gemini CLI extension, the opencode npm package): where the
// host says so, and the hook command the plugin runs.
type PluginAt struct {
	Where string // the file that says the plugin is installed
	How   string // what it says there, for messages
}

// PluginInstall finds cully installed as the agent's plugin here, in the
// files the host reads to know its plugins: Claude Code's enabledPlugins
// (a "cully@<marketplace>" set to true, in the user's settings or the
// project's), Gemini CLI's extensions folder, opencode's "plugin" list.
func PluginInstall(in hookbridge.Installer, at hookbridge.Place) (PluginAt, bool) {
	var files []string
	for _, scope := range hookbridge.Scopes {
		if t, err := in.Target(scope, at); err == nil {
			files = append(files, t.Settings)
		}
	}
	switch in.Name() {
	case "claude":
		for _, f := range files {
			var s struct {
				Enabled map[string]bool `json:"enabledPlugins"`
			}
			if b, err := os.ReadFile(f); err != nil || json.Unmarshal(b, &s) != nil {
				continue
			}
			for k, on := range s.Enabled {
				if on && strings.HasPrefix(k, plugin.Name+"@") {
					return PluginAt{f, fmt.Sprintf("enabledPlugins %q", k)}, true
				}
			}
		}
	case "gemini":
		if len(files) > 0 {
			ext := filepath.Join(filepath.Dir(files[0]), "extensions", plugin.Name, "gemini-extension.json")
			var m struct{ Name string }
			if b, err := os.ReadFile(ext); err == nil && json.Unmarshal(b, &m) == nil && m.Name == plugin.Name {
				return PluginAt{ext, "the extension " + plugin.Name}, true
			}
		}
	case "opencode":
		var configs []string
		if len(files) > 0 { // the user folder: plugins/cully.js's parent's parent
			d := filepath.Dir(filepath.Dir(files[0]))
			configs = append(configs, filepath.Join(d, "opencode.json"), filepath.Join(d, "opencode.jsonc"))
		}
		if at.Project != "" {
			configs = append(configs, filepath.Join(at.Project, "opencode.json"), filepath.Join(at.Project, "opencode.jsonc"))
		}
		for _, f := range configs {
			var c struct {
				Plugin []string `json:"plugin"`
			}
			if b, err := os.ReadFile(f); err != nil || json.Unmarshal(b, &c) != nil {
				continue
			}
			for _, p := range c.Plugin {
				if p == plugin.NpmName || strings.HasPrefix(p, plugin.NpmName+"@") {
					return PluginAt{f, fmt.Sprintf("the plugin %q", p)}, true
				}
			}
		}
	}
	return PluginAt{}, false
}

// pluginSkip is install's answer when cully is installed as the agent's
// plugin: the plugin's hooks already run cully, so install writes no
// hooks or skills of its own (the host would run both, and record every
// call twice), and says so. It reports whether it skipped.
func (r *Run) pluginSkip() bool {
	p, ok := PluginInstall(r.in, r.at)
	if !ok {
		return false
	}
	r.note("%s runs cully as its plugin (%s in %s): its hooks already call cully, so install writes no hooks or skills of its own, which %s would run as well and record every call twice; to use install instead, remove the plugin first", r.in.Title(), p.How, p.Where, r.in.Title())
	if _, cmd := r.wiredIn(r.t.Scope); cmd != "" {
		r.note("%s also wires cully (%q) beside the plugin: `cully uninstall%s%s` removes those entries", r.t.Settings, cmd, AgentFlags(r.in), r.t.Scope.Flags())
	}
	r.add(step{done: r.t.Settings + ": no change (cully is installed as " + r.in.Title() + "'s plugin)", would: r.t.Settings + ": would not change (cully is installed as " + r.in.Title() + "'s plugin)"})
	return true
}
