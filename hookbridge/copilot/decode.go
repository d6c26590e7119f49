package copilot

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"cully/checkout"
	"cully/engine"
	"cully/hookbridge"
	"cully/jsonlite"
	"cully/redact"
)

// str reads the first of a payload's keys that holds a string: Copilot
// CLI's camelCase name, then the snake_case one of its VS Code-compatible
// format.
func str(p jsonlite.Object, keys ...string) string {
	for _, k := range keys {
		if s := p.Str(k); s != "" {
			return s
		}
	}
	return ""
}

// eventName is the hook event a payload is for: the entry's EventVar (the
// camelCase payloads name none), else the payload's own name (its
// notification and VS Code-compatible payloads carry hook_event_name).
func eventName(p jsonlite.Object, env hookbridge.Env) string {
	if e := env.Var(EventVar); e != "" {
		return e
	}
	return str(p, "hook_event_name", "hookName")
}

// notificationMark starts a "prompt" that is Copilot CLI telling the agent
// something (a background shell finished), not the user asking: it arrives
// as userPromptSubmitted (measured), and is no new task.
const notificationMark = "<system_notification>"

// Decode turns one Copilot CLI hook payload into an Event.
func (Agent) Decode(raw []byte, env hookbridge.Env) (*engine.Event, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, hookbridge.ErrEmpty
	}
	p, err := jsonlite.ParseObject(raw)
	if err != nil {
		return nil, fmt.Errorf("decode GitHub Copilot CLI payload: %w", jsonlite.Where(raw, err))
	}
	hook := eventName(p, env)
	if hook == "" {
		return nil, errors.New("decode GitHub Copilot CLI payload: no event name (" + EventVar + " is unset and the payload names none)")
	}
	ev := &engine.Event{
		V:       engine.SchemaVersion,
		Time:    env.Now.UTC(),
		Agent:   "copilot",
		Session: str(p, "sessionId", "session_id"),
		Hook:    hook,
		Kind:    hookKind(hook),
		Cwd:     redact.Path(p.Str("cwd")),
		Tool:    str(p, "toolName", "tool_name"),
		Quiet:   env.Quiet,
	}
	switch ev.Kind {
	case engine.KindSessionStart:
		ev.Source = p.Str("source")
	case engine.KindSessionEnd:
		ev.Source = p.Str("reason")
	case engine.KindCompact:
		ev.Source = p.Str("trigger")
	case engine.KindStop:
		ev.Source = str(p, "stopReason", "stop_reason")
		// agentStop names no closing message (measured): the idle-loop
		// rule has nothing to compare; a Stop hook's forcing it on is said.
		ev.Forced = p.Bool("stop_hook_active")
	case engine.KindSubagent:
		ev.Subagent = str(p, "agentName", "agent_name")
		ev.Source = "stop"
		if hook == "subagentStart" {
			ev.Source = "start"
		}
	case engine.KindPrompt:
		if strings.HasPrefix(strings.TrimSpace(p.Str("prompt")), notificationMark) {
			ev.Kind, ev.Source = engine.KindNotify, "system_notification"
		} else {
			ev.PromptFP = engine.PromptFingerprint(p.Str("prompt"))
			ev.PromptCmds = engine.PromptCommands(p.Str("prompt")) // fingerprints only: the text is never kept
		}
	case engine.KindNotify:
		ev.Source = p.Str("notification_type")
	case engine.KindPreTool, engine.KindPostTool:
		decodeTool(ev, p, env)
	}
	return ev, nil
}

// toolArgs is a call's arguments as an object: Copilot CLI sends them as
// one (measured), its documentation allows a JSON string holding one.
func toolArgs(p jsonlite.Object) (jsonlite.Object, []byte) {
	raw := p["toolArgs"]
	if raw == nil {
		raw = p["tool_input"]
	}
	if s, ok := jsonlite.Unquote(raw); ok {
		raw = []byte(s)
	}
	return jsonlite.AsObject(raw), raw
}

// decodeTool fills class, target, command and outcome of a tool event.
func decodeTool(ev *engine.Event, p jsonlite.Object, env hookbridge.Env) {
	args, rawArgs := toolArgs(p)
	cwd := p.Str("cwd")
	cfg := env.Config
	if cfg == nil {
		d := engine.DefaultConfig()
		cfg = &d
	}
	project := env.Var("COPILOT_PROJECT_DIR")
	if project == "" {
		project = cwd
	}
	name := canonical(ev.Tool)
	ev.Class = engine.ClassifyTool(name)
	shell := engine.IsShellTool(name)
	var cmd hookbridge.Command
	var abs string
	background := args.Str("mode") == "async"
	if shell {
		cmd = hookbridge.DescribeCommand(args.Str("command"), cfg)
		abs = cmd.Apply(ev, cwd)
		if background && ev.Class != engine.ClassPoll {
			ev.Note = "background"
		}
	} else if path := args.Str("path"); path != "" && (ev.Class == engine.ClassRead || ev.Class == engine.ClassEdit) {
		abs = hookbridge.AbsPath(path, cwd)
		ev.Ranged = args.Present("view_range")
		// view truncates a file over 20 KB unless told otherwise (its
		// description to the model): the host bounds the read itself.
		ev.Bounded = name == "Read" && !args.Bool("forceReadLargeFiles")
	}
	hookbridge.SetTarget(ev, abs, project, env.Stat, shell)
	ev.CallFP = engine.Fingerprint("call", ev.Tool, string(hookbridge.FingerprintHead(rawArgs)))
	if ev.Kind != engine.KindPostTool {
		return
	}
	var text string // what the tool answered: its result, or its error
	if strings.HasSuffix(ev.Hook, "Failure") {
		text = errorText(p["error"])
		ev.Outcome = engine.OutcomeFailed
	} else {
		res := p.Sub("toolResult")
		if len(res) == 0 {
			res = p.Sub("tool_result")
		}
		text = str(res, "textResultForLlm", "text_result_for_llm")
		switch str(res, "resultType", "result_type") {
		case "success":
			ev.Outcome = engine.OutcomeOK
		case "failure", "error":
			ev.Outcome = engine.OutcomeFailed
		case "denied":
			ev.Outcome, ev.Note = engine.OutcomeUnknown, "denied"
		default:
			ev.Outcome = engine.OutcomeUnknown
		}
	}
	body := text
	if shell {
		body = shellOutcome(ev, text, background)
		cmd.SetMatches(ev) // a shell search's exit status: whether it found anything
	}
	if ev.Outcome == engine.OutcomeFailed {
		ev.FailSig = engine.FailureSignature(ev.Exit, body)
		ev.ErrSig = engine.ErrorSignature(body)
		if shell {
			hookbridge.SetMissing(ev, body)
		}
	}
	if shell && ev.Class == engine.ClassCheck {
		checkOutput(ev, cmd, body)
	}
	var printed string
	if shell {
		printed = body
		if len(printed) > 64<<10 {
			printed = printed[:64<<10]
		}
	}
	ev.OutFP = engine.Fingerprint("out", string(ev.Outcome), ev.FailSig, printed)
}

func errorText(raw []byte) string {
	if s, ok := jsonlite.Unquote(raw); ok {
		return s
	}
	if m := jsonlite.AsObject(raw); m != nil { // errorOccurred's {message, name, stack}
		return m.Str("message")
	}
	return string(raw)
}

// A shell call's result ends with a line that gives its exit status
// ("<shellId: 3 completed with exit code 1>", measured) when it ran to the
// end; a call started in the background, or still running when its wait
// ran out, ends otherwise.
const (
	exitMark       = "exit code "
	backgroundMark = "<command started in background"
)

// shellOutcome reads a shell call's exit status from the end of its result
// and returns what the command printed (the result without that line). A
// success the status does not confirm is unknown: only exit 0 is a pass.
func shellOutcome(ev *engine.Event, text string, background bool) string {
	body, last := text, ""
	trimmed := strings.TrimRight(text, " \t\r\n")
	if i := strings.LastIndexByte(trimmed, '\n'); i >= 0 {
		body, last = trimmed[:i], trimmed[i+1:]
	} else {
		body, last = "", trimmed
	}
	code, ok := exitCode(last)
	if !ok {
		body = text
	}
	switch {
	case ok:
		ev.Exit = &code
		if code != 0 {
			ev.Outcome = engine.OutcomeFailed
		} else if ev.Outcome != engine.OutcomeFailed {
			ev.Outcome = engine.OutcomeOK
		}
	case ev.Outcome == engine.OutcomeFailed:
		// postToolUseFailure: the tool itself failed (refused, or no shell)
	case background || strings.HasPrefix(strings.TrimSpace(text), backgroundMark):
		ev.Outcome, ev.Note = engine.OutcomeUnknown, "background"
	default:
		ev.Outcome = engine.OutcomeUnknown
		if ev.Note == "" {
			ev.Note = "no-exit-code"
		}
	}
	return body
}

// exitCode parses the status line of a shell result: "<… exit code N>".
func exitCode(line string) (int, bool) {
	if !strings.HasPrefix(line, "<") || !strings.HasSuffix(line, ">") {
		return 0, false
	}
	i := strings.LastIndex(line, exitMark)
	if i < 0 {
		return 0, false
	}
	n, err := strconv.Atoi(line[i+len(exitMark) : len(line)-1])
	return n, err == nil
}

// checkOutput reads a check's own output: the counts it printed go into
// the record, and a run whose status a pipe or a chain hid, or that gave
// none, takes the outcome its output states. What the output does not
// settle stays unknown.
func checkOutput(ev *engine.Event, cmd hookbridge.Command, body string) {
	if cmd.Shell.Masked && ev.Outcome == engine.OutcomeOK {
		ev.Outcome, ev.Note = engine.OutcomeUnknown, "masked"
	}
	head, tail := checkout.Split([]byte(body), hookbridge.OutputWindow)
	outcome, tests, ok := hookbridge.CheckFromOutput(cmd.Norm, head, tail)
	ev.Tests = tests
	if !ok || ev.Outcome != engine.OutcomeUnknown || ev.Note == "background" {
		return
	}
	hookbridge.TakeOutputOutcome(ev, outcome, head, tail)
}

// decodeHead salvages an Event from the head of a payload too large to
// decode whole: the members before the first one cut short (Copilot CLI
// writes sessionId, cwd and toolName first). A tool call is still counted,
// with an unknown outcome, so a huge payload never makes the journal lose
// a call.
func decodeHead(agent string, head []byte, total int64, env hookbridge.Env) *engine.Event {
	p := jsonlite.Object{}
	_ = jsonlite.Members(head, func(k, v []byte) error {
		if key, ok := jsonlite.Unquote(k); ok {
			p[key] = v
		}
		return nil
	})
	hook := eventName(p, env)
	ev := &engine.Event{
		V:       engine.SchemaVersion,
		Time:    env.Now.UTC(),
		Agent:   agent,
		Session: str(p, "sessionId", "session_id"),
		Hook:    hook,
		Kind:    engine.KindOther,
		Cwd:     redact.Path(p.Str("cwd")),
		Tool:    str(p, "toolName", "tool_name"),
		Note:    fmt.Sprintf("payload too large (%d bytes)", total),
		Quiet:   env.Quiet,
	}
	switch k := hookKind(hook); k {
	case engine.KindPreTool:
		ev.Kind = k
	case engine.KindPostTool:
		ev.Kind, ev.Outcome = k, engine.OutcomeUnknown
	}
	if ev.Tool != "" {
		name := canonical(ev.Tool)
		ev.Class = engine.ClassifyTool(name)
		if engine.IsShellTool(name) {
			ev.Class = engine.ClassRun
		}
	}
	if ev.Hook == "" {
		ev.Hook = "unknown"
	}
	return ev
}
