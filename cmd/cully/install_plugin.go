package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"cully/hookbridge"
	"cully/plugin"
)

// pluginAt is a host's install of cully as its plugin (Claude Code's
// plugin, the Gemini CLI extension, the opencode npm package): where the
// host says so, and the hook command the plugin runs.
type pluginAt struct {
	where string // the file that says the plugin is installed
	how   string // what it says there, for messages
}

// pluginInstall finds cully installed as the agent's plugin here, in the
// files the host reads to know its plugins: Claude Code's enabledPlugins
// (a "cully@<marketplace>" set to true, in the user's settings or the
// project's), Gemini CLI's extensions folder, opencode's "plugin" list.
func pluginInstall(in hookbridge.Installer, at hookbridge.Place) (pluginAt, bool) {
	var files []string
	for _, scope := range installScopes {
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
					return pluginAt{f, fmt.Sprintf("enabledPlugins %q", k)}, true
				}
			}
		}
	case "gemini":
		if len(files) > 0 {
			ext := filepath.Join(filepath.Dir(files[0]), "extensions", plugin.Name, "gemini-extension.json")
			var m struct{ Name string }
			if b, err := os.ReadFile(ext); err == nil && json.Unmarshal(b, &m) == nil && m.Name == plugin.Name {
				return pluginAt{ext, "the extension " + plugin.Name}, true
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
					return pluginAt{f, fmt.Sprintf("the plugin %q", p)}, true
				}
			}
		}
	}
	return pluginAt{}, false
}

// pluginHookCommand is the hook command the agent's shipped plugin runs
// ("" when cully ships no plugin for it).
func pluginHookCommand(agent string) string {
	files, err := plugin.Shipped()
	if err != nil {
		return ""
	}
	for _, f := range files {
		switch {
		case agent == "claude" && f.Path == plugin.ClaudeDir+"/hooks/hooks.json",
			agent == "gemini" && f.Path == plugin.GeminiDir+"/hooks/hooks.json":
			var h struct {
				Hooks map[string][]struct{ Hooks []struct{ Command string } }
			}
			if json.Unmarshal(f.Data, &h) == nil {
				for _, groups := range h.Hooks {
					if len(groups) > 0 && len(groups[0].Hooks) > 0 {
						return groups[0].Hooks[0].Command
					}
				}
			}
		case agent == "opencode" && f.Path == plugin.OpencodeDir+"/cully.js":
			return plugin.HookCommand
		}
	}
	return ""
}

// pluginSkip is install's answer when cully is installed as the agent's
// plugin: the plugin's hooks already run cully, so install writes no
// hooks or skills of its own (the host would run both, and record every
// call twice), and says so. It reports whether it skipped.
func (r *installRun) pluginSkip() bool {
	p, ok := pluginInstall(r.in, r.at)
	if !ok {
		return false
	}
	r.note("%s runs cully as its plugin (%s in %s): its hooks already call cully, so install writes no hooks or skills of its own, which %s would run as well and record every call twice; to use install instead, remove the plugin first", r.in.Title(), p.how, p.where, r.in.Title())
	if _, cmd := r.wiredIn(r.t.Scope); cmd != "" {
		r.note("%s also wires cully (%q) beside the plugin: `cully uninstall%s%s` removes those entries", r.t.Settings, cmd, agentFlags(r.in), r.t.Scope.Flags())
	}
	r.add(step{done: r.t.Settings + ": no change (cully is installed as " + r.in.Title() + "'s plugin)", would: r.t.Settings + ": would not change (cully is installed as " + r.in.Title() + "'s plugin)"})
	return true
}

// pluginChecks are doctor's lines for an agent running cully as its
// plugin: installed that way, and twice over when its settings wire
// cully too (wired: the scopes that do).
func pluginChecks(in hookbridge.Installer, p pluginAt, wired []wired) []check {
	cs := []check{{OK: true, What: fmt.Sprintf("%s: cully is installed as its plugin (%s in %s)", in.Title(), p.how, p.where)}}
	for _, w := range wired {
		cs = append(cs, check{Warn: true, What: fmt.Sprintf("%s: cully is wired in %s (%q) as well as by its plugin: %s runs both, so every call is recorded twice", in.Title(), w.t.Settings, w.cmd, in.Title()),
			Fix: "cully uninstall" + agentFlags(in) + w.t.Scope.Flags()})
	}
	return cs
}
