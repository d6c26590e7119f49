package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"time"

	"cully/engine"
	"cully/hookbridge"
	"cully/hookbridge/codex"
	"cully/jsonlite"
)

// A Codex session's context comes from its rollouts in two readings:
//
//   - cully's own replay of them (codex.Agent.ReplaySession), which names
//     each call as the rules saw it (a shell command as Bash, a code-mode
//     script as the call it makes), gives each call's outcome, and finds
//     the call a nudge was said before (by its time, tool and preview);
//   - a reading of the lines here, for what the replay does not carry:
//     the user's prompts (event_msg user_message), what the agent wrote
//     (response_item message, role assistant), each call's whole command
//     and the head of its output.
//
// The two meet on the call id.

// isRollout tells a Codex rollout from a Claude Code transcript by the
// session's first file.
func isRollout(files []string) bool {
	if len(files) == 0 {
		return false
	}
	f, err := os.Open(files[0])
	if err != nil {
		return false
	}
	defer f.Close()
	id, _ := codex.Agent{}.Identify(f)
	return id != ""
}

// replayedCall is one call as cully's replay saw it.
type replayedCall struct {
	at            time.Time
	tool, preview string
	id            string
	outcome       engine.Outcome
	exit          *int
	done          bool // its PostToolUse was seen
}

// codexSession reads one Codex session's rollouts.
func codexSession(files []string) *session {
	var data [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		data = append(data, b)
	}
	calls, byID := replayCalls(data)
	items := rolloutItems(data, byID)
	return &session{items: items, locate: func(n nudge) int { return locateCall(n, items, calls) }}
}

// replayCalls replays the rollouts as `cully replay` does and keeps the
// tool calls, in order and by id.
func replayCalls(data [][]byte) ([]*replayedCall, map[string]*replayedCall) {
	var calls []*replayedCall
	byID := map[string]*replayedCall{}
	readers := make([]io.Reader, len(data))
	for i, b := range data {
		readers[i] = bytes.NewReader(b)
	}
	cfg := engine.DefaultConfig()
	_, _ = codex.Agent{}.ReplaySession(readers, &cfg, func(ev *engine.Event) error {
		switch ev.Kind {
		case engine.KindPreTool:
			c := &replayedCall{at: ev.Time, tool: ev.Tool, preview: ev.Cmd, id: ev.ToolUseID}
			if c.preview == "" {
				c.preview = ev.Target
			}
			calls = append(calls, c)
			if c.id != "" {
				byID[c.id] = c
			}
		case engine.KindPostTool:
			if c := byID[ev.ToolUseID]; c != nil {
				c.outcome, c.exit, c.done = ev.Outcome, ev.Exit, true
			}
		}
		return nil
	})
	return calls, byID
}

// locateCall finds the call a nudge was said before: the replayed call at
// the nudge's time with its tool and preview (else its tool, else any),
// then that call among the items; failing that, the first call at or
// after the nudge's time.
func locateCall(n nudge, items []item, calls []*replayedCall) int {
	var id string
	for pass := 0; pass < 3 && id == ""; pass++ {
		for _, c := range calls {
			if !c.at.Equal(n.Time) || c.id == "" {
				continue
			}
			if pass == 0 && (c.tool != n.Tool || c.preview != n.Preview) || pass == 1 && c.tool != n.Tool {
				continue
			}
			id = c.id
			break
		}
	}
	if id != "" {
		for i, it := range items {
			if it.kind == "call" && it.id == id {
				return i
			}
		}
	}
	return callAt(n, items)
}

// rolloutItems reads the rollouts' lines, each line once, in order.
func rolloutItems(data [][]byte, calls map[string]*replayedCall) []item {
	seen := map[string]bool{}
	var items []item
	prompts := false
	var last time.Time
	for _, b := range data {
		_, _ = hookbridge.Lines(bytes.NewReader(b), func(line []byte) error {
			if seen[string(line)] {
				return nil
			}
			seen[string(line)] = true
			var typ, payload, ts []byte
			if jsonlite.Members(line, func(k, v []byte) error {
				switch string(k) {
				case `"type"`:
					typ = v
				case `"payload"`:
					payload = v
				case `"timestamp"`:
					ts = v
				}
				return nil
			}) != nil {
				return nil
			}
			if t, err := time.Parse(time.RFC3339Nano, jsonlite.Str(ts)); err == nil {
				last = t
			}
			pl := jsonlite.AsObject(payload)
			switch string(typ) {
			case `"event_msg"`:
				if pl.Str("type") == "user_message" {
					if msg := pl.Str("message"); strings.TrimSpace(msg) != "" {
						prompts = true
						items = append(items, item{at: last, kind: "prompt", body: msg})
					}
				}
			case `"response_item"`:
				switch pl.Str("type") {
				case "message":
					text := messageText(pl)
					switch role := pl.Str("role"); {
					case strings.TrimSpace(text) == "":
					case role == "assistant":
						items = append(items, item{at: last, kind: "text", body: text})
					case role == "user" && !strings.HasPrefix(text, "<") && !strings.HasPrefix(text, "# AGENTS.md"):
						items = append(items, item{at: last, kind: "user?", body: text}) // a prompt if the rollout has no user_message event
					}
				case "function_call", "custom_tool_call", "local_shell_call":
					id := pl.Str("call_id")
					if id == "" {
						id = pl.Str("id")
					}
					tool := pl.Str("name")
					if tool == "" {
						tool = "shell"
					}
					if c := calls[id]; c != nil {
						tool = c.tool
					}
					items = append(items, item{at: last, kind: "call", tool: tool, body: callSummary(pl), id: id})
				case "function_call_output", "custom_tool_call_output":
					id := pl.Str("call_id")
					items = append(items, item{at: last, kind: "result", body: outputHead(pl["output"], calls[id]), id: id})
				case "web_search_call":
					a := pl.Sub("action")
					what := a.Str("query")
					if what == "" {
						what = a.Str("url")
					}
					if what == "" {
						what = string(pl["action"])
					}
					items = append(items, item{at: last, kind: "call", tool: "web_search", body: what})
				}
			}
			return nil
		})
	}
	// A rollout whose turns have no user_message event (a subagent's
	// thread, an old rollout) has its prompts as user messages only.
	out := items[:0]
	for _, it := range items {
		if it.kind == "user?" {
			if prompts {
				continue
			}
			it.kind = "prompt"
		}
		out = append(out, it)
	}
	return out
}

// messageText joins a message's text parts.
func messageText(pl jsonlite.Object) string {
	var parts []string
	for _, c := range pl.Items("content") {
		if t := jsonlite.AsObject(c).Str("text"); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, "\n")
}

// callSummary is a call's whole input as a reader wants it: a command
// line, a patch's files, a code-mode script's commands.
func callSummary(pl jsonlite.Object) string {
	name := pl.Str("name")
	args := pl["arguments"]
	if s, ok := jsonlite.Unquote(args); ok {
		args = []byte(s)
	}
	argObj, _ := jsonlite.ParseObject(args)
	switch {
	case pl.Str("type") == "local_shell_call":
		return codex.CommandLine(pl.Sub("action")["command"])
	case name == "exec_command":
		return argObj.Str("cmd")
	case name == "shell" || name == "container.exec" || name == "shell_command":
		return codex.CommandLine(argObj["command"])
	case name == "write_stdin":
		return stdinSummary(argObj)
	case name == "apply_patch":
		patch := pl.Str("input")
		if patch == "" {
			patch = argObj.Str("input")
		}
		return patchSummary(patch)
	case name == "exec" && pl.Str("type") == "custom_tool_call":
		return scriptSummary(pl.Str("input"))
	case pl.Str("type") == "custom_tool_call":
		return oneLine(pl.Str("input"))
	}
	return oneLine(string(args))
}

func stdinSummary(o jsonlite.Object) string {
	s := "session " + string(o["session_id"])
	if c := o.Str("chars"); c != "" {
		s += fmt.Sprintf(", writes %q", c)
	} else {
		s += " (poll)"
	}
	return s
}

// patchSummary names a patch's files, each with its lines added and
// removed.
func patchSummary(patch string) string {
	type file struct {
		op, path    string
		added, gone int
	}
	var files []*file
	var cur *file
	for _, ln := range strings.Split(patch, "\n") {
		ln = strings.TrimRight(ln, "\r")
		matched := false
		for _, op := range [...]string{"Add", "Update", "Delete"} {
			if p, ok := strings.CutPrefix(ln, "*** "+op+" File: "); ok {
				cur = &file{op: strings.ToLower(op), path: strings.TrimSpace(p)}
				files = append(files, cur)
				matched = true
			}
		}
		switch {
		case matched || cur == nil:
		case strings.HasPrefix(ln, "*** Move to: "):
			cur.path += " → " + strings.TrimSpace(strings.TrimPrefix(ln, "*** Move to: "))
		case strings.HasPrefix(ln, "***"):
		case strings.HasPrefix(ln, "+"):
			cur.added++
		case strings.HasPrefix(ln, "-"):
			cur.gone++
		}
	}
	if len(files) == 0 {
		return oneLine(patch)
	}
	parts := make([]string, len(files))
	for i, f := range files {
		parts[i] = fmt.Sprintf("%s %s (+%d -%d)", f.op, f.path, f.added, f.gone)
	}
	return "patch: " + strings.Join(parts, "; ")
}

var (
	toolRef = regexp.MustCompile(`tools\.([A-Za-z0-9_]+)\(`)
	// the cmd of exec_command's argument, a JSON or JavaScript object
	cmdArg = regexp.MustCompile(`(?:"cmd"|\bcmd)\s*:\s*("(?:[^"\\]|\\.)*"|` + "`[^`]*`)")
	sidArg = regexp.MustCompile(`(?:"session_id"|\bsession_id)\s*:\s*([0-9]+)`)
)

// scriptSummary reads a code-mode script (the model's one tool `exec`
// runs it; it calls tools.exec_command and the like): the calls it makes,
// a command by its command line.
func scriptSummary(code string) string {
	refs := toolRef.FindAllStringSubmatchIndex(code, -1)
	if len(refs) == 0 {
		return "script: " + oneLine(code)
	}
	var parts []string
	for i, m := range refs {
		end := len(code)
		if i+1 < len(refs) {
			end = refs[i+1][0]
		}
		tool, arg := code[m[2]:m[3]], code[m[1]:end]
		switch tool {
		case "exec_command":
			if c := cmdArg.FindStringSubmatch(arg); c != nil {
				cmd, ok := jsonlite.Unquote([]byte(c[1]))
				if !ok { // a template literal, or escapes JSON has not
					cmd = c[1][1 : len(c[1])-1]
				}
				parts = append(parts, "$ "+cmd)
				continue
			}
		case "apply_patch":
			parts = append(parts, patchSummary(scriptPatch(code, arg)))
			continue
		case "write_stdin":
			if c := sidArg.FindStringSubmatch(arg); c != nil {
				parts = append(parts, "write_stdin session "+c[1])
				continue
			}
		}
		parts = append(parts, tool+"("+clip(oneLine(arg), 120))
	}
	return strings.Join(parts, " ;; ")
}

var jsString = regexp.MustCompile("\"(?:[^\"\\\\]|\\\\.)*\"|`[^`]*`")

// scriptPatch is the patch a script hands apply_patch: the string literal
// that holds "*** Begin Patch", in the call's argument or anywhere in the
// script (`const patch = "…"; tools.apply_patch(patch)`).
func scriptPatch(code, arg string) string {
	for _, src := range [...]string{arg, code} {
		for _, lit := range jsString.FindAllString(src, -1) {
			if !strings.Contains(lit, "*** Begin Patch") {
				continue
			}
			if lit[0] == '`' {
				return lit[1 : len(lit)-1]
			}
			if s, ok := jsonlite.Unquote([]byte(lit)); ok {
				return s
			}
			return strings.ReplaceAll(lit[1:len(lit)-1], `\n`, "\n")
		}
	}
	return arg
}

// outputHead is a call's outcome, as the replay read it, and the start of
// what it printed, with Codex's own header lines (chunk id, wall time,
// token count) left out.
func outputHead(raw []byte, c *replayedCall) string {
	status := "status unknown"
	if c != nil && c.done {
		switch c.outcome {
		case engine.OutcomeOK:
			status = "ok"
		case engine.OutcomeFailed:
			status = "ERROR"
		}
		if c.exit != nil && *c.exit != 0 {
			status += fmt.Sprintf(" (exit %d)", *c.exit)
		}
	}
	text, note := cleanOutput(codex.OutputText(raw))
	if note != "" {
		status += " " + note
	}
	if text = oneLine(text); text == "" {
		text = "(no output)"
	}
	return status + ": " + text
}

// cleanOutput drops the header lines Codex puts before a command's
// output, and reads a code-mode result's JSON; note says when the command
// was still running.
func cleanOutput(s string) (text, note string) {
	for {
		ln, rest, found := strings.Cut(s, "\n")
		head := false
		for _, p := range [...]string{"Command: ", "Chunk ID: ", "Wall time", "Original token count", "Process exited with code ", "Exit code: ", "Script completed", "Output:"} {
			if strings.HasPrefix(ln, p) {
				head = true
			}
		}
		if strings.HasPrefix(ln, "Process running with session ID") {
			head, note = true, "(still running)"
		}
		if !head || !found {
			break
		}
		s = rest
		if strings.HasPrefix(ln, "Output:") {
			break
		}
	}
	if t := strings.TrimSpace(s); strings.HasPrefix(t, "{") {
		if o, err := jsonlite.ParseObject([]byte(t)); err == nil && o.Present("output") {
			if !o.Present("exit_code") && o.Present("session_id") {
				note = "(still running)"
			}
			return o.Str("output"), note
		}
	}
	return s, note
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
