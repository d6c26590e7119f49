package cursor

import (
	"cully/engine"
	"cully/hookbridge"
)

// Agent is Cursor (its agent: Agent Chat, Cmd+K and cursor-agent).
type Agent struct{}

// Name is the --agent value and the journal's agent field.
func (Agent) Name() string { return "cursor" }

// Title is the agent's name as its users know it.
func (Agent) Title() string { return "Cursor" }

// ProjectVars: Cursor sets CURSOR_PROJECT_DIR for hook commands (from
// third-party hook scripts; its payloads' workspace_roots say the same).
func (Agent) ProjectVars() []string { return []string{"CURSOR_PROJECT_DIR"} }

// The tool names cully records for Cursor's hooks that name no tool.
const (
	toolShell = "Shell"
	toolRead  = "Read"
	toolEdit  = "Edit"
)

// hookKind maps Cursor's hook events to the engine's kinds. A read is
// booked at beforeReadFile, the only hook a read has: Cursor hands the
// hook the file's content, so the read has happened unless a hook denies it.
func hookKind(hook string) engine.Kind {
	switch hook {
	case "sessionStart":
		return engine.KindSessionStart
	case "sessionEnd":
		return engine.KindSessionEnd
	case "beforeSubmitPrompt":
		return engine.KindPrompt
	case "beforeShellExecution", "beforeMCPExecution":
		return engine.KindPreTool
	case "afterShellExecution", "afterMCPExecution", "afterFileEdit", "beforeReadFile":
		return engine.KindPostTool
	case "preCompact":
		return engine.KindCompact
	case "stop":
		return engine.KindStop
	case "subagentStart", "subagentStop":
		return engine.KindSubagent
	}
	return engine.KindOther
}

// hookTool is the tool a hook is about ("" for an MCP hook, which names
// its own, and for the hooks about no tool).
func hookTool(hook string) string {
	switch hook {
	case "beforeShellExecution", "afterShellExecution":
		return toolShell
	case "beforeReadFile":
		return toolRead
	case "afterFileEdit":
		return toolEdit
	}
	return ""
}

// DecodeHead salvages a payload too large to decode whole.
func (a Agent) DecodeHead(head []byte, total int64, env hookbridge.Env) *engine.Event {
	return decodeHead(a.Name(), head, total, env)
}
