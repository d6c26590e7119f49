package claude

import (
	"encoding/json"
	"os"

	"cully/install"
)

// Wires reports whether a Claude Code settings file holds a cully hook
// entry. Other hosts run the Claude Code hooks they find (GitHub Copilot
// CLI a repository's, measured; Cursor with its third-party hooks setting):
// their doctors warn that such calls are recorded twice.
func Wires(path string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var s struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if json.Unmarshal(b, &s) != nil {
		return false
	}
	for _, groups := range s.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				if install.IsCullyCommand(h.Command) {
					return true
				}
			}
		}
	}
	return false
}
