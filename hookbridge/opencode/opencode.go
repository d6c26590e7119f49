package opencode

import (
	"cully/engine"
	"cully/hookbridge"
)

// Agent is opencode.
type Agent struct{}

// Name is the --agent value and the journal's agent field.
func (Agent) Name() string { return "opencode" }

// Title is the agent's name as its users know it.
func (Agent) Title() string { return "opencode" }

// ProjectVars: cully's plugin sets OPENCODE_PROJECT_DIR (the session's
// worktree) for every call of the hook.
func (Agent) ProjectVars() []string { return []string{"OPENCODE_PROJECT_DIR"} }

// The events the plugin sends: opencode's own hook and event names, and
// tool.error for a tool that threw.
const (
	evBefore    = "tool.execute.before"
	evAfter     = "tool.execute.after"
	evToolError = "tool.error"
	evMessage   = "chat.message"
	evCreated   = "session.created"
	evIdle      = "session.idle"
	evCompacted = "session.compacted"
	evDeleted   = "session.deleted"
)

func hookKind(hook string) engine.Kind {
	switch hook {
	case evBefore:
		return engine.KindPreTool
	case evAfter, evToolError:
		return engine.KindPostTool
	case evMessage:
		return engine.KindPrompt
	case evCreated:
		return engine.KindSessionStart
	case evIdle:
		return engine.KindStop
	case evCompacted:
		return engine.KindCompact
	case evDeleted:
		return engine.KindSessionEnd
	}
	return engine.KindOther
}

// DecodeHead salvages a payload too large to decode whole: the plugin
// writes the event, session and tool before the call's input and output.
func (a Agent) DecodeHead(head []byte, total int64, env hookbridge.Env) *engine.Event {
	ev := hookbridge.DecodeOversize(a.Name(), head, total, env, hookKind)
	ev.Defer = ev.Kind == engine.KindPreTool || ev.Kind == engine.KindPostTool
	return ev
}
