package engine

import (
	"encoding/hex"
	"hash/fnv"
	"strconv"
	"strings"
)

// ClassifyTool classifies a non-shell tool by its name, for every agent's
// spelling of the common tools.
func ClassifyTool(tool string) Class {
	switch strings.ToLower(tool) {
	case "read", "grep", "glob", "ls", "webfetch", "websearch", "notebookread",
		"read_file", "read_many_files", "list_directory", "glob_tool", "search_file_content", "google_web_search", "web_fetch",
		"codebase_search", "file_search", "grep_search", "list_dir", "view_image":
		return ClassRead
	case "edit", "write", "multiedit", "notebookedit", "apply_patch", "replace", "write_file",
		"edit_file", "search_replace", "delete_file", "str_replace_based_edit_tool":
		return ClassEdit
	case "bashoutput", "taskoutput", "killshell", "killbash", "monitor", "schedulewakeup", "wait",
		"write_stdin": // Codex: input to, or (with no characters) a poll of, a command still running
		return ClassPoll
	case "bash", "shell", "exec_command", "run_shell_command", "run_terminal_cmd", "local_shell":
		return ClassRun
	case "askuserquestion", "exitplanmode", "ask_user", "request_user_input":
		return ClassAsk
	}
	return ClassOther
}

// IsShellTool reports whether the tool runs a shell command line, in any
// case: compared with EqualFold, as ToLower allocated a copy on every call
// of every rule that asks (21 allocations of BenchmarkShellGuards' 21).
func IsShellTool(tool string) bool {
	for _, t := range []string{"bash", "shell", "exec_command", "run_shell_command", "run_terminal_cmd", "local_shell"} {
		if strings.EqualFold(tool, t) {
			return true
		}
	}
	return false
}

// NormalizeCommand collapses whitespace so that trivially different
// spellings of one command share a fingerprint.
func NormalizeCommand(cmd string) string {
	return strings.Join(strings.Fields(cmd), " ")
}

// Fingerprint is a short stable hash, used for commands and failure
// signatures so the journal can compare them without storing their text.
// FNV-1a (128 bit, 64 kept) rather than SHA-256: it identifies, it does not
// protect, and it keeps the crypto packages' start-up cost off the hook path.
func Fingerprint(parts ...string) string {
	h := fnv.New128a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// sigLines is how many leading lines of error output make a failure
// signature: enough to tell one error from the next, few enough that noisy
// trailing output (timings, counts) does not split one loop into many.
const sigLines = 3

// FailureSignature hashes an exit code and the first normalized lines of the
// error output. Numbers, hex ids and whitespace are normalized, so that line
// numbers, durations and addresses do not make one error look like another.
func FailureSignature(exit *int, errText string) string {
	code := "?"
	if exit != nil {
		code = strconv.Itoa(*exit)
	}
	var lines []string
	for _, ln := range strings.Split(errText, "\n") {
		ln = normalizeErrLine(ln)
		if ln == "" || noiseLine(ln) {
			continue
		}
		lines = append(lines, ln)
		if len(lines) == sigLines {
			break
		}
	}
	return Fingerprint(append([]string{code}, lines...)...)
}

func normalizeErrLine(s string) string {
	low := strings.ToLower(strings.TrimSpace(s))
	var b strings.Builder
	for i := 0; i < len(low); i++ {
		c := low[i]
		switch {
		case c >= '0' && c <= '9':
			j := i
			for j < len(low) && low[j] >= '0' && low[j] <= '9' {
				j++
			}
			if failureCount(low, i, j) {
				b.WriteString(low[i:j])
			} else {
				b.WriteByte('#')
			}
			i = j - 1
			continue
		case c == '\t':
			c = ' '
		}
		b.WriteByte(c)
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// failureCount reports whether the digits s[i:j] count failures: "3
// failed", "20 failing files", "found 5 errors", "(failures=2)",
// "failures: 4". Those are kept when a line is normalized, so that a run
// whose failure count moved is not the same error as the run before it:
// an agent taking a diagnostic from 20 failing files to 10 is making
// progress, not looping (the corpus's one failure loop labelled noise under
// the defaults was that). Every other number (line numbers, durations,
// passed counts, ids) is still folded.
func failureCount(s string, i, j int) bool {
	after := strings.TrimPrefix(s[j:], " ")
	for _, w := range failureWords {
		if strings.HasPrefix(after, w) {
			return true
		}
	}
	before, labelled := strings.CutSuffix(s[:i], "=")
	if !labelled {
		before, labelled = strings.CutSuffix(strings.TrimSuffix(s[:i], " "), ":")
	}
	if !labelled {
		return false
	}
	label := before[strings.LastIndexAny(before, " (,;")+1:]
	return label == "failures" || label == "errors" || label == "failed" || label == "failing"
}

// failureWords begin the words a runner counts failures with.
var failureWords = []string{"fail", "error", "problem"}

// noiseLine reports a line of check output that says nothing about which
// error happened: a runner's banner (pytest's session header and section
// rules), a wrapper's echo of the script it runs (npm's "> pkg@1 test"),
// the lines of what passed, and progress lines ("tests/a.py ..F  [ 40%]").
// Signatures skip them, or every pytest
// failure would share the header's signature.
func noiseLine(ln string) bool {
	if strings.HasSuffix(ln, "%]") { // a progress line: which files ran, not which failed
		return true
	}
	// A compiler's warnings and its source excerpts are no error: cgo
	// packages print the same C warning before every test run, which made
	// every failure of such a package one and the same error (two failure
	// loops the corpus's Codex sessions raised on different failing runs).
	// `# pkg` heads what a package printed (after the digits are folded, a
	// gcc excerpt line "254 | …" reads "# | …" too).
	if strings.Contains(ln, ": warning:") || strings.HasPrefix(ln, "warning:") || strings.HasPrefix(ln, "# ") || strings.HasPrefix(ln, "|") {
		return true
	}
	for _, p := range []string{"==", "platform ", "rootdir:", "configfile:", "cachedir:", "plugins:", "collected ", "collecting ",
		"> ", "pass ", "ok ", "=== run", "--- pass", "running ", "compiling ", "finished ", "test session starts"} {
		if strings.HasPrefix(ln, p) {
			return true
		}
	}
	return false
}
