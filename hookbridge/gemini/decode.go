package gemini

import (
	"strconv"
	"strings"

	"cully/engine"
	"cully/hookbridge"
	"cully/jsonlite"
	"cully/redact"
)

// Decode turns one Gemini CLI hook payload into an Event.
func (Agent) Decode(raw []byte, env hookbridge.Env) (*engine.Event, error) {
	p, hook, err := hookbridge.ParsePayload(raw, "Gemini CLI")
	if err != nil {
		return nil, err
	}
	ev := &engine.Event{
		V:       engine.SchemaVersion,
		Time:    env.Now.UTC(),
		Agent:   "gemini",
		Session: p.Str("session_id"),
		Hook:    hook,
		Kind:    hookKind(hook),
		Cwd:     redact.Path(p.Str("cwd")),
		Tool:    p.Str("tool_name"),
		Quiet:   env.Quiet,
	}
	if ev.Session == "" {
		ev.Session = env.Var("GEMINI_SESSION_ID")
	}
	switch hook {
	case "SessionStart":
		ev.Source = p.Str("source")
	case "SessionEnd":
		ev.Source = p.Str("reason")
	case "PreCompress":
		ev.Source = p.Str("trigger")
	}
	switch ev.Kind {
	case engine.KindPreTool, engine.KindPostTool:
		ev.Defer = true // BeforeTool's answer never reaches the model
		decodeTool(ev, p, env)
	case engine.KindStop, engine.KindSessionEnd:
		ev.Usage = sessionUsage(p.Str("transcript_path"), env)
		if ev.Kind == engine.KindStop { // AfterAgent: of the closing message, only what the idle-loop rule compares and the claim the turn-end checkpoints read
			ev.SetClosing(p.Str("prompt_response"))
			ev.Forced = p.Bool("stop_hook_active")
		}
	case engine.KindPrompt:
		ev.PromptFP = engine.PromptFingerprint(p.Str("prompt"))
		ev.PromptCmds = engine.PromptCommands(p.Str("prompt")) // fingerprints only: the text is never kept
	}
	return ev, nil
}

// decodeTool fills class, target, command and outcome of a tool event.
func decodeTool(ev *engine.Event, p jsonlite.Object, env hookbridge.Env) {
	in := p.Sub("tool_input") // tolerant: a shape we do not know leaves fields empty
	cwd := p.Str("cwd")
	cfg := env.Config
	if cfg == nil {
		d := engine.DefaultConfig()
		cfg = &d
	}
	project := env.Var("GEMINI_PROJECT_DIR")
	if project == "" {
		project = cwd
	}
	ev.Class = engine.ClassifyTool(ev.Tool)
	isShell := engine.IsShellTool(ev.Tool)
	var absTarget string
	var cmd hookbridge.Command
	if isShell {
		cmd = hookbridge.DescribeCommand(in.Str("command"), cfg)
		dir := cwd // the command runs in dir_path, from the workspace, when given
		if d := in.Str("dir_path"); d != "" {
			dir = hookbridge.AbsPath(d, cwd)
		}
		absTarget = cmd.Apply(ev, dir)
		if in.Bool("is_background") && ev.Class != engine.ClassPoll {
			ev.Note = "background"
		}
	} else {
		path := in.Str("file_path")
		if path == "" && ev.Tool == "list_directory" {
			path = in.Str("dir_path")
		}
		if path != "" {
			absTarget = hookbridge.AbsPath(path, cwd)
		}
		ev.Ranged = in.Present("start_line") || in.Present("end_line") || in.Present("offset") || in.Present("limit")
		// read_file shows at most its first 2000 lines and says so: a
		// large-read warning would repeat it.
		ev.Bounded = ev.Tool == "read_file"
	}
	if searchTool(ev.Tool) {
		ev.SearchFP = engine.SearchFP(in.Str("pattern"))
	}
	hookbridge.SetTarget(ev, absTarget, project, env.Stat, isShell)
	ev.CallFP = engine.Fingerprint("call", ev.Tool, string(hookbridge.FingerprintHead(p["tool_input"])))
	if ev.Kind != engine.KindPostTool {
		return
	}
	if ev.Tool == "write_todos" { // the agent's plan: the token runaway's measure of progress
		ev.Plan = todoProgress(in)
	}
	resp := p.Sub("tool_response")
	if isShell {
		shellOutcome(ev, resp)
		cmd.SetMatches(ev) // a shell search's exit status: whether it found anything
	} else if errObj := resp.Sub("error"); resp.Present("error") && string(resp["error"]) != "null" {
		ev.Outcome = engine.OutcomeFailed
		msg := errObj.Str("message")
		if msg == "" {
			msg = resp.Str("llmContent")
		}
		ev.FailSig = engine.FailureSignature(nil, errObj.Str("type")+"\n"+msg)
		ev.ErrSig = engine.ErrorSignature(msg)
	} else {
		ev.Outcome = engine.OutcomeOK
	}
	if searchTool(ev.Tool) && ev.SearchFP != "" && ev.Outcome == engine.OutcomeOK {
		ev.Matches = searchFound(resp.Str("llmContent"))
	}
	if ev.Class == engine.ClassCheck && cmd.Shell.Masked && ev.Outcome == engine.OutcomeOK {
		ev.Outcome, ev.Note = engine.OutcomeUnknown, "masked"
	}
	if ev.Class == engine.ClassCheck && isShell && (ev.Note == "" || ev.Note == "masked" || ev.Note == "timeout") {
		checkOutput(ev, resp, cmd.Norm)
	}
	var printed []byte
	if isShell {
		printed = hookbridge.FingerprintHead(resp["llmContent"])
	}
	ev.OutFP = engine.Fingerprint("out", string(ev.Outcome), ev.FailSig, stripPGID(string(printed)))
}

// The lines run_shell_command's result ends with, after the command's
// output (Gemini CLI 0.61's shell tool): the ones cully reads, and the
// process group, which differs on every run.
const (
	secExit = "\nExit Code: "
	secPGID = "\nProcess Group PGID: "
)

// shellOutcome reads a shell call's outcome from its result text: an
// "Exit Code: N" line for a non-zero exit, none for 0; a command cancelled
// (by the user, or by the client's own timeout) or moved to the background
// did not finish.
func shellOutcome(ev *engine.Event, resp jsonlite.Object) {
	text := resp.Str("llmContent")
	body := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(text), "<untrusted_context>"), "</untrusted_context>"))
	switch {
	case strings.HasPrefix(body, "Command moved to background"):
		ev.Outcome, ev.Note = engine.OutcomeUnknown, "background"
		return
	case strings.HasPrefix(body, "Command was automatically cancelled because it exceeded the timeout"):
		ev.Outcome, ev.Note = engine.OutcomeFailed, "timeout"
		ev.FailSig = engine.FailureSignature(nil, "timeout")
		return
	case strings.HasPrefix(body, "Command was cancelled"):
		ev.Outcome, ev.Note = engine.OutcomeUnknown, "interrupted"
		return
	case !strings.HasPrefix(body, "Output: "):
		ev.Outcome = engine.OutcomeUnknown // a shape this client version does not write
		return
	}
	tail := trailer(body)
	output := strings.TrimPrefix(body[:len(body)-len(tail)], "Output: ")
	code, hasCode := exitCode(tail)
	switch {
	case hasCode:
		ev.Exit = &code
	case strings.Contains(tail, "\nSignal: "), strings.Contains(tail, "\nError: "):
	default:
		zero := 0
		ev.Exit = &zero
		ev.Outcome = engine.OutcomeOK
		return
	}
	ev.Outcome = engine.OutcomeFailed
	ev.FailSig = engine.FailureSignature(ev.Exit, output)
	ev.ErrSig = engine.ErrorSignature(output)
	hookbridge.SetMissing(ev, output)
}

// trailer returns the part of a shell result after the command's output:
// the lines the tool adds (Error, Exit Code, Signal, Background PIDs,
// Process Group PGID), found from the end so that output which happens to
// print such a line is not taken for them.
func trailer(body string) string {
	start := len(body)
	for {
		i := strings.LastIndexByte(body[:start], '\n')
		if i < 0 {
			return body[start:]
		}
		line := body[i+1 : start]
		known := false
		for _, p := range [...]string{"Error: ", "Exit Code: ", "Signal: ", "Background PIDs: ", "Process Group PGID: "} {
			known = known || strings.HasPrefix(line, p)
		}
		if !known {
			return body[start:]
		}
		start = i
	}
}

func exitCode(tail string) (int, bool) {
	i := strings.Index(tail, secExit)
	if i < 0 {
		return 0, false
	}
	rest := tail[i+len(secExit):]
	if j := strings.IndexByte(rest, '\n'); j >= 0 {
		rest = rest[:j]
	}
	n, err := strconv.Atoi(strings.TrimSpace(rest))
	return n, err == nil
}

// stripPGID drops the process group line, so that two runs that printed
// the same are the same answer.
func stripPGID(s string) string {
	if i := strings.LastIndex(s, secPGID); i >= 0 {
		j := strings.IndexByte(s[i+1:], '\n')
		if j < 0 {
			return s[:i]
		}
		return s[:i] + s[i+1+j:]
	}
	return s
}

// checkOutput reads a check's own output: its counts, and, when a pipe or
// a chain hid its status, the outcome it states.
func checkOutput(ev *engine.Event, resp jsonlite.Object, command string) {
	head, tail := hookbridge.OutputEdges(resp["llmContent"])
	outcome, tests, ok := hookbridge.CheckFromOutput(command, head, tail)
	ev.Tests = tests
	if !ok || ev.Note != "masked" {
		return
	}
	hookbridge.TakeOutputOutcome(ev, outcome, head, tail)
}

// todoProgress reads write_todos' list ({"todos":[{"description",
// "status"}]}, status pending, in_progress, completed or cancelled): items
// done of those not cancelled.
func todoProgress(in jsonlite.Object) *engine.PlanProgress {
	p := &engine.PlanProgress{}
	for _, raw := range in.Items("todos") {
		switch jsonlite.AsObject(raw).Str("status") {
		case "cancelled":
		case "completed":
			p.Done++
			p.Total++
		default:
			p.Total++
		}
	}
	if p.Total == 0 {
		return nil
	}
	return p
}

// searchTool: Gemini CLI's content and file searches (grep_search, once
// search_file_content; glob), whose input names a pattern.
func searchTool(tool string) bool {
	return tool == "grep_search" || tool == "search_file_content" || tool == "glob"
}

// searchFound reads what a search's result says it found: "No matches
// found …", "No files found …" (0) or "Found N match(es) …", "Found N
// file(s) …" (N); nil for any other text. Only the count is kept.
func searchFound(text string) *int {
	text = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(text), "<untrusted_context>"))
	if strings.HasPrefix(text, "No matches found") || strings.HasPrefix(text, "No files found") {
		n := 0
		return &n
	}
	rest, ok := strings.CutPrefix(text, "Found ")
	if !ok {
		return nil
	}
	n, i := 0, 0
	for ; i < len(rest) && rest[i] >= '0' && rest[i] <= '9' && i < 9; i++ {
		n = n*10 + int(rest[i]-'0')
	}
	if i == 0 {
		return nil
	}
	return &n
}
