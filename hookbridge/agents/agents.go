package agents

import (
	"fmt"
	"strings"

	"cully/hookbridge"
	"cully/hookbridge/claude"
	"cully/hookbridge/codex"
	"cully/hookbridge/copilot"
	"cully/hookbridge/cursor"
	"cully/hookbridge/gemini"
	"cully/hookbridge/opencode"
)

// Default is the agent a hook call speaks when it names none.
const Default = "claude"

// All are the adapters, in the order commands list them.
func All() []hookbridge.Agent {
	return []hookbridge.Agent{
		claude.Agent{},
		codex.Agent{},
		gemini.Agent{},
		opencode.Agent{},
		copilot.Agent{},
		cursor.Agent{},
	}
}

// Lookup finds an adapter by its --agent name ("" is Default).
func Lookup(name string) (hookbridge.Agent, error) {
	if name == "" {
		name = Default
	}
	for _, a := range All() {
		if a.Name() == name {
			return a, nil
		}
	}
	return nil, fmt.Errorf("unknown agent %q (supported: %s)", name, Names())
}

// ForCall finds the adapter for one hook call: the one its entry names
// (Lookup), unless another agent's environment says the call is that
// agent's running the named one's entry (a Guest).
func ForCall(name string, getenv func(string) string) (hookbridge.Agent, error) {
	a, err := Lookup(name)
	if err != nil || getenv == nil {
		return a, err
	}
	for _, b := range All() {
		if g, ok := b.(hookbridge.Guest); ok && g.Name() != a.Name() && g.Hosts(a.Name(), getenv) {
			return g, nil
		}
	}
	return a, nil
}

// HalterFor is the agent's Halter capability, if it has one.
func HalterFor(a hookbridge.Agent) (hookbridge.Halter, bool) {
	h, ok := a.(hookbridge.Halter)
	return h, ok
}

// CompleterFor is the agent's Completer capability, if it has one.
func CompleterFor(a hookbridge.Agent) (hookbridge.Completer, bool) {
	c, ok := a.(hookbridge.Completer)
	return c, ok
}

// Names lists the supported --agent values.
func Names() string {
	var n []string
	for _, a := range All() {
		n = append(n, a.Name())
	}
	return strings.Join(n, ", ")
}

// ProjectVars are every adapter's project-root variables, for commands
// that run outside a hook and do not know which agent is asking.
func ProjectVars() []string {
	var v []string
	for _, a := range All() {
		v = append(v, a.ProjectVars()...)
	}
	return v
}
