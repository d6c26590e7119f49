package opencode

import (
	"cully/engine"
	"cully/hookbridge"
	"cully/jsonlite"
	"cully/redact"
)

// Decode turns one payload of cully's opencode plugin into an Event.
func (Agent) Decode(raw []byte, env hookbridge.Env) (*engine.Event, error) {
	p, hook, err := hookbridge.ParsePayload(raw, "opencode")
	if err != nil {
		return nil, err
	}
	ev := &engine.Event{
		V:         engine.SchemaVersion,
		Time:      env.Now.UTC(),
		Agent:     "opencode",
		Session:   p.Str("session_id"),
		Hook:      hook,
		Kind:      hookKind(hook),
		Cwd:       redact.Path(p.Str("cwd")),
		Tool:      p.Str("tool_name"),
		ToolUseID: p.Str("tool_use_id"),
		Quiet:     env.Quiet,
	}
	if ev.Kind == engine.KindPreTool || ev.Kind == engine.KindPostTool {
		ev.Defer = true // tool.execute.before cannot speak to the model
		decodeTool(ev, p, env)
	}
	return ev, nil
}

// classify is opencode's tool names on top of the engine's common ones.
func classify(tool string) engine.Class {
	switch tool {
	case "list":
		return engine.ClassRead
	case "patch":
		return engine.ClassEdit
	case "todowrite", "todoread", "task", "skill":
		return engine.ClassOther
	}
	return engine.ClassifyTool(tool)
}

// decodeTool fills class, target, command and outcome of a tool event.
// opencode's tool arguments are camelCase (filePath).
func decodeTool(ev *engine.Event, p jsonlite.Object, env hookbridge.Env) {
	in := p.Sub("tool_input")
	cwd := p.Str("cwd")
	cfg := env.Config
	if cfg == nil {
		d := engine.DefaultConfig()
		cfg = &d
	}
	project := env.Var("OPENCODE_PROJECT_DIR")
	if project == "" {
		project = cwd
	}
	ev.Class = classify(ev.Tool)
	isShell := engine.IsShellTool(ev.Tool)
	var absTarget string
	var cmd hookbridge.Command
	if isShell {
		cmd = hookbridge.DescribeCommand(in.Str("command"), cfg)
		dir := cwd
		if w := in.Str("workdir"); w != "" {
			dir = hookbridge.AbsPath(w, cwd)
		}
		absTarget = cmd.Apply(ev, dir)
	} else {
		path := in.Str("filePath")
		if path == "" && ev.Tool == "list" {
			path = in.Str("path")
		}
		if path != "" {
			absTarget = hookbridge.AbsPath(path, cwd)
		}
		ev.Ranged = in.Present("offset") || in.Present("limit")
		// read shows at most its first 2000 lines and says so.
		ev.Bounded = ev.Tool == "read"
	}
	hookbridge.SetTarget(ev, absTarget, project, env.Stat, isShell)
	ev.CallFP = engine.Fingerprint("call", ev.Tool, string(hookbridge.FingerprintHead(p["tool_input"])))
	if ev.Kind != engine.KindPostTool {
		return
	}
	resp := p.Sub("tool_response")
	switch {
	case ev.Hook == evToolError:
		msg := p.Str("error")
		ev.Outcome = engine.OutcomeFailed
		ev.FailSig = engine.FailureSignature(nil, msg)
		ev.ErrSig = engine.ErrorSignature(msg)
	case isShell:
		meta := resp.Sub("metadata")
		exit := meta["exit"]
		if len(exit) == 0 || string(exit) == "null" {
			// No status: the command was killed (timeout, abort).
			ev.Outcome, ev.Note = engine.OutcomeUnknown, "no-exit"
			break
		}
		code := int(jsonlite.Int(exit))
		ev.Exit = &code
		if code == 0 {
			ev.Outcome = engine.OutcomeOK
		} else {
			out := resp.Str("output")
			ev.Outcome = engine.OutcomeFailed
			ev.FailSig = engine.FailureSignature(ev.Exit, out)
			ev.ErrSig = engine.ErrorSignature(out)
			hookbridge.SetMissing(ev, out)
		}
	default:
		ev.Outcome = engine.OutcomeOK // a tool that fails throws: tool.error
	}
	if ev.Class == engine.ClassCheck && cmd.Shell.Masked && ev.Outcome == engine.OutcomeOK {
		ev.Outcome, ev.Note = engine.OutcomeUnknown, "masked"
	}
	if ev.Class == engine.ClassCheck && isShell && ev.Hook == evAfter && (ev.Note == "" || ev.Note == "masked") {
		head, tail := hookbridge.OutputEdges(resp["output"])
		outcome, tests, ok := hookbridge.CheckFromOutput(cmd.Norm, head, tail)
		ev.Tests = tests
		if ok && ev.Note == "masked" {
			ev.Outcome, ev.Note = outcome, "from-output"
			if outcome == engine.OutcomeFailed {
				ev.FailSig = engine.FailureSignature(nil, string(tail))
				ev.ErrSig = engine.ErrorSignature(string(tail))
			}
		}
	}
	var printed []byte
	if isShell {
		printed = hookbridge.FingerprintHead(resp["output"])
	}
	ev.OutFP = engine.Fingerprint("out", string(ev.Outcome), ev.FailSig, string(printed))
}
