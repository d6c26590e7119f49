package cursor

import (
	"fmt"
	"strings"

	"cully/checkout"
	"cully/engine"
	"cully/hookbridge"
	"cully/jsonlite"
	"cully/redact"
)

// Decode turns one Cursor hook payload into an Event. Its user_email is
// never read: the journal holds no one's address.
func (Agent) Decode(raw []byte, env hookbridge.Env) (*engine.Event, error) {
	p, hook, err := hookbridge.ParsePayload(raw, "Cursor")
	if err != nil {
		return nil, err
	}
	ev := &engine.Event{
		V:       engine.SchemaVersion,
		Time:    env.Now.UTC(),
		Agent:   "cursor",
		Session: p.Str("conversation_id"),
		Hook:    hook,
		Kind:    hookKind(hook),
		Cwd:     redact.Path(cwdOf(p)),
		Tool:    hookTool(hook),
		Quiet:   env.Quiet,
	}
	switch ev.Kind {
	case engine.KindStop:
		ev.Source = p.Str("status")
	case engine.KindSessionEnd:
		ev.Source = p.Str("reason")
	case engine.KindCompact:
		ev.Source = p.Str("trigger")
	case engine.KindSubagent:
		ev.Source = "stop"
		if hook == "subagentStart" {
			ev.Source = "start"
		}
	case engine.KindPreTool:
		// No answer to a pre-tool hook reaches the model without a
		// permission decision, which cully makes only to refuse a halted
		// run's call (EncodeHalt): the rules run, and no nudge is composed
		// that no one would read.
		ev.Quiet = true
		decodeTool(ev, p, env)
	case engine.KindPostTool:
		decodeTool(ev, p, env)
	}
	return ev, nil
}

// cwdOf is a call's working directory: the shell hooks' cwd, else the
// workspace's first root.
func cwdOf(p jsonlite.Object) string {
	if c := p.Str("cwd"); c != "" {
		return c
	}
	return root(p)
}

// root is the workspace's first root folder.
func root(p jsonlite.Object) string {
	if roots := p.Items("workspace_roots"); len(roots) > 0 {
		return jsonlite.Str(roots[0])
	}
	return ""
}

// decodeTool fills class, target, command and outcome of a tool event.
func decodeTool(ev *engine.Event, p jsonlite.Object, env hookbridge.Env) {
	cfg := env.Config
	if cfg == nil {
		d := engine.DefaultConfig()
		cfg = &d
	}
	cwd := cwdOf(p)
	project := env.Var("CURSOR_PROJECT_DIR")
	if project == "" {
		project = root(p)
	}
	if project == "" {
		project = cwd
	}
	if ev.Tool == "" {
		ev.Tool = p.Str("tool_name") // an MCP tool
	}
	ev.Class = engine.ClassifyTool(ev.Tool)
	var abs string
	var cmd hookbridge.Command
	shell := ev.Tool == toolShell
	callInput := p["command"]
	switch {
	case shell:
		cmd = hookbridge.DescribeCommand(p.Str("command"), cfg)
		abs = cmd.Apply(ev, cwd)
	case ev.Tool == toolRead || ev.Tool == toolEdit:
		if path := p.Str("file_path"); path != "" {
			abs = hookbridge.AbsPath(path, cwd)
		}
		callInput = p["file_path"]
		if ev.Tool == toolEdit {
			callInput = append(append([]byte{}, p["file_path"]...), p["edits"]...)
		}
	default:
		callInput = p["tool_input"]
	}
	hookbridge.SetTarget(ev, abs, project, env.Stat, shell)
	ev.CallFP = engine.Fingerprint("call", ev.Tool, string(hookbridge.FingerprintHead(callInput)))
	if ev.Kind != engine.KindPostTool {
		return
	}
	var printed string
	switch {
	case shell:
		// afterShellExecution gives the output and the duration, no exit
		// status: nothing says the command succeeded.
		out := p.Str("output")
		ev.Outcome, ev.Note = engine.OutcomeUnknown, "no-exit-code"
		if ev.Class == engine.ClassCheck {
			checkOutput(ev, cmd, out)
		}
		printed = out
		if len(printed) > 64<<10 {
			printed = printed[:64<<10]
		}
	case ev.Tool == toolRead || ev.Tool == toolEdit:
		// The file was handed over, or edited: Cursor calls neither hook
		// for a read or an edit that did not happen.
		ev.Outcome = engine.OutcomeOK
	default:
		mcpOutcome(ev, p.Str("result_json"))
	}
	ev.OutFP = engine.Fingerprint("out", string(ev.Outcome), ev.FailSig, printed)
}

// mcpOutcome reads an MCP tool's result: MCP marks a failed call with
// isError, and a result that is not JSON says nothing.
func mcpOutcome(ev *engine.Event, result string) {
	res, err := jsonlite.ParseObject([]byte(result))
	switch {
	case err != nil:
		ev.Outcome = engine.OutcomeUnknown
	case res.Bool("isError"):
		ev.Outcome = engine.OutcomeFailed
		var text strings.Builder
		for _, item := range res.Items("content") {
			text.WriteString(jsonlite.AsObject(item).Str("text"))
			text.WriteByte('\n')
		}
		ev.FailSig = engine.FailureSignature(nil, text.String())
		ev.ErrSig = engine.ErrorSignature(text.String())
	default:
		ev.Outcome = engine.OutcomeOK
	}
}

// checkOutput reads a check's own output, the one thing that can settle
// its outcome here: the counts it printed go into the record, and the
// verdict it states becomes the outcome. What it does not settle stays
// unknown.
func checkOutput(ev *engine.Event, cmd hookbridge.Command, out string) {
	head, tail := checkout.Split([]byte(out), hookbridge.OutputWindow)
	outcome, tests, ok := hookbridge.CheckFromOutput(cmd.Norm, head, tail)
	ev.Tests = tests
	if !ok {
		return
	}
	hookbridge.TakeOutputOutcome(ev, outcome, head, tail)
}

// decodeHead salvages an Event from the head of a payload too large to
// decode whole: the members before the first one cut short. A tool call
// is still counted, with an unknown outcome, so a huge payload never makes
// the journal lose a call.
func decodeHead(agent string, head []byte, total int64, env hookbridge.Env) *engine.Event {
	p := jsonlite.Object{}
	_ = jsonlite.Members(head, func(k, v []byte) error {
		if key, ok := jsonlite.Unquote(k); ok {
			p[key] = v
		}
		return nil
	})
	hook := p.Str("hook_event_name")
	ev := &engine.Event{
		V:       engine.SchemaVersion,
		Time:    env.Now.UTC(),
		Agent:   agent,
		Session: p.Str("conversation_id"),
		Hook:    hook,
		Kind:    engine.KindOther,
		Cwd:     redact.Path(cwdOf(p)),
		Tool:    hookTool(hook),
		Note:    fmt.Sprintf("payload too large (%d bytes)", total),
		Quiet:   env.Quiet,
	}
	if ev.Tool == "" {
		ev.Tool = p.Str("tool_name")
	}
	switch k := hookKind(hook); k {
	case engine.KindPreTool:
		ev.Kind, ev.Quiet = k, true
	case engine.KindPostTool:
		ev.Kind, ev.Outcome = k, engine.OutcomeUnknown
	}
	if ev.Tool != "" {
		ev.Class = engine.ClassifyTool(ev.Tool)
		if ev.Tool == toolShell {
			ev.Class = engine.ClassRun
		}
	}
	if ev.Hook == "" {
		ev.Hook = "unknown"
	}
	return ev
}
