package gemini

import (
	"cully/engine"
	"cully/hookbridge"
)

// Agent is Gemini CLI.
type Agent struct{}

// Name is the --agent value and the journal's agent field.
func (Agent) Name() string { return "gemini" }

// Title is the agent's name as its users know it.
func (Agent) Title() string { return "Gemini CLI" }

// ProjectVars: Gemini CLI sets GEMINI_PROJECT_DIR (the session's working
// directory) for every hook command.
func (Agent) ProjectVars() []string { return []string{"GEMINI_PROJECT_DIR"} }

// hookKind maps Gemini CLI's hook events to the engine's kinds.
// PreCompress is not a compaction: the client fires it before deciding
// whether to compress, once a turn.
func hookKind(hook string) engine.Kind {
	switch hook {
	case "SessionStart":
		return engine.KindSessionStart
	case "SessionEnd":
		return engine.KindSessionEnd
	case "BeforeAgent":
		return engine.KindPrompt
	case "BeforeTool":
		return engine.KindPreTool
	case "AfterTool":
		return engine.KindPostTool
	case "AfterAgent":
		return engine.KindStop
	case "Notification":
		return engine.KindNotify
	}
	return engine.KindOther
}

// DecodeHead salvages a payload too large to decode whole: Gemini CLI
// writes session_id and hook_event_name first, and tool_name before the
// tool's input and result.
func (a Agent) DecodeHead(head []byte, total int64, env hookbridge.Env) *engine.Event {
	ev := hookbridge.DecodeOversize(a.Name(), head, total, env, hookKind)
	ev.Defer = ev.Kind == engine.KindPreTool || ev.Kind == engine.KindPostTool
	return ev
}
