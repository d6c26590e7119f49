package engine

import (
	"fmt"
	"strings"
)

// A tool gap is a program the agent seems to lack: the evidence that
// starts the advisor's tool-gap research (seed 000: "evidence-triggered
// tool-gap research"). It is no rule: it raises no checkpoint and tells
// the agent nothing itself; the advisor reads State.Gaps, and the hook
// starts the advisor on the call that makes a gap due.
//
// Evidence, per program name, within a task (a boundary restarts it):
//   - the shell said the program was not found (Event.Missing: its
//     "command not found" message, or exit status 127 where the command
//     runs a single program): weight gapMissing;
//   - the agent looked for it and did not find it, or tried to install it
//     and failed (`which jq`, `command -v jq`, `find / -name jq`, `npm ls
//     jq`, `pip show jq`, `apt-cache search jq`, `brew install jq` …):
//     weight 1 each.
//
// A gap is due at gapDue. One "command not found" alone is not a gap yet:
// agents routinely settle it on the next call (python3 for python, an
// install that works), and research then would be wasted. The same
// message twice, or the message and then one more attempt to find or get
// that same program, is the agent working around a tool it lacks, which
// is what research can help with. Without the shell's message, three
// lookups of one name that found nothing are the same capability searched
// for again and again: one is a routine check, a second a confirmation.
// A later call that runs the program successfully, or a lookup that finds
// it, or an install that works, settles the gap (it is dropped).
const (
	gapMissing = 2
	gapDue     = 3
	maxGaps    = maxTallys
	// maxGapName bounds a program name kept as evidence: longer is no
	// program name an agent types.
	maxGapName = 40
)

// ToolGap is the evidence for one program the agent seems to lack.
type ToolGap struct {
	Name    string   `json:"name"`              // the program, as the shell or the lookup named it
	Missing int      `json:"missing,omitempty"` // calls the shell answered "not found" for it
	Lookups int      `json:"lookups,omitempty"` // lookups and installs of it that did not find it
	Forms   []string `json:"forms,omitempty"`   // the calls' previews, up to maxForms
	// Due is State.Events when the evidence became enough (0: not yet):
	// the hook starts the advisor on that very event.
	Due int `json:"due,omitempty"`
}

// Weight is the gap's evidence, against gapDue.
func (g ToolGap) Weight() int { return gapMissing*g.Missing + g.Lookups }

// Evidence words the gap for the advisor's prompt, status and the panel.
func (g ToolGap) Evidence() string {
	var parts []string
	if g.Missing > 0 {
		parts = append(parts, fmt.Sprintf("the shell found no `%s` %s", g.Name, times(g.Missing)))
	}
	if g.Lookups > 0 {
		parts = append(parts, fmt.Sprintf("looked for or install tried without finding it %s", times(g.Lookups)))
	}
	s := strings.Join(parts, "; ")
	if len(g.Forms) > 0 {
		s += " (`" + strings.Join(g.Forms, "`, `") + "`)"
	}
	return s
}

func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}

// DueGaps are the task's gaps whose evidence is enough, oldest first.
func (s *State) DueGaps() []ToolGap {
	var out []ToolGap
	for _, g := range s.Gaps {
		if g.Due > 0 {
			out = append(out, g)
		}
	}
	return out
}

// GapDueNow reports whether the event just applied made a gap due.
func (s *State) GapDueNow() bool {
	for _, g := range s.Gaps {
		if g.Due > 0 && g.Due == s.Events {
			return true
		}
	}
	return false
}

// bookGaps books a finished foreground shell call for the tool gaps.
func (s *State) bookGaps(ev *Event) {
	if ev.Subagent != "" || ev.Cmd == "" || !IsShellTool(ev.Tool) {
		return
	}
	segs := splitShell(ev.Cmd)
	ok := ev.Outcome == OutcomeOK
	var counted []string  // a name counts once a call
	if ev.Missing != "" { // a failed call: nothing in it ran OK
		counted = append(counted, ev.Missing)
		g := s.gap(ev.Missing)
		g.Missing++
		s.noteGap(g, ev)
	}
	for i, sg := range segs {
		found := ok && impliedOK(segs, i)
		for _, q := range gapQueries(sg.words) {
			if q.tells && found || contains(counted, q.name) {
				continue
			}
			counted = append(counted, q.name)
			g := s.gap(q.name)
			g.Lookups++
			s.noteGap(g, ev)
		}
	}
	// Settled, last (what this call ran, found or installed wins over
	// what it looked for first: `command -v jq || apt-get install -y jq`):
	// the program ran, was found or was installed.
	for i, sg := range segs {
		if !ok || !impliedOK(segs, i) {
			continue
		}
		for _, q := range gapQueries(sg.words) {
			if q.tells {
				s.settleGap(q.name)
			}
		}
		if p := runsProgram(sg.words); p != "" {
			s.settleGap(p)
		}
	}
}

// impliedOK: the command line's success implies segment i's: every
// operator from it to the end is && (a `;`, `||` or a pipe after it hides
// its status).
func impliedOK(segs []segment, i int) bool {
	for _, sg := range segs[i:] {
		if sg.op != "&&" && sg.op != "" {
			return false
		}
	}
	return true
}

func (s *State) gap(name string) *ToolGap {
	for i := range s.Gaps {
		if s.Gaps[i].Name == name {
			return &s.Gaps[i]
		}
	}
	s.Gaps = append(s.Gaps, ToolGap{Name: name})
	if len(s.Gaps) > maxGaps {
		s.Gaps = append(s.Gaps[:0], s.Gaps[len(s.Gaps)-maxGaps:]...)
	}
	return &s.Gaps[len(s.Gaps)-1]
}

func (s *State) noteGap(g *ToolGap, ev *Event) {
	if p := preview(ev); p != "" && !contains(g.Forms, p) && len(g.Forms) < maxForms {
		g.Forms = append(g.Forms, p)
	}
	if g.Due == 0 && g.Weight() >= gapDue {
		g.Due = s.Events
	}
}

func (s *State) settleGap(name string) {
	for i := range s.Gaps {
		if s.Gaps[i].Name == name {
			s.Gaps = append(s.Gaps[:i], s.Gaps[i+1:]...)
			return
		}
	}
}

// runsProgram is the program a segment runs (wrappers stripped, base
// name), "" for a `which`-like lookup, a neutral command, a program run
// by its path (a script of the project: no tool) or none.
func runsProgram(words []string) string {
	if isLookupWords(words) {
		return ""
	}
	w := stripWrappers(words)
	if len(w) == 0 || neutral(w[0]) || strings.Contains(w[0], "/") {
		return ""
	}
	return gapName(w[0])
}

// gapQuery is one program name a segment looks for or installs; tells:
// its exit status says whether it was found (a `which`, an install), so
// a success settles the gap and only a failure counts.
type gapQuery struct {
	name  string
	tells bool
}

// lookupBy reads a package manager's subcommand that looks a name up:
// whether it is one, and whether its exit status tells if it found it.
// (Switches, not maps: a map literal is built at every hook's start.)
func lookupBy(mgr, sub string) (tells, ok bool) {
	switch mgr + " " + sub {
	case "npm ls", "npm list", "npm view", "npm info", "pnpm ls", "pnpm list", "yarn info", "pip show", "pip3 show",
		"apt show", "apt-cache show", "dpkg -l", "dpkg -s", "dpkg -L", "brew info", "brew list", "conda search",
		"snap info", "dnf info", "yum info", "apk info", "pacman -Q", "pacman -Si":
		return true, true
	case "npm search", "yarn list", "pip search", "pip3 search", "pip index", "pip3 index", "pipx list", "apt search",
		"apt list", "apt policy", "apt-cache search", "apt-cache policy", "brew search", "cargo search", "gem list",
		"gem search", "conda list", "snap find", "dnf search", "yum search", "apk search", "pacman -Ss", "port search":
		return false, true
	}
	return false, false
}

// installBy reports a package manager's install subcommand.
func installBy(mgr, sub string) bool {
	switch mgr + " " + sub {
	case "apt-get install", "apt install", "brew install", "pip install", "pip3 install", "pipx install",
		"npm install", "npm i", "npm add", "pnpm add", "pnpm install", "pnpm i", "yarn add", "cargo install",
		"go install", "gem install", "conda install", "dnf install", "yum install", "apk add", "pacman -S",
		"snap install", "port install":
		return true
	}
	return false
}

// sysDirs are where `find` looks for a program (not a file of the project).
var sysDirs = []string{"/", "/usr", "/opt", "/bin", "/sbin", "/nix", "/snap", "/Applications", "/Library"}

// valueFlags are install flags whose value is a file or a place, no name.
var valueFlags = []string{"-r", "--requirement", "-c", "--constraint", "-e", "--editable", "-i", "--index-url",
	"--extra-index-url", "-t", "--target", "--prefix", "--root", "--path", "--registry", "-f", "--find-links"}

// fileExt are endings of a file argument, never a program's name.
var fileExt = []string{".txt", ".toml", ".json", ".lock", ".whl", ".gz", ".tgz", ".zip", ".deb", ".rpm", ".cfg", ".py", ".yml", ".yaml", ".js", ".ts"}

// isLookupWords reports a lookup with no name the gaps can keep (`which`
// alone), so that it is not taken for a run of a program.
func isLookupWords(words []string) bool {
	if len(words) > 0 && words[0] == "command" {
		return len(words) > 1 && (words[1] == "-v" || words[1] == "-V")
	}
	w := stripWrappers(words)
	return len(w) > 0 && (w[0] == "which" || w[0] == "whereis" || w[0] == "type" || w[0] == "hash")
}

// gapQueries reads the names a segment looks for or installs.
func gapQueries(words []string) []gapQuery {
	var out []gapQuery
	add := func(w string, tells bool) {
		if n := gapName(w); n != "" {
			out = append(out, gapQuery{n, tells})
		}
	}
	args := func(w []string, tells bool) {
		for i := 0; i < len(w); i++ {
			a := w[i]
			switch {
			case contains(valueFlags, a):
				i++ // its value
			case a == "" || strings.ContainsRune("-./~$", rune(a[0])):
				// a flag; a path (., ./pkg, /tmp/x.whl, ~/src)
			case hasFileExt(a):
			default:
				add(a, tells)
			}
		}
	}
	if len(words) > 1 && words[0] == "command" && (words[1] == "-v" || words[1] == "-V") {
		args(words[2:], true)
		return out
	}
	w := stripWrappers(words)
	if len(w) < 2 {
		return nil
	}
	switch p := baseName(w[0]); p {
	case "which", "whereis", "type", "hash":
		args(w[1:], p != "whereis") // whereis exits 0 whatever it finds
		return out
	case "ls":
		for _, a := range w[1:] {
			if dir, _, ok := cutLast(a, "/"); ok && !strings.HasPrefix(a, "-") && (strings.HasSuffix(dir, "bin") || strings.HasSuffix(dir, "bin/")) {
				add(a, true) // ls /usr/local/bin/jq, ls ~/.cargo/bin/rg
			}
		}
		return out
	case "find":
		return findQueries(w[1:])
	case "python", "python3":
		if len(w) > 3 && w[1] == "-m" && w[2] == "pip" {
			w = w[2:] // python -m pip show X: pip's own
		} else {
			return nil
		}
	}
	mgr := baseName(w[0])
	// The subcommand: the first word that is no flag, or a flag subcommand
	// (dpkg -l, pacman -S).
	sub, rest := "", []string(nil)
	for i, a := range w[1:] {
		if _, ok := lookupBy(mgr, a); ok || installBy(mgr, a) || !strings.HasPrefix(a, "-") {
			sub, rest = a, w[i+2:]
			break
		}
	}
	if tells, ok := lookupBy(mgr, sub); ok {
		args(rest, tells)
	} else if installBy(mgr, sub) {
		if mgr == "npm" || mgr == "pnpm" || mgr == "yarn" {
			if !contains(rest, "-g") && !contains(rest, "--global") && !(mgr == "yarn" && contains(w, "global")) {
				return nil // a project's dependency, not a tool
			}
		}
		args(rest, true)
	}
	return out
}

// findQueries reads `find <dirs> -name X`: a program looked for where
// programs live (not a file of the project).
func findQueries(w []string) []gapQuery {
	inSys := false
	for _, a := range w {
		if strings.HasPrefix(a, "-") {
			break
		}
		inSys = inSys || inSysDir(a)
	}
	if !inSys {
		return nil
	}
	var out []gapQuery
	for i := 0; i+1 < len(w); i++ {
		if w[i] == "-name" || w[i] == "-iname" {
			if n := gapName(strings.Trim(w[i+1], "*")); n != "" {
				out = append(out, gapQuery{n, false}) // find exits 0 whatever it finds
			}
		}
	}
	return out
}

// inSysDir: a path of the system, where programs are kept.
func inSysDir(p string) bool {
	for _, d := range sysDirs {
		if p == d || strings.HasPrefix(p, strings.TrimSuffix(d, "/")+"/") {
			return true
		}
	}
	return false
}

func hasFileExt(a string) bool {
	for _, e := range fileExt {
		if strings.HasSuffix(a, e) {
			return true
		}
	}
	return false
}

// cutLast cuts s around the last sep.
func cutLast(s, sep string) (string, string, bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}

// gapName is a program's or package's name as the gaps keep it: the base
// name, without a version (`jq@1.7`, `black==24.1`, `tool@latest`) and
// without an npm scope, and only when it looks like a name (letters,
// digits, . _ + -, starting with a letter or digit, at most maxGapName):
// anything else (a path of the project, a quoted phrase, a variable) is
// nothing the gaps can name.
func gapName(w string) string {
	w = strings.Trim(w, `'"`)
	w = progName(strings.TrimPrefix(w, "@")) // @scope/name@version, a/module/path/cmd@latest, /usr/bin/jq
	if i := strings.IndexAny(w, "@=<>~!["); i >= 0 {
		w = w[:i]
	}
	if w == "" || len(w) > maxGapName || neutral(w) {
		return ""
	}
	for i, r := range w {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case i > 0 && (r == '.' || r == '_' || r == '+' || r == '-'):
		default:
			return ""
		}
	}
	return w
}

// MissingProgram is the program a failed shell call could not find: the
// one its error text names in a shell's "not found" message (bash, sh,
// dash, zsh, fish, env, xargs, PowerShell, cmd.exe), or, with exit status
// 127 (POSIX's "command not found") and no such message, the one program
// the command runs. The name is kept only when the command itself (cmd:
// the journal's redacted preview) runs it, so nothing but a word of the
// recorded command is kept. "" when neither settles it.
func MissingProgram(exit *int, errText, cmd string) string {
	segs := splitShell(cmd)
	runs := func(name string) bool {
		for _, sg := range segs {
			for _, w := range sg.words {
				if gapName(w) == name {
					return true
				}
			}
		}
		return false
	}
	lines := strings.SplitN(errText, "\n", 24)
	if len(lines) > 23 {
		lines = lines[:23]
	}
	for _, ln := range lines {
		if n := notFoundName(strings.TrimSpace(ln)); n != "" && runs(n) {
			return n
		}
	}
	if exit == nil || *exit != 127 {
		return ""
	}
	one := "" // runsProgram skips a program run by its path: a missing script is no tool
	for _, sg := range segs {
		if p := runsProgram(sg.words); p != "" {
			if one != "" && one != p {
				return ""
			}
			one = p
		}
	}
	return one
}

// notFoundName reads one line of error text for a shell's "not found"
// message and returns the name it gives.
func notFoundName(ln string) string {
	if i := strings.Index(ln, "The term '"); i >= 0 { // PowerShell
		rest := ln[i+len("The term '"):]
		if j := strings.Index(rest, "' is not recognized"); j > 0 {
			return gapName(rest[:j])
		}
	}
	if strings.HasPrefix(ln, "'") { // cmd.exe
		if j := strings.Index(ln, "' is not recognized as an internal or external command"); j > 1 {
			return gapName(ln[1:j])
		}
	}
	f := strings.Split(ln, ": ")
	if len(f) < 3 {
		return ""
	}
	// zsh: "zsh: command not found: jq", "zsh:1: command not found: jq";
	// fish: "fish: Unknown command: jq".
	if len(f) == 3 && shellWord(f[0]) && (f[1] == "command not found" || f[1] == "Unknown command") {
		return gapName(f[2])
	}
	last := f[len(f)-1]
	if !shellWord(f[0]) {
		return ""
	}
	switch {
	case last == "command not found" || last == "not found":
	case last == "No such file or directory" && (baseName(f[0]) == "env" || baseName(f[0]) == "xargs"):
	default:
		return ""
	}
	return gapName(f[len(f)-2])
}

// shellWord: the prefix of a shell's (or env's, xargs's) own message:
// "bash", "/bin/sh", "zsh:1", "sh: 1" is split apart by the caller.
func shellWord(w string) bool {
	w, _, _ = strings.Cut(w, ":")
	switch baseName(w) {
	case "sh", "bash", "dash", "ash", "zsh", "ksh", "mksh", "fish", "env", "xargs":
		return true
	}
	return false
}
