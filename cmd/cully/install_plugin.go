package main

import (
	"encoding/json"
	"fmt"

	"cully/hookbridge"
	"cully/installrun"
	"cully/plugin"
)

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

// pluginChecks are doctor's lines for an agent running cully as its
// plugin: installed that way, and twice over when its settings wire
// cully too (wired: the scopes that do).
func pluginChecks(in hookbridge.Installer, p installrun.PluginAt, wired []wired) []check {
	cs := []check{{OK: true, What: fmt.Sprintf("%s: cully is installed as its plugin (%s in %s)", in.Title(), p.How, p.Where)}}
	for _, w := range wired {
		cs = append(cs, check{Warn: true, What: fmt.Sprintf("%s: cully is wired in %s (%q) as well as by its plugin: %s runs both, so every call is recorded twice", in.Title(), w.t.Settings, w.cmd, in.Title()),
			Fix: "cully uninstall" + installrun.AgentFlags(in) + w.t.Scope.Flags()})
	}
	return cs
}
