package engine

import (
	"fmt"
	"strings"
)

// ReasonReportedCommand: the user reported a command misbehaving, and the
// turn ended without that command having been run.
const ReasonReportedCommand Reason = "reported-command"

// reportedCommand is judged at the end of the agent's turn (a Stop event):
// the task's prompt named commands it says misbehave (Event.PromptCmds,
// fingerprints only: the prompt's text is never stored), the task edited
// code and ran a check, and no shell call of the task ran any of those
// commands (nor the project's own program through `go run`, `cargo run`
// and the like, which may well be it). Unit tests passing is not the
// reported command working.
var reportedCommand = checkpointRule{
	reason: ReasonReportedCommand,
	action: "run the command the user reported, as they ran it, before calling it fixed",
	stop:   true,
	due: func(s *State, ev *Event, _ *CmdSeen, _ *Config) (string, bool) {
		if ev.Kind != KindStop || ev.Subagent != "" || len(s.PromptCmds) == 0 || s.TaskEdits == 0 || s.TaskChecks == 0 {
			return "", false
		}
		if ev.EndSays == SaysWaiting || ev.EndSays == SaysBlocked {
			// The turn hands the command back: the user runs it (their
			// login, their remote, their environment) or answers first.
			return "", false
		}
		return fmt.Sprintf("the prompt reported %s failing; the turn ended after %s of code and %s, and none of those commands ran",
			plural(len(s.PromptCmds), "command"), plural(s.TaskEdits, "edit"), plural(s.TaskChecks, "check")), true
	},
	tell: func(_ *State, cfg *Config) bool { return cfg.ReportedTell },
}

// bookReported notes, for a finished call, what reportedCommand judges at
// the turn's end: the task's edits of code and checks, and whether a shell
// call ran one of the reported commands (then none is awaited any more).
func (s *State) bookReported(ev *Event, cfg *Config) {
	switch {
	case ev.Class == ClassEdit && ev.Outcome != OutcomeFailed && !proseEdit(ev) && !testEdit(ev):
		s.TaskEdits++
	case ev.Class == ClassCheck:
		s.TaskChecks++
	}
	if len(s.PromptCmds) > 0 && IsShellTool(ev.Tool) && ranReported(ev.Cmd, s.PromptCmds, cfg) {
		s.PromptCmds = nil
	}
}

// testEdit reports whether every file an edit writes is a test, a fixture or
// CI (harnessFile, with no failing check to name a Makefile's runner).
func testEdit(ev *Event) bool {
	if ev.Target == "" || !harnessFile(ev.Target, "") {
		return false
	}
	for _, f := range ev.Files {
		if !harnessFile(f, "") {
			return false
		}
	}
	return true
}

// maxPromptCmds bounds the fingerprints a prompt leaves in the state.
const maxPromptCmds = 8

// failureWords say, in a prompt, that something misbehaves. Without one
// the commands a prompt names are instructions or examples, not reports.
var reportWords = []string{"crash", "panic", "fail", "error", "broken", "breaks", "hang", "segfault", "exception",
	"traceback", "doesn't work", "does not work", "not working", "wrong", "bug", "regress", "stuck", "freez"}

// knownSub reports whether prog is a program whose subcommand names what
// was run, and sub one of its subcommands: named outside backticks ("npm
// install fails"), they count as a command. A table, not any word after
// the program: "go ahead", "make sure" are English.
func knownSub(prog, sub string) bool {
	var subs string
	switch prog {
	case "git":
		subs = " push pull fetch clone commit rebase merge checkout switch stash cherry-pick bisect submodule "
	case "go":
		subs = " build test run vet generate install get mod "
	case "cargo":
		subs = " build test run check clippy install publish bench "
	case "npm", "pnpm", "yarn", "bun":
		subs = " install ci run test build start publish add "
	case "docker":
		subs = " build run compose push pull exec "
	case "kubectl":
		subs = " apply get describe logs exec rollout delete "
	case "helm":
		subs = " install upgrade template lint "
	case "terraform":
		subs = " plan apply init destroy validate "
	case "pip", "pip3":
		subs = " install "
	case "uv":
		subs = " sync run pip add lock "
	case "poetry":
		subs = " install lock add run "
	case "gh":
		subs = " pr issue release auth api "
	case "mvn", "gradle":
		subs = " test package install build "
	case "dotnet":
		subs = " build test run restore publish "
	}
	return subs != "" && strings.Contains(subs, " "+sub+" ")
}

// codeWords begin a backticked span that is code, not a command.
var codeWords = []string{"func", "type", "var", "const", "return", "if", "for", "import", "package", "def", "class",
	"let", "fn", "pub", "struct", "self", "this", "new", "await", "async", "from", "select", "while", "case", "else", "use", "mod"}

// PromptCommands reduces a user's prompt to the fingerprints of the
// commands it reports misbehaving: each backticked span that reads as a
// command line (a lower-case program word, then a subcommand or a flag;
// fenced blocks left out), and each known program followed by a
// subcommand, when a word of failure stands near it: on its line, in the
// reportNear lines after (the error a pasted terminal prints under its
// command), or in the line before when that line ends with ':' ("it fails
// when I run:") or is pasted output. A fenced block counts as one line; a
// command continued with a backslash, and blank lines, count as part of the line
// before. A word of failure elsewhere in the prompt does not make a report
// of every command in it: a pasted code review that says "build, vet and
// tests pass" and lists its findings reported nothing failing, and blind
// reviewers judged the checkpoint noise on those. Only the fingerprints
// are kept: the hook never stores the prompt's text.
func PromptCommands(prompt string) []string {
	// Units: a line, or a fenced block whole (pasted output is one report).
	lines := strings.Split(prompt, "\n")
	unit := make([]int, len(lines))
	var fails []bool
	fenced, anyFail := false, false
	var intro []bool // the unit ends with ':' or is pasted output, introducing what follows
	for i, l := range lines {
		t := strings.TrimSpace(l)
		fence := strings.HasPrefix(t, "```")
		joined := i > 0 && strings.HasSuffix(strings.TrimSpace(lines[i-1]), "\\") // a command continued
		if len(fails) == 0 || !fenced && !joined && t != "" {
			fails, intro = append(fails, false), append(intro, false)
		}
		if t != "" {
			// A fenced block introduces what follows it as well: the
			// output, then "when I run `x`".
			intro[len(intro)-1] = strings.HasSuffix(t, ":") || fence && fenced
		}
		if fence {
			fenced = !fenced
		}
		unit[i] = len(fails) - 1
		low := strings.ToLower(l)
		for _, w := range reportWords {
			if strings.Contains(low, w) {
				fails[unit[i]], anyFail = true, true
				break
			}
		}
	}
	if !anyFail || reviewPrompt(prompt) {
		return nil
	}
	near := func(i int) bool {
		u := unit[i]
		if u > 0 && fails[u-1] && intro[u-1] { // "it fails when I run:"
			return true
		}
		for j := u; j <= min(u+reportNear, len(fails)-1); j++ {
			if fails[j] {
				return true
			}
		}
		return false
	}
	var out []string
	add := func(prog, sub string) {
		fp := cmdKey(prog, sub)
		if !contains(out, fp) && len(out) < maxPromptCmds {
			out = append(out, fp)
		}
	}
	fenced = false
	for i, line := range lines {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !near(i) || saysPasses(line) {
			continue
		}
		// Backticked spans, outside fenced blocks (pasted output and code).
		for rest := line; !fenced; {
			i := strings.IndexByte(rest, '`')
			if i < 0 {
				break
			}
			j := strings.IndexByte(rest[i+1:], '`')
			if j < 0 {
				break
			}
			span := rest[i+1 : i+1+j]
			rest = rest[i+1+j+1:]
			w := strings.Fields(strings.TrimPrefix(strings.TrimSpace(span), "$ "))
			if len(w) < 2 || !programWord(w[0]) || contains(codeWords, w[0]) || strings.ContainsAny(span, "(){}") {
				continue
			}
			if sub := w[1]; subWord(sub) {
				add(progName(w[0]), sub)
			} else if strings.HasPrefix(sub, "-") {
				add(progName(w[0]), "")
			}
		}
		// Known programs and their subcommand, backticks or not.
		words := strings.FieldsFunc(strings.ToLower(line), func(r rune) bool { return r == ' ' || r == '\t' || r == '`' || r == '"' || r == '\'' })
		for k := 0; k+1 < len(words); k++ {
			if sub := strings.TrimRight(words[k+1], ".,:;!?"); knownSub(words[k], sub) {
				add(words[k], sub)
			}
		}
	}
	return out
}

// reviewPrompt reports whether a prompt reads as a code review's findings
// ("1. Medium: …", "**High:** …", "## Issues / nitpicks", a prompt
// opening with "Here's my review"): the commands a review
// names are what it reviewed, not what misbehaves, and blind reviewers
// judged the checkpoint noise on every pasted review in the corpus.
func reviewPrompt(prompt string) bool {
	marks, first := 0, true
	for _, l := range strings.Split(strings.ToLower(prompt), "\n") {
		t := strings.TrimLeft(l, " \t#*-0123456789.)[")
		t = strings.TrimLeft(t, " *")
		if t == "" {
			continue
		}
		for _, m := range severityMarks {
			if strings.HasPrefix(t, m) {
				marks++
				if first { // a prompt that opens with a finding
					marks++
				}
				break
			}
		}
		heading := strings.HasPrefix(strings.TrimSpace(l), "#")
		for _, h := range reviewHeadings {
			if strings.HasPrefix(t, h) && (heading || h == "findings" || h == "new findings") {
				marks += 2
				break
			}
		}
		if first && strings.Contains(t, "review") { // "Here's my review of the branch"
			marks++
		}
		first = false
	}
	return marks >= 2
}

// reviewHeadings open a review's sections.
var reviewHeadings = []string{"findings", "new findings", "issues", "nitpicks", "review", "suggestions", "concerns"}

// severityMarks open a review finding's line.
var severityMarks = []string{"critical:", "high:", "medium:", "low:", "major:", "minor:", "nit:", "p0:", "p1:", "p2:", "p3:",
	"critical**", "high**", "medium**", "low**", "major**", "minor**"}

// saysPasses reports whether a line says its command went well ("`go vet`
// is clean", "`go test ./...` passes") and says nothing failing.
func saysPasses(line string) bool {
	low := strings.ToLower(line)
	for _, w := range reportWords {
		if strings.Contains(low, w) {
			return false
		}
	}
	for _, w := range []string{" clean", " pass", " green", " succeed", " works", " ok"} {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}

// reportNear is how many lines after a command a word of failure still
// reports it: a pasted command's first lines of output.
const reportNear = 3

// programWord reports whether w reads as a program: lower-case letters,
// digits, '-', '_', and a path only as ./x or a/b (no file extension).
func programWord(w string) bool {
	if w == "" || w[0] == '-' {
		return false
	}
	for _, r := range w {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '/' || r == '.') {
			return false
		}
	}
	name := progName(w)
	return name != "" && !strings.Contains(name, ".")
}

// subWord reports whether w reads as a subcommand: a lower-case word (a
// flag is none).
func subWord(w string) bool {
	if len(w) < 2 || len(w) > 30 || w[0] < 'a' || w[0] > 'z' {
		return false
	}
	for _, r := range w {
		if !(r >= 'a' && r <= 'z' || r == '-' || r == '_' || r == ':') {
			return false
		}
	}
	return true
}

// cmdKey fingerprints a program and its subcommand ("" for none).
func cmdKey(prog, sub string) string { return Fingerprint("cmd", prog, sub) }

// launchers run the project's own program without naming it: a run through
// one may be the reported command, so it counts as one (the rule stays
// quiet rather than guess).
func launcher(w []string) bool {
	if len(w) < 2 {
		return false
	}
	switch progName(w[0]) {
	case "go", "cargo", "dotnet", "swift", "mix", "stack", "cabal":
		return w[1] == "run"
	case "npm", "pnpm", "yarn", "bun":
		return w[1] == "run" || w[1] == "start" || w[1] == "exec" || w[1] == "dev"
	case "make", "just", "task":
		return !strings.HasPrefix(w[1], "test") && !strings.HasPrefix(w[1], "check") && !strings.HasPrefix(w[1], "lint")
	case "python", "python3", "node", "deno", "ruby", "npx", "uvx", "pnpx", "bunx":
		return true
	case "uv", "poetry", "pipenv", "bundle", "pdm", "hatch":
		return w[1] == "run" || w[1] == "exec"
	}
	return false
}

// ranReported reports whether a shell command line runs one of the
// reported commands (by program and subcommand, or program alone for a
// report that named none), or the project's program through a launcher
// (a check run through one is not).
func ranReported(cmd string, fps []string, cfg *Config) bool {
	for _, sg := range splitShell(cmd) {
		w := stripWrappers(sg.words)
		if len(w) == 0 {
			continue
		}
		if launcher(w) && !isCheck(w, cfg) { // `python -m pytest` is the unit tests, not the program
			return true
		}
		prog, sub := progName(w[0]), ""
		for _, a := range w[1:] {
			if !strings.HasPrefix(a, "-") {
				sub = a
				break
			}
		}
		if contains(fps, cmdKey(prog, sub)) || contains(fps, cmdKey(prog, "")) {
			return true
		}
	}
	return false
}
