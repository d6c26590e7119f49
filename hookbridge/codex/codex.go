package codex

import (
	"cully/engine"
	"cully/hookbridge"
)

// Agent is Codex.
type Agent struct{}

// Name is the --agent value and the journal's agent field.
func (Agent) Name() string { return "codex" }

// Title is the agent's name as its users know it.
func (Agent) Title() string { return "Codex" }

// ProjectVars: Codex names no project root in its hook environment; it
// runs each hook in the session's working directory, which is where the
// hook looks when no variable is given.
func (Agent) ProjectVars() []string { return nil }

// hookKind maps Codex's hook events to the engine's kinds.
func hookKind(hook string) engine.Kind {
	switch hook {
	case "SessionStart":
		return engine.KindSessionStart
	case "SessionEnd":
		return engine.KindSessionEnd
	case "UserPromptSubmit":
		return engine.KindPrompt
	case "PreToolUse":
		return engine.KindPreTool
	case "PostToolUse":
		return engine.KindPostTool
	case "PreCompact":
		return engine.KindCompact
	case "Stop":
		return engine.KindStop
	case "SubagentStart", "SubagentStop":
		return engine.KindSubagent
	}
	return engine.KindOther // PermissionRequest, PostCompact, Interrupt
}

// DecodeHead salvages a payload too large to decode whole: Codex writes
// session_id, turn_id, transcript_path, cwd, hook_event_name, model and
// tool_name before tool_input and tool_response.
func (a Agent) DecodeHead(head []byte, total int64, env hookbridge.Env) *engine.Event {
	return hookbridge.DecodeOversize(a.Name(), head, total, env, hookKind)
}
