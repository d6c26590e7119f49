package claude

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"cully/engine"
	"cully/hookbridge"
	"cully/jsonlite"
	"cully/redact"
)

// parseExitCode reads Claude Code's "Exit code N" error prefix; it returns
// the code, the text after that first line, and whether the prefix was there.
func parseExitCode(msg string) (int, string, bool) {
	const prefix = "Exit code "
	if !strings.HasPrefix(msg, prefix) {
		return 0, msg, false
	}
	rest := msg[len(prefix):]
	end := strings.IndexByte(rest, '\n')
	line := rest
	if end >= 0 {
		line, rest = rest[:end], rest[end+1:]
	} else {
		rest = ""
	}
	n, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		return 0, msg, false
	}
	return n, rest, true
}

// Decode turns one Claude Code hook payload into an Event.
func (Agent) Decode(raw []byte, env hookbridge.Env) (*engine.Event, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, hookbridge.ErrEmpty
	}
	p, err := jsonlite.ParseObject(raw)
	if err != nil {
		return nil, fmt.Errorf("decode Claude Code payload: %w", jsonlite.Where(raw, err))
	}
	return decodePayload(p, env, nil)
}

// decodePayload is Decode after the parse: a payload's members, raw, to an
// Event. Replay builds its payloads as members and starts here, with a
// memo of the shell commands it has decoded (nil for the hook).
func decodePayload(p jsonlite.Object, env hookbridge.Env, memo shellMemo) (*engine.Event, error) {
	hook := p.Str("hook_event_name")
	if hook == "" {
		return nil, errors.New("decode Claude Code payload: no hook_event_name")
	}
	ev := &engine.Event{
		V:         engine.SchemaVersion,
		Time:      env.Now.UTC(),
		Agent:     "claude",
		Session:   p.Str("session_id"),
		Hook:      hook,
		Subagent:  p.Str("agent_id"),
		Cwd:       redact.Path(p.Str("cwd")),
		Tool:      p.Str("tool_name"),
		ToolUseID: p.Str("tool_use_id"),
		PromptID:  hookbridge.HostID(p.Str("prompt_id")),
		Quiet:     env.Quiet,
		// The transcript, for the token figures (Complete): never journaled.
		TranscriptPath: p.Str("transcript_path"),
	}
	if ev.Session == "" {
		ev.Session = env.Var("CLAUDE_CODE_SESSION_ID")
	}
	switch env.Var("CLAUDE_CODE_SESSION_ATTENDED") {
	case "0":
		f := false
		ev.Attended = &f
	case "1":
		t := true
		ev.Attended = &t
	}
	ev.Kind = hookKind(hook)
	switch hook {
	case "SessionStart":
		ev.Source = p.Str("source")
	case "SessionEnd":
		ev.Source = p.Str("reason")
	case "PreCompact":
		ev.Source = p.Str("trigger")
	case "Notification": // what it tells the user: permission_prompt, idle_prompt, elicitation_dialog …
		ev.Source = p.Str("notification_type")
	case "SubagentStart":
		ev.Source = "start"
	case "SubagentStop":
		ev.Source = "stop"
	case "StopFailure": // the turn ended on an error the client could not recover from (the API's)
		ev.Source, ev.Note = engine.StopError, hookbridge.Preview(p.Str("error"))
	}
	switch ev.Kind {
	case engine.KindPreTool, engine.KindPostTool:
		decodeTool(ev, p, env, memo)
	case engine.KindStop: // of the closing message, only what the idle-loop rule compares and the claim the turn-end checkpoints read
		if hook != "Stop" { // StopFailure: an API error ended the turn, not the agent
			break
		}
		ev.SetClosing(p.Str("last_assistant_message"))
		ev.Forced = p.Bool("stop_hook_active")
	case engine.KindPrompt: // fingerprints only: the text is never kept
		ev.PromptFP = engine.PromptFingerprint(p.Str("prompt"))
		ev.PromptCmds = engine.PromptCommands(p.Str("prompt"))
	case engine.KindBatch:
		ev.Rejected = decodeRejected(p, env)
	}
	return ev, nil
}

// rejectedMark starts the batch's tool_response of a call the client
// refused in validation, before any PreToolUse/PostToolUse hook: such a
// call shows up nowhere else (testdata/capture-sequence/028-PostToolBatch.json).
const rejectedMark = "<tool_use_error>"

// userRejected starts what Claude Code answers for a call the user refused
// at its permission prompt; userSaid follows when they refused it with a
// message (how to proceed instead).
const (
	userRejected = "The user doesn't want to proceed with this tool use."
	userSaid     = "the user said:"
)

// siblingErrored is what Claude Code answers for the calls of a parallel
// batch it cancelled because one of them failed: those calls never ran, so
// they are neither failures nor refusals of their own.
const siblingErrored = "Sibling tool call errored"

// decodeRejected finds the batch's calls that no tool hook saw.
func decodeRejected(p jsonlite.Object, env hookbridge.Env) []engine.Rejected {
	var out []engine.Rejected
	for _, raw := range p.Items("tool_calls") {
		call := jsonlite.AsObject(raw)
		resp, ok := jsonlite.Unquote(call["tool_response"])
		if !ok || !strings.HasPrefix(resp, rejectedMark) || strings.Contains(resp, siblingErrored) || strings.Contains(resp, userRejected) {
			continue // a call the user refused is no failed attempt (its PostToolUseFailure says so)
		}
		msg := strings.TrimSuffix(strings.TrimPrefix(resp, rejectedMark), "</tool_use_error>")
		sub := jsonlite.Object{"tool_name": call["tool_name"], "tool_input": call["tool_input"], "cwd": p["cwd"]}
		ev := &engine.Event{Tool: call.Str("tool_name"), Kind: engine.KindPreTool}
		decodeTool(ev, sub, hookbridge.Env{Getenv: env.Getenv, Config: env.Config}, nil) // no stat: nothing ran
		out = append(out, engine.Rejected{Tool: ev.Tool, Class: ev.Class, Target: ev.Target, FP: ev.CmdFP,
			Sig: engine.FailureSignature(nil, msg)})
	}
	return out
}

// The members of a shell call's tool_response that decodeTool reads; a
// replay keeps only these of a transcript's tool result (responseMembers).
const (
	respInterrupted = "interrupted"
	respBackground  = "backgroundTaskId"
	respStdout      = "stdout" // a check's output: its outcome when a pipe hid the status
	respType        = "type"   // Write's: "create" for a new file, "update" for one it replaced
	respStderr      = "stderr"
	// What Grep and Glob report they found: files, or the lines of a
	// content search ("mode": "content").
	respMode     = "mode"
	respNumFiles = "numFiles"
	respNumLines = "numLines"
)

// respMembers lists them, in the order a replay writes them.
var respMembers = []string{respInterrupted, respBackground, respStdout, respStderr, respMode, respNumFiles, respNumLines}

// shellMemo remembers hookbridge.DescribeCommand by command text, for one
// replay (one config): a call's post event decodes the command its pre
// event did, and sessions run the same commands again and again.
type shellMemo map[string]hookbridge.Command

func (m shellMemo) call(command string, cfg *engine.Config) hookbridge.Command {
	if c, ok := m[command]; ok {
		return c
	}
	c := hookbridge.DescribeCommand(command, cfg)
	if m != nil {
		m[command] = c
	}
	return c
}

// decodeTool fills class, target, command and outcome of a tool event.
func decodeTool(ev *engine.Event, p jsonlite.Object, env hookbridge.Env, memo shellMemo) {
	in := p.Sub("tool_input") // tolerant: a shape we do not know leaves fields empty
	cwd := p.Str("cwd")
	cfg := env.Config
	if cfg == nil {
		d := engine.DefaultConfig()
		cfg = &d
	}
	projectDir := env.Var("CLAUDE_PROJECT_DIR")
	if projectDir == "" {
		projectDir = cwd
	}
	ev.Class = engine.ClassifyTool(ev.Tool)
	var absTarget string
	var shell engine.Shell
	var command string // the normalized, redacted command line
	var desc hookbridge.Command
	isShell := engine.IsShellTool(ev.Tool)
	background := in.Bool("run_in_background")
	switch {
	case isShell:
		desc = memo.call(in.Str("command"), cfg)
		shell, command = desc.Shell, desc.Norm
		absTarget = desc.Apply(ev, cwd)
		if background && ev.Class != engine.ClassPoll {
			ev.Note = "background"
		}
	default:
		path := in.Str("file_path")
		if path == "" {
			path = in.Str("notebook_path")
		}
		if path == "" && ev.Class == engine.ClassRead && strings.EqualFold(ev.Tool, "LS") {
			path = in.Str("path")
		}
		if path != "" {
			absTarget = hookbridge.AbsPath(path, cwd)
		}
		ev.Ranged = in.Present("offset") || in.Present("limit") || in.Present("pages")
		// Claude Code's Read refuses a whole read of a file over its own
		// limit, with the same advice cully would give.
		ev.Bounded = ev.Tool == "Read"
		if ev.Tool == "Grep" || ev.Tool == "Glob" {
			ev.SearchFP = engine.SearchFP(in.Str("pattern"))
			if f := strings.TrimSpace(in.Str("glob") + " " + in.Str("type")); f != "" {
				ev.FilterFP = engine.Fingerprint("filter", f)
			}
		}
	}
	hookbridge.SetTarget(ev, absTarget, projectDir, env.Stat, isShell)
	ev.CallFP = engine.Fingerprint("call", ev.Tool, string(hookbridge.FingerprintHead(p["tool_input"])))
	if ev.Tool == "TodoWrite" {
		ev.Plan = todoProgress(in)
	}
	if ev.Kind != engine.KindPostTool {
		return
	}
	defer func() {
		// The outcome, and for a command the head of what it printed. A
		// read's or an edit's result is not hashed: the same call on the
		// same file returns the same, and anything that changed the file
		// in between is another call that breaks any repetition.
		var printed []byte
		if isShell {
			resp := p.Sub("tool_response")
			printed = append(hookbridge.FingerprintHead(resp[respStdout]), hookbridge.FingerprintHead(resp[respStderr])...)
		}
		ev.OutFP = engine.Fingerprint("out", string(ev.Outcome), ev.FailSig, string(printed))
	}()
	// Outcome: PostToolUse means success, PostToolUseFailure a failure, with
	// the exit code parsed from the error text where the host put it.
	if ev.Hook == "PostToolUse" {
		ev.Outcome = engine.OutcomeOK
		ev.Created = ev.Tool == "Write" && p.Sub("tool_response").Str(respType) == "create"
		if isShell {
			resp := p.Sub("tool_response")
			switch {
			case resp.Bool(respInterrupted):
				ev.Outcome, ev.Note = engine.OutcomeUnknown, "interrupted"
			case resp.Str(respBackground) != "" || background:
				ev.Outcome, ev.Note = engine.OutcomeUnknown, "background"
			default:
				zero := 0
				ev.Exit = &zero
			}
		}
	} else {
		ev.Outcome = engine.OutcomeFailed
		msg := errorText(p["error"])
		code, body, ok := parseExitCode(msg)
		if ok {
			ev.Exit = &code
		}
		switch {
		case p.Bool("is_interrupt"):
			ev.Outcome, ev.Note = engine.OutcomeUnknown, "interrupted"
		case strings.Contains(msg, siblingErrored):
			ev.Outcome, ev.Note = engine.OutcomeUnknown, "cancelled"
		case strings.Contains(body, "Command timed out"):
			ev.Note = "timeout"
		case strings.HasPrefix(msg, userRejected):
			// The user refused the call: it never ran, so it failed at
			// nothing; with a message, the user is steering.
			ev.Outcome, ev.Note = engine.OutcomeUnknown, engine.NoteRejected
			if strings.Contains(msg, userSaid) {
				ev.Note = engine.NoteSteered
			}
		}
		if ev.Outcome == engine.OutcomeFailed {
			ev.FailSig = engine.FailureSignature(ev.Exit, body)
			ev.ErrSig = engine.ErrorSignature(body)
			if isShell {
				hookbridge.SetMissing(ev, body)
			}
		}
	}
	searchResult(ev, p, desc, isShell)
	// A check whose status is hidden behind a pipe or ';' proves nothing by
	// its exit status; its own output may still say how it went.
	if ev.Class == engine.ClassCheck && shell.Masked && ev.Outcome == engine.OutcomeOK {
		ev.Outcome, ev.Note = engine.OutcomeUnknown, "masked"
	}
	if ev.Class == engine.ClassCheck && isShell && (ev.Note == "" || ev.Note == "masked" || ev.Note == "timeout") {
		checkOutput(ev, p, command)
	}
}

func errorText(raw []byte) string {
	if s, ok := jsonlite.Unquote(raw); ok {
		return s
	}
	return string(raw)
}

// checkOutput reads a check's own output (the head and tail of it): the
// counts it printed go into the record, and a run whose status a pipe or a
// chain hid takes the outcome the output states. What the output does not
// settle stays unknown.
func checkOutput(ev *engine.Event, p jsonlite.Object, command string) {
	var head, tail []byte
	if ev.Hook == "PostToolUse" {
		resp := p.Sub("tool_response")
		head, tail = hookbridge.OutputEdges(resp[respStdout], resp[respStderr])
	} else {
		head, tail = hookbridge.OutputEdges(p["error"])
	}
	outcome, tests, ok := hookbridge.CheckFromOutput(command, head, tail)
	ev.Tests = tests
	if !ok || ev.Note != "masked" {
		return
	}
	hookbridge.TakeOutputOutcome(ev, outcome, head, tail)
}

// todoProgress is the agent's plan as a TodoWrite call sets it: its items
// "completed" of all of them; nil when the list is empty or unreadable.
func todoProgress(in jsonlite.Object) *engine.PlanProgress {
	p := &engine.PlanProgress{}
	for _, raw := range in.Items("todos") {
		p.Total++
		if jsonlite.AsObject(raw).Str("status") == "completed" {
			p.Done++
		}
	}
	if p.Total == 0 {
		return nil
	}
	return p
}

// searchResult sets what a search found: Grep's and Glob's own counts, a
// shell search's exit status (Claude Code reports exit 1 as a failure,
// "Exit code 1" and what it printed). The result's text is never kept.
func searchResult(ev *engine.Event, p jsonlite.Object, desc hookbridge.Command, isShell bool) {
	if ev.SearchFP == "" {
		return
	}
	if isShell {
		desc.SetMatches(ev)
		return
	}
	resp := p.Sub("tool_response")
	if ev.Outcome != engine.OutcomeOK || !resp.Present(respNumFiles) && !resp.Present(respNumLines) {
		return
	}
	n := int(resp.Int(respNumFiles))
	if resp.Str(respMode) == "content" {
		n = int(resp.Int(respNumLines))
	}
	ev.Matches = &n
}
