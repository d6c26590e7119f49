package claude

import (
	"cully/engine"
	"cully/hookbridge"
)

// Agent is Claude Code.
type Agent struct{}

// Name is the --agent value and the journal's agent field.
func (Agent) Name() string { return "claude" }

// Title is the agent's name as its users know it.
func (Agent) Title() string { return "Claude Code" }

// ProjectVars: Claude Code sets CLAUDE_PROJECT_DIR for every hook command.
func (Agent) ProjectVars() []string { return []string{"CLAUDE_PROJECT_DIR"} }

// hookKinds maps Claude Code's hook events to the engine's kinds.
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
	case "PostToolUse", "PostToolUseFailure":
		return engine.KindPostTool
	case "PostToolBatch":
		return engine.KindBatch
	case "PreCompact":
		return engine.KindCompact
	case "Stop", "StopFailure":
		return engine.KindStop
	case "SubagentStart", "SubagentStop":
		return engine.KindSubagent
	case "Notification":
		return engine.KindNotify
	}
	return engine.KindOther
}

// DecodeHead salvages a payload too large to decode whole: Claude Code
// writes session_id, hook_event_name and tool_name before the large values.
func (a Agent) DecodeHead(head []byte, total int64, env hookbridge.Env) *engine.Event {
	return hookbridge.DecodeOversize(a.Name(), head, total, env, hookKind)
}
