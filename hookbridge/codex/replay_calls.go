package codex

import (
	"strconv"
	"strings"

	"cully/jsonlite"
)

// A replayed call as the hooks see it: its tool and input from a
// rollout's function or custom call, its command line, its output's text
// and exit code, and the turn a record belongs to.

// toolCall names a call as the hooks see it: a shell command is Bash with
// its command line, a patch apply_patch with its text, anything else its
// own name and arguments.
func toolCall(pl jsonlite.Object) (name, input []byte) {
	n := pl.Str("name")
	args := pl["arguments"]
	var argObj jsonlite.Object
	if s, ok := jsonlite.Unquote(args); ok { // function_call arguments are a JSON text
		argObj, _ = jsonlite.ParseObject([]byte(s))
		args = []byte(s)
	}
	switch {
	case pl.Str("type") == "local_shell_call":
		return toolBash, commandInput(CommandLine(pl.Sub("action")["command"]))
	case n == "exec_command":
		return toolBash, commandInput(argObj.Str("cmd"))
	case n == "shell" || n == "container.exec" || n == "shell_command":
		return toolBash, commandInput(CommandLine(argObj["command"]))
	case n == "apply_patch":
		patch := pl.Str("input") // custom_tool_call
		if patch == "" {
			patch = argObj.Str("input")
		}
		return toolApply, commandInput(patch)
	case n == "exec" && pl.Str("type") == "custom_tool_call":
		return codeModeCall(pl.Str("input"))
	}
	if len(args) == 0 && pl.Str("type") == "custom_tool_call" {
		// A custom tool's input is free text: keep it, so that two calls
		// with different inputs are never taken for the same call.
		return quote(n), append(append([]byte(`{"input":`), quote(pl.Str("input"))...), '}')
	}
	if len(args) == 0 || args[0] != '{' {
		args = []byte("null")
	}
	return quote(n), args
}

// codeModeCall reads Codex's code mode, where the model's one tool is
// `exec` and its input a script that calls the real tools
// (`const r = await tools.exec_command({"cmd": …}); text(r.output);`).
// The corpus's Codex rollouts hold 512 such calls: taken as one opaque
// `exec` with no input, every one looked like the one before, and the
// repeated-call guard fired on 29 of them. Each becomes the call it makes:
// its shell commands (all of them, one per line) as Bash, a patch as
// apply_patch, a write to a running command's stdin as write_stdin (a
// poll), anything else by the tool it names, with its arguments.
func codeModeCall(code string) (name, input []byte) {
	var cmds []string
	first, firstArgs := "", ""
	for rest := code; ; {
		i := strings.Index(rest, "tools.")
		if i < 0 {
			break
		}
		rest = rest[i+len("tools."):]
		j := strings.IndexByte(rest, '(')
		if j <= 0 || !isToolName(rest[:j]) {
			continue
		}
		tool, args := rest[:j], jsObject(rest[j+1:])
		if first == "" {
			first, firstArgs = tool, args
		}
		if tool == "exec_command" {
			if o, err := jsonlite.ParseObject([]byte(args)); err == nil && o.Str("cmd") != "" {
				cmds = append(cmds, o.Str("cmd"))
			} else if c, ok := jsField(rest[j+1:], "cmd"); ok {
				cmds = append(cmds, c) // a JavaScript object: {cmd: "…"}, keys unquoted
			}
		}
	}
	switch {
	case len(cmds) > 0:
		return toolBash, commandInput(strings.Join(cmds, "\n"))
	case first == "apply_patch":
		return toolApply, commandInput(code) // the patch parser reads the file lines wherever they sit
	case first != "" && firstArgs != "":
		return quote(first), []byte(firstArgs)
	case first != "":
		return quote(first), append(append([]byte(`{"input":`), quote(code)...), '}')
	}
	return quote("exec"), append(append([]byte(`{"input":`), quote(code)...), '}')
}

func isToolName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return s != ""
}

// jsObject is the JSON object a script passes first, when its argument is
// one ("" otherwise): from its '{' to the brace that closes it, strings
// skipped, validated as JSON.
func jsObject(s string) string {
	s = strings.TrimLeft(s, " \t\n")
	if s == "" || s[0] != '{' {
		return ""
	}
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				if _, err := jsonlite.ParseObject([]byte(s[:i+1])); err == nil {
					return s[:i+1]
				}
				return ""
			}
		}
	}
	return ""
}

// CommandLine is a rollout command given as a string, or as an argv whose
// shell runs a script (["bash", "-lc", "…"]): that script, else the words
// joined. The quality bench reads commands with it too.
func CommandLine(v []byte) string {
	if s, ok := jsonlite.Unquote(v); ok {
		return s
	}
	var words []string
	_ = jsonlite.Elements(v, func(x []byte) { words = append(words, jsonlite.Str(x)) })
	if n := len(words); n == 3 && (words[1] == "-lc" || words[1] == "-c") {
		return words[2]
	}
	return strings.Join(words, " ")
}

func commandInput(cmd string) []byte {
	return append(append([]byte(`{"command":`), quote(cmd)...), '}')
}

// OutputText is a rollout call output's text: a string, or (older
// rollouts) a JSON text {"output": …, "metadata": {…}}, or content items
// (joined a line each). The quality bench reads outputs with it too.
func OutputText(v []byte) string {
	s, ok := jsonlite.Unquote(v)
	if !ok {
		var parts []string
		_ = jsonlite.Elements(v, func(x []byte) {
			if t := jsonlite.AsObject(x).Str("text"); t != "" {
				parts = append(parts, t)
			}
		})
		return strings.Join(parts, "\n")
	}
	if strings.HasPrefix(s, `{"output":`) {
		if o, err := jsonlite.ParseObject([]byte(s)); err == nil {
			return o.Str("output")
		}
	}
	return s
}

// endFromOutput reads an outcome from a call output's own words, for a
// call the rollout recorded no completion of.
func endFromOutput(raw []byte, text string) (ended, bool) {
	if s, ok := jsonlite.Unquote(raw); ok && strings.HasPrefix(s, `{"output":`) {
		if o, err := jsonlite.ParseObject([]byte(s)); err == nil {
			if v := o.Sub("metadata")["exit_code"]; len(v) > 0 && v[0] != 'n' {
				n := int(jsonlite.Int(v))
				return ended{exit: &n}, true
			}
		}
	}
	for _, mark := range [...]string{"Process exited with code ", "Exit code: "} {
		if i := strings.Index(text, mark); i >= 0 && (i == 0 || text[i-1] == '\n') {
			rest := text[i+len(mark):]
			if j := strings.IndexByte(rest, '\n'); j >= 0 {
				rest = rest[:j]
			}
			if n, err := strconv.Atoi(strings.TrimSpace(rest)); err == nil {
				return ended{exit: &n}, true
			}
		}
	}
	return ended{}, false
}

// runningSession is the session id of a command that was still running
// when its call returned: the "Process running with session ID N" line of
// the output's header (outputBody's lines), as the number's JSON text.
func runningSession(out string) (string, bool) {
	const mark = "Process running with session ID "
	rest := out
	for range 8 {
		line, after, _ := strings.Cut(rest, "\n")
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, mark) {
			n, err := strconv.Atoi(strings.TrimSpace(t[len(mark):]))
			return strconv.Itoa(n), err == nil
		}
		if t == "Output:" || after == "" {
			break
		}
		rest = after
	}
	return "", false
}

func quote(s string) []byte { return appendJSONString(nil, s) }

// turnID is the turn a record opens, when it opens one: a turn_context's,
// or an event_msg task_started's.
func turnID(typ []byte, pl jsonlite.Object) string {
	switch {
	case string(typ) == `"turn_context"`:
		return pl.Str("turn_id")
	case string(typ) == `"event_msg"` && pl.Str("type") == "task_started":
		return pl.Str("turn_id")
	}
	return ""
}

// jsField reads a string field of the JavaScript object literal that s
// opens ({cmd: "…", workdir: …}): most code-mode scripts write their keys
// unquoted (793 of the corpus's 890), which JSON refuses. The value is a
// double-quoted string (JSON's escapes), a single-quoted one, or a
// template literal without substitutions.
func jsField(s, key string) (string, bool) {
	s = strings.TrimLeft(s, " \t\n")
	if s == "" || s[0] != '{' {
		return "", false
	}
	for i := 1; i < len(s); {
		j := strings.Index(s[i:], key)
		if j < 0 {
			return "", false
		}
		at := i + j
		i = at + len(key)
		if c := s[at-1]; c != '{' && c != ',' && c != ' ' && c != '\n' && c != '\t' && c != '"' && c != '\'' {
			continue
		}
		k := i
		if k < len(s) && (s[k] == '"' || s[k] == '\'') {
			k++
		}
		for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
			k++
		}
		if k >= len(s) || s[k] != ':' {
			continue
		}
		k++
		for k < len(s) && (s[k] == ' ' || s[k] == '\t' || s[k] == '\n') {
			k++
		}
		if k >= len(s) {
			return "", false
		}
		q := s[k]
		if q != '"' && q != '\'' && q != '`' {
			return "", false
		}
		var b strings.Builder
		for e := k + 1; e < len(s); e++ {
			c := s[e]
			switch {
			case c == q:
				if q == '"' {
					v, ok := jsonlite.Unquote([]byte(s[k : e+1]))
					return v, ok
				}
				return b.String(), true
			case c == '\\' && e+1 < len(s):
				e++
				switch s[e] {
				case 'n':
					b.WriteByte('\n')
				case 't':
					b.WriteByte('\t')
				default:
					b.WriteByte(s[e])
				}
			default:
				b.WriteByte(c)
			}
		}
		return "", false
	}
	return "", false
}
