package copilot

import (
	"cully/engine"
	"cully/hookbridge"
)

// Agent is GitHub Copilot CLI.
type Agent struct{}

// Name is the --agent value and the journal's agent field.
func (Agent) Name() string { return "copilot" }

// Title is the agent's name as its users know it.
func (Agent) Title() string { return "GitHub Copilot CLI" }

// ProjectVars: Copilot CLI sets COPILOT_PROJECT_DIR for every hook command
// (measured; it sets CLAUDE_PROJECT_DIR to the same folder too).
func (Agent) ProjectVars() []string { return []string{"COPILOT_PROJECT_DIR"} }

// Hosts: Copilot CLI runs the Claude Code hooks of a repository's
// .claude/settings*.json too, with its VS Code-compatible payloads and
// COPILOT_CLI=1 in their environment (measured), where Claude Code's own
// calls have CLAUDECODE=1: such a call is Copilot CLI's, decoded as such
// (Claude Code's decoder would take its failing commands for successes).
func (Agent) Hosts(agent string, getenv func(string) string) bool {
	return agent == "claude" && getenv("COPILOT_CLI") == "1" && getenv("CLAUDECODE") == ""
}

// EventVar is the environment variable each installed hook entry sets to
// its event's name: Copilot CLI's camelCase payloads do not name the event
// they are for.
const EventVar = "CULLY_HOOK_EVENT"

// hookKind maps Copilot CLI's hook events to the engine's kinds: its own
// camelCase names, and the PascalCase ones of its VS Code-compatible format
// (whose payloads name themselves).
func hookKind(hook string) engine.Kind {
	switch hook {
	case "sessionStart", "SessionStart":
		return engine.KindSessionStart
	case "sessionEnd", "SessionEnd":
		return engine.KindSessionEnd
	case "userPromptSubmitted", "UserPromptSubmit":
		return engine.KindPrompt
	case "preToolUse", "PreToolUse":
		return engine.KindPreTool
	case "postToolUse", "postToolUseFailure", "PostToolUse", "PostToolUseFailure":
		return engine.KindPostTool
	case "preCompact", "PreCompact":
		return engine.KindCompact
	case "agentStop", "Stop":
		return engine.KindStop
	case "subagentStart", "subagentStop", "SubagentStop":
		return engine.KindSubagent
	case "notification", "Notification":
		return engine.KindNotify
	}
	return engine.KindOther
}

// canonical is the Claude Code name of a Copilot CLI tool, as Copilot CLI
// itself maps them for Claude-format hooks (its hooks reference), plus its
// tools that poll a background shell or agent: the engine classifies by
// these names. A tool it does not map keeps its own name.
func canonical(tool string) string {
	switch tool {
	case "bash", "powershell", "Bash":
		return "Bash"
	case "view", "Read":
		return "Read"
	case "create", "Write":
		return "Write"
	case "edit", "str_replace_editor", "apply_patch", "Edit":
		return "Edit"
	case "grep", "rg", "Grep":
		return "Grep"
	case "glob", "Glob":
		return "Glob"
	case "web_fetch", "WebFetch":
		return "WebFetch"
	case "web_search", "WebSearch":
		return "WebSearch"
	case "ask_user", "AskUserQuestion":
		return "AskUserQuestion"
	case "exit_plan_mode":
		return "ExitPlanMode"
	case "update_todo":
		return "TodoWrite"
	case "task":
		return "Agent"
	case "read_bash", "write_bash", "list_bash", "read_agent", "write_agent", "list_agents":
		return "BashOutput" // waits on or reads a background shell or agent
	case "stop_bash":
		return "KillShell"
	}
	return tool
}

// DecodeHead salvages a payload too large to decode whole: Copilot CLI
// writes sessionId, cwd and toolName before toolArgs and toolResult.
func (a Agent) DecodeHead(head []byte, total int64, env hookbridge.Env) *engine.Event {
	return decodeHead(a.Name(), head, total, env)
}
