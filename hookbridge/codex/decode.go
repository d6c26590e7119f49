package codex

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"cully/engine"
	"cully/hookbridge"
	"cully/jsonlite"
	"cully/redact"
)

// Codex's tool names as its hooks see them: every shell command is "Bash"
// (exec_command, shell, unified exec), and every file edit apply_patch,
// its patch text in tool_input.command.
const (
	toolShell = "Bash"
	toolPatch = "apply_patch"
)

// noExit is the note of a command whose exit code the rollout did not hold
// when its PostToolUse hook ran: its outcome is unknown.
const noExit = "no-exit-code"

// ended is how a call ended, as the rollout tells it (nil: not known).
type ended struct {
	exit   *int
	status string // completed, failed, declined
}

// decodeError is this package's error type: a constant, so no error value
// is built at start-up.
type decodeError string

func (e decodeError) Error() string { return string(e) }

const errNoHook = decodeError("decode Codex payload: no hook_event_name")

// Decode turns one Codex hook payload into an Event. A command's outcome
// is unknown here (the payload holds no exit code): Complete reads it from
// the rollout.
func (Agent) Decode(raw []byte, env hookbridge.Env) (*engine.Event, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, hookbridge.ErrEmpty
	}
	p, err := jsonlite.ParseObject(raw)
	if err != nil {
		return nil, fmt.Errorf("decode Codex payload: %w", jsonlite.Where(raw, err))
	}
	return decodePayload(p, env, nil)
}

// decodePayload is Decode after the parse; end, when known, is how the
// call ended (from the rollout: Complete for the hook, the rollout's own
// records for a replay).
func decodePayload(p jsonlite.Object, env hookbridge.Env, end *ended) (*engine.Event, error) {
	hook := p.Str("hook_event_name")
	if hook == "" {
		return nil, errNoHook
	}
	ev := &engine.Event{
		V:              engine.SchemaVersion,
		Time:           env.Now.UTC(),
		Agent:          "codex",
		Session:        p.Str("session_id"),
		Hook:           hook,
		Kind:           hookKind(hook),
		Subagent:       p.Str("agent_id"),
		Cwd:            redact.Path(p.Str("cwd")),
		Tool:           p.Str("tool_name"),
		ToolUseID:      p.Str("tool_use_id"),
		PromptID:       hookbridge.HostID(p.Str("turn_id")),
		Quiet:          env.Quiet,
		TranscriptPath: p.Str("transcript_path"),
	}
	if m := p.Str("model"); m != "" {
		ev.Usage = &engine.HostUsage{Model: m}
	}
	switch hook {
	case "SessionStart":
		ev.Source = p.Str("source")
	case "SessionEnd":
		ev.Source = p.Str("reason")
	case "PreCompact", "PostCompact":
		ev.Source = p.Str("trigger")
	case "SubagentStart":
		ev.Source = "start"
	case "SubagentStop":
		ev.Source = "stop"
	}
	switch ev.Kind {
	case engine.KindPreTool, engine.KindPostTool:
		decodeTool(ev, p, env, end)
	case engine.KindStop: // of the closing message, only what the idle-loop rule compares and the claim the turn-end checkpoints read
		ev.SetClosing(p.Str("last_assistant_message"))
		ev.Forced = p.Bool("stop_hook_active")
	case engine.KindPrompt:
		ev.PromptFP = engine.PromptFingerprint(p.Str("prompt"))
	}
	if ev.Kind == engine.KindPrompt {
		ev.PromptCmds = engine.PromptCommands(p.Str("prompt")) // fingerprints only: the text is never kept
	}
	return ev, nil
}

// decodeTool fills class, target, command and outcome of a tool event.
func decodeTool(ev *engine.Event, p jsonlite.Object, env hookbridge.Env, end *ended) {
	in := p.Sub("tool_input") // tolerant: a shape we do not know leaves fields empty
	cwd := p.Str("cwd")
	cfg := env.Config
	if cfg == nil {
		d := engine.DefaultConfig()
		cfg = &d
	}
	project := cwd // Codex runs in the session's folder and names no other root
	rel := func(path string) string {
		return redact.Path(hookbridge.RelPath(hookbridge.AbsPath(path, cwd), project))
	}
	ev.Class = engine.ClassifyTool(ev.Tool)
	isShell := ev.Tool == toolShell || engine.IsShellTool(ev.Tool)
	var cmd hookbridge.Command
	var absTarget string
	switch {
	case isShell:
		cmd = hookbridge.DescribeCommand(in.Str("command"), cfg)
		absTarget = cmd.Apply(ev, cwd)
	case ev.Tool == toolPatch:
		ev.Class = engine.ClassEdit
		files := patchFiles(in.Str("command"))
		ev.Created = patchAddsOnly(in.Str("command"))
		for i, f := range files {
			if i == 0 {
				absTarget = hookbridge.AbsPath(f, cwd)
				continue
			}
			ev.Files = append(ev.Files, rel(f))
		}
	}
	hookbridge.SetTarget(ev, absTarget, project, env.Stat, isShell)
	ev.CallFP = engine.Fingerprint("call", ev.Tool, string(hookbridge.FingerprintHead(p["tool_input"])))
	if ev.Kind != engine.KindPostTool {
		return
	}
	resp := p["tool_response"]
	defer func() {
		var printed []byte
		if isShell {
			printed = hookbridge.FingerprintHead(resp)
		}
		ev.OutFP = engine.Fingerprint("out", string(ev.Outcome), ev.FailSig, string(printed))
	}()
	text := responseText(resp)
	if ev.Tool == toolPatch && (end == nil || end.exit == nil) {
		// apply_patch's own answer starts with its exit code.
		if code, body, ok := parseExitCode(text); ok {
			e := ended{exit: &code}
			if end != nil {
				e.status = end.status
			}
			end, text = &e, body
		}
	}
	switch {
	case end == nil:
		ev.Outcome = engine.OutcomeUnknown
		if isShell || ev.Tool == toolPatch {
			ev.Note = noExit
		}
	case end.status == "declined":
		ev.Outcome, ev.Note = engine.OutcomeUnknown, "declined"
	case end.exit != nil && *end.exit == 0, end.exit == nil && end.status == "completed":
		ev.Outcome, ev.Exit = engine.OutcomeOK, end.exit
	case end.exit != nil || end.status == "failed":
		ev.Outcome, ev.Exit = engine.OutcomeFailed, end.exit
		ev.FailSig = engine.FailureSignature(ev.Exit, outputBody(text))
		ev.ErrSig = engine.ErrorSignature(outputBody(text))
		if isShell {
			hookbridge.SetMissing(ev, outputBody(text))
		}
	default:
		ev.Outcome = engine.OutcomeUnknown
	}
	cmd.SetMatches(ev) // a shell search's exit status: whether it found anything
	// A check whose status is hidden behind a pipe or ';' proves nothing by
	// its exit status; its own output may still say how it went.
	if ev.Class == engine.ClassCheck && cmd.Shell.Masked && ev.Outcome == engine.OutcomeOK {
		ev.Outcome, ev.Note = engine.OutcomeUnknown, "masked"
	}
	if ev.Class == engine.ClassCheck && isShell && (ev.Note == "" || ev.Note == "masked" || ev.Note == noExit) {
		checkOutput(ev, resp, cmd.Norm)
	}
}

// checkOutput reads a check's own output: the counts it printed go into
// the record, and a run whose status a pipe hid, or whose exit code the
// rollout did not hold yet, takes the outcome the output states.
func checkOutput(ev *engine.Event, resp []byte, command string) {
	head, tail := hookbridge.OutputEdges(resp)
	outcome, tests, ok := hookbridge.CheckFromOutput(command, head, tail)
	ev.Tests = tests
	if !ok || ev.Outcome != engine.OutcomeUnknown {
		return
	}
	ev.Outcome, ev.Note = outcome, "from-output"
	if outcome == engine.OutcomeFailed {
		text := string(head)
		if len(tail) > 0 && string(tail) != text {
			text = string(tail)
		}
		ev.FailSig = engine.FailureSignature(nil, outputBody(text))
		ev.ErrSig = engine.ErrorSignature(outputBody(text))
	}
}

// outputBody is a command's output without the lines Codex puts before it
// ("Chunk ID: …", "Wall time: 0.4 seconds", "Process exited with code 1",
// "Original token count: …", and in code mode "Script completed" or
// "Script running with cell ID 27"), up to its "Output:" line. Those lines
// are the same for every failure: kept, they made the error signature of
// three different failing tests one and the same, and a failure loop of
// them (the one nudge the corpus's Codex sessions raised, labelled noise).
func outputBody(text string) string {
	rest := text
	for range 8 {
		line, after, ok := strings.Cut(rest, "\n")
		t := strings.TrimSpace(line)
		switch {
		case t == "Output:":
			return after
		case !ok:
			return text
		case strings.HasPrefix(t, "Chunk ID:"), strings.HasPrefix(t, "Wall time"), strings.HasPrefix(t, "Process exited with code"),
			strings.HasPrefix(t, "Process running with session ID"), strings.HasPrefix(t, "Original token count"),
			strings.HasPrefix(t, "Script completed"), strings.HasPrefix(t, "Script running with cell ID"), strings.HasPrefix(t, "Script failed"),
			strings.HasPrefix(t, "Exit code:"), strings.HasPrefix(t, "Total output lines:"), t == "":
			rest = after
		default:
			return text
		}
	}
	return text
}

// responseText is the head of a tool_response, as text: Codex gives a
// command's output (and apply_patch's report) as one string.
func responseText(resp []byte) string {
	if len(resp) == 0 || resp[0] != '"' {
		return string(hookbridge.FingerprintHead(resp))
	}
	head, _ := hookbridge.OutputEdges(resp)
	return string(head)
}

// parseExitCode reads apply_patch's "Exit code: N" first line; it returns
// the code, the text after the header lines, and whether it was there.
func parseExitCode(msg string) (int, string, bool) {
	const prefix = "Exit code: "
	if !strings.HasPrefix(msg, prefix) {
		return 0, msg, false
	}
	line, rest, _ := strings.Cut(msg[len(prefix):], "\n")
	n, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		return 0, msg, false
	}
	if _, out, ok := strings.Cut(rest, "Output:\n"); ok {
		rest = out
	}
	return n, rest, true
}
