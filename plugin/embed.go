// Package plugin holds the plugin files cully installs into agents that
// run plugins rather than hook commands (opencode). Only the CLI imports
// it: the hook binary links none of this text.
package plugin

import (
	_ "embed"
)

// Opencode is cully's opencode plugin. Its HOOK constant holds
// Placeholder, which install replaces with the hook's command line.
//
//go:embed opencode.js
var Opencode string

// Placeholder is the quoted string in a plugin that stands for the hook's
// command line.
const Placeholder = `"__CULLY_HOOK__"`

// For returns the plugin text an agent's installation writes ("" when the
// agent takes hook commands in its settings instead).
func For(agent string) string {
	if agent == "opencode" {
		return Opencode
	}
	return ""
}
