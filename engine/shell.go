package engine

import (
	"strings"
)

// The classifier: what a lexed command line does, from the tables in
// shell_tables.go. The lexer is shell_lex.go.

// Shell is what cully understands of one shell command line, from its text
// alone (no I/O): its class, whether its exit status speaks for a check, and
// the file a plain read targets.
type Shell struct {
	Class Class
	// Masked: the status of a check is hidden behind a pipe, ';' or '||', so
	// an exit status 0 does not prove the check passed.
	Masked bool
	// Changes: the command writes files (redirection, sed -i, rm, formatters…).
	Changes bool
	// Target is the file of a single-file read (cat, head, sed -n …), "" otherwise.
	Target string
	// Ranged: the read of Target covers only part of the file.
	Ranged bool
	// Destructive names a command that throws uncommitted work away (git
	// reset --hard, git clean -f, rm -r …: destructive.go), "" otherwise.
	Destructive string
}

// ClassifyShell classifies a shell command line. Extra check prefixes and
// read-only command names come from the configuration.
func ClassifyShell(cmd string, cfg *Config) Shell {
	segs := splitShell(cmd)
	var out Shell
	pipefail := false
	var checkIdx []int
	classes := make([]Class, len(segs))
	nonNeutral := 0
	for i := range segs {
		sg := &segs[i]
		if isPipefail(sg.words) {
			pipefail = true
		}
		sg.pipefail = pipefail
		w := stripWrappers(sg.words)
		if d := destructive(w); d != "" && out.Destructive == "" {
			out.Destructive = d
		}
		c, changes, target, ranged := classifySegment(w, sg.redirs, cfg)
		classes[i] = c
		if changes {
			out.Changes = true
		}
		if c == "" {
			continue
		}
		nonNeutral++
		if c == ClassCheck {
			checkIdx = append(checkIdx, i)
		}
		if c == ClassRead && target != "" {
			out.Target, out.Ranged = target, ranged
		}
	}
	switch {
	case len(checkIdx) > 0:
		out.Class = ClassCheck
		for _, i := range checkIdx {
			if statusMasked(segs, classes, i) {
				out.Masked = true
			}
		}
	case out.Changes || has(classes, ClassEdit):
		out.Class = ClassEdit
	case has(classes, ClassPoll):
		// A wait beside a status query (`sleep 20 && kubectl rollout
		// status`, `sleep 2; curl …/healthz`) is following a job: a poll.
		out.Class = ClassPoll
	case has(classes, ClassRun):
		out.Class = ClassRun
	case has(classes, ClassRead):
		out.Class = ClassRead
	default:
		out.Class = ClassRun
	}
	if out.Class != ClassRead || nonNeutral != 1 {
		out.Target, out.Ranged = "", false
	}
	return out
}

func has(cs []Class, c Class) bool {
	for _, x := range cs {
		if x == c {
			return true
		}
	}
	return false
}

// statusMasked reports whether the exit status of segment i can be lost
// before the command line ends: piped into another command without
// pipefail, or followed by ';', '&' or '||' and a further command.
func statusMasked(segs []segment, classes []Class, i int) bool {
	for j := i; j < len(segs)-1; j++ {
		switch segs[j].op {
		case "|":
			if !segs[j].pipefail {
				return true
			}
		case ";", "&", "||":
			// A neutral tail such as `; echo done` still replaces the status.
			return true
		}
	}
	return segs[len(segs)-1].op == "&"
}

func isPipefail(w []string) bool {
	return len(w) >= 2 && w[0] == "set" && strings.Contains(strings.Join(w[1:], " "), "pipefail")
}

// stripWrappers drops what does not change which program runs: environment
// assignments, cd is handled as neutral, timeout/time/nice/env/command/exec,
// sudo, and xargs-free runners such as `uv run`.
func stripWrappers(w []string) []string {
	for len(w) > 0 {
		switch first := w[0]; {
		case strings.Contains(first, "=") && !strings.HasPrefix(first, "-") && !strings.HasPrefix(first, "="):
			w = w[1:]
		case first == "time" || first == "command" || first == "exec" || first == "builtin" || first == "nohup" || first == "sudo":
			w = w[1:]
			for len(w) > 0 && strings.HasPrefix(w[0], "-") {
				w = w[1:]
			}
		case first == "env":
			w = w[1:]
			for len(w) > 0 && (strings.HasPrefix(w[0], "-") || strings.Contains(w[0], "=")) {
				w = w[1:]
			}
		case first == "timeout" || first == "gtimeout":
			w = w[1:]
			for len(w) > 0 && strings.HasPrefix(w[0], "-") {
				if (w[0] == "-s" || w[0] == "-k" || w[0] == "--signal" || w[0] == "--kill-after") && len(w) > 1 {
					w = w[1:]
				}
				w = w[1:]
			}
			if len(w) > 0 {
				w = w[1:] // the duration
			}
		case first == "nice" || first == "ionice" || first == "stdbuf":
			w = w[1:]
			for len(w) > 0 && strings.HasPrefix(w[0], "-") {
				if (w[0] == "-n" || w[0] == "-c") && len(w) > 1 {
					w = w[1:]
				}
				w = w[1:]
			}
		default:
			return w
		}
	}
	return w
}

// classifySegment returns the class of one simple command ("" when neutral),
// whether it writes files, and the file of a plain single-file read.
func classifySegment(w []string, redirs []string, cfg *Config) (Class, bool, string, bool) {
	changes := len(redirs) > 0
	if len(w) == 0 {
		if changes {
			return ClassEdit, true, "", false
		}
		return "", false, "", false
	}
	name := baseName(w[0])
	if isCheck(w, cfg) {
		return ClassCheck, changes || formatterWrites(w), "", false
	}
	switch {
	case name == "sleep" || name == "wait" || name == "jobs":
		return ClassPoll, changes, "", false
	case name == "tail" && hasFlag(w[1:], "-f", "-F", "--follow"):
		return ClassPoll, changes, "", false
	case neutral(name):
		if changes {
			return ClassEdit, true, "", false
		}
		return "", false, "", false
	case name == "git":
		sub := gitSub(w[1:])
		switch {
		case gitChange(sub) && !gitLeavesTree(sub, gitRest(w[1:], sub)):
			return ClassEdit, true, "", false
		case gitRead(sub), gitChange(sub): // a branch made at HEAD reads like `git branch`
			return readOrEdit(changes)
		}
		return ClassRun, changes, "", false
	case name == "sed" || name == "perl":
		for _, a := range w[1:] {
			if a == "-i" || strings.HasPrefix(a, "-i") && name == "sed" || strings.HasPrefix(a, "--in-place") || name == "perl" && strings.HasPrefix(a, "-") && strings.Contains(a, "i") && !strings.HasPrefix(a, "--") {
				return ClassEdit, true, "", false
			}
		}
		if name == "perl" {
			return ClassRun, changes, "", false
		}
	case name == "tee":
		for _, a := range w[1:] {
			if !strings.HasPrefix(a, "-") && isFileTarget(a) {
				return ClassEdit, true, "", false
			}
		}
		return "", changes, "", false
	case name == "find":
		for i, a := range w[1:] {
			if a == "-delete" || a == "-exec" || a == "-execdir" || a == "-ok" {
				if a == "-delete" {
					return ClassEdit, true, "", false
				}
				// The command find runs on each file is what the call does:
				// `find . -name '*.go' -exec sed -i … {} +` edits them all.
				inner := w[i+2:]
				for j, x := range inner {
					if x == ";" || x == "+" || x == `\;` {
						inner = inner[:j]
						break
					}
				}
				if c, ch, _, _ := classifySegment(stripWrappers(inner), nil, cfg); c == ClassEdit {
					return ClassEdit, true, "", false
				} else if ch {
					changes = true
				}
				return ClassRun, changes, "", false
			}
		}
	case changers(name):
		return ClassEdit, true, "", false
	case formatterWrites(w):
		return ClassEdit, true, "", false
	}
	if readOnly(name) || contains(cfg.ReadOnly, name) {
		if changes {
			return ClassEdit, true, "", false
		}
		target, ranged := readTarget(name, w[1:])
		return ClassRead, false, target, ranged
	}
	if changes {
		return ClassEdit, true, "", false
	}
	return ClassRun, false, "", false
}

func readOrEdit(changes bool) (Class, bool, string, bool) {
	if changes {
		return ClassEdit, true, "", false
	}
	return ClassRead, false, "", false
}

// readTarget names the file of a plain single-file read and whether the read
// is ranged. Anything more complex names no target.
func readTarget(name string, args []string) (string, bool) {
	var files []string
	ranged := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			switch name {
			case "head", "tail":
				ranged = true
				if (a == "-n" || a == "-c") && i+1 < len(args) {
					i++
				}
			case "sed":
				if a == "-n" {
					ranged = true
				}
			}
			continue
		}
		files = append(files, a)
	}
	switch name {
	case "cat", "bat", "batcat", "less", "more", "nl":
		if len(files) == 1 {
			return files[0], false
		}
	case "head", "tail":
		if len(files) == 1 {
			return files[0], true
		}
	case "sed":
		if ranged && len(files) == 2 {
			return files[1], true
		}
	}
	_ = ranged
	return "", false
}

// gitRest is what follows the subcommand sub (gitSub's) in git's arguments.
func gitRest(args []string, sub string) []string {
	if _, i := gitSubAt(args); i >= 0 && args[i] == sub {
		return args[i+1:]
	}
	return nil
}

// gitLeavesTree reports whether a subcommand that can rewrite the work
// tree leaves it as it is this time: `git stash list` and `show` only read,
// `git reset` without --hard (--merge, --keep) moves HEAD and the index,
// and `git checkout -b NAME` or `git switch -c NAME` with no start point
// make a branch at HEAD. Taken for edits, they opened "edits with no check
// since" on a work tree nothing changed (a commit right after a passing
// test, judged noise blind).
func gitLeavesTree(sub string, rest []string) bool {
	var pos []string
	for _, a := range rest {
		if !strings.HasPrefix(a, "-") {
			pos = append(pos, a)
		}
	}
	switch sub {
	case "stash":
		return len(pos) > 0 && (pos[0] == "list" || pos[0] == "show")
	case "reset":
		return !hasFlag(rest, "--hard", "--merge", "--keep") // moves HEAD and the index only
	case "checkout":
		return hasFlag(rest, "-b", "-B") && len(pos) <= 1 && !hasFlag(rest, "--", "-f", "--force", "-p", "--patch")
	case "switch":
		return hasFlag(rest, "-c", "-C", "--create", "--force-create") && len(pos) <= 1 && !hasFlag(rest, "-f", "--force", "--discard-changes")
	}
	return false
}

func gitSub(args []string) string {
	sub, _ := gitSubAt(args)
	return sub
}

// gitSubAt is git's subcommand and its index in args ("", -1: none),
// past the global options and their values.
func gitSubAt(args []string) (string, int) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-C" || a == "-c" || a == "--git-dir" || a == "--work-tree" {
			i++
			continue
		}
		if strings.HasPrefix(a, "-") {
			continue
		}
		return a, i
	}
	return "", -1
}

// formatterWrites reports whether a formatter or fixer rewrites files.
func formatterWrites(w []string) bool {
	name := baseName(w[0])
	switch name {
	case "gofmt", "goimports", "gofumpt":
		return hasFlag(w[1:], "-w")
	case "prettier", "biome":
		return hasFlag(w[1:], "--write", "-w", "--apply", "--fix")
	case "eslint", "ruff", "stylelint", "rubocop":
		return hasFlag(w[1:], "--fix", "-a", "-A", "--fix-only") || name == "ruff" && len(w) > 1 && w[1] == "format" && !hasFlag(w[2:], "--check")
	case "black", "isort", "rustfmt", "autopep8":
		return !hasFlag(w[1:], "--check", "--diff")
	case "go":
		return len(w) > 1 && (w[1] == "fmt" || w[1] == "generate" || w[1] == "get" || w[1] == "mod" && len(w) > 2 && (w[2] == "tidy" || w[2] == "edit"))
	case "cargo":
		return len(w) > 1 && w[1] == "fmt" && !hasFlag(w[2:], "--check")
	}
	return false
}

func hasFlag(args []string, flags ...string) bool {
	for _, a := range args {
		for _, f := range flags {
			if a == f {
				return true
			}
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 && i < len(p)-1 && !strings.HasPrefix(p, "./") {
		return p[i+1:]
	}
	return p
}

// isCheck matches the leading words against the check patterns.
func isCheck(w []string, cfg *Config) bool {
	w = stripRunner(w)
	if len(w) == 0 {
		return false
	}
	for _, p := range cfg.Checks {
		if matchPattern(w, p) {
			return true
		}
	}
	return builtinCheck(w) || scriptCheck(w)
}

// scriptCheck recognises a project's own check script, run by its path
// (./test.sh, script/test, hack/verify-gofmt.sh, bin/lint, or through an
// interpreter: bash scripts/test.sh, python tools/run_tests.py) or as a
// task file (mise-tasks/lint/go), by its name: test, lint, check, verify
// or typecheck, alone or first in the name ("test-all.sh", "lint_go").
// A program on PATH is never one: only a path names the project's own
// script, and a name can mean anything in someone's PATH. Of the 9,238
// shell commands of the development corpus's sessions it matches 6 that no
// pattern did, each a check: a project's lint tasks run by their path (4)
// and a test file run by python3 (2).
func scriptCheck(w []string) bool {
	if len(w) > 1 && interpreter(baseName(w[0])) {
		w = w[1:]
	}
	p := w[0]
	if !strings.Contains(p, "/") || strings.HasPrefix(p, "-") {
		return false
	}
	parts := strings.Split(strings.TrimSuffix(p, "/"), "/")
	name := strings.ToLower(parts[len(parts)-1])
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		switch name[i+1:] {
		case "sh", "bash", "zsh", "py", "js", "mjs", "ts", "rb", "pl", "ps1", "cmd", "bat":
			name = name[:i]
		default:
			return false // a data file, a binary's version suffix: not a script's name
		}
	}
	if checkName(name) {
		return true
	}
	// A task runner's folder of tasks: mise-tasks/lint/go is `mise run lint:go`.
	if len(parts) >= 3 {
		dir, tasks := strings.ToLower(parts[len(parts)-2]), strings.ToLower(parts[len(parts)-3])
		return checkName(dir) && (tasks == "mise-tasks" || tasks == "tasks")
	}
	return false
}

// checkName: a script or task named for a check (not one that serves,
// watches or sets up for the tests: test-server, lint-watch).
func checkName(name string) bool {
	for _, not := range []string{"serve", "watch", "setup", "fixture", "data", "helper", "util", "env"} {
		if strings.Contains(name, not) {
			return false
		}
	}
	for _, c := range []string{"test", "tests", "lint", "check", "checks", "verify", "typecheck", "run_tests", "run-tests", "runtests", "cibuild"} {
		if name == c {
			return true
		}
		if strings.HasPrefix(name, c) && len(name) > len(c) && (name[len(c)] == '-' || name[len(c)] == '_' || name[len(c)] == ':') {
			return true
		}
	}
	return false
}

// interpreter runs the script named by its next word.
func interpreter(name string) bool {
	switch name {
	case "bash", "sh", "zsh", "dash", "python", "python3", "node", "ruby", "perl", "pwsh", "deno", "bun", "tsx", "ts-node":
		return true
	}
	return false
}

// builtinCheck matches non-empty leading words against checkPatterns.
// Only the patterns that start with the command's program can match (by
// its base name, or as written for a pattern like ./gradlew): trying all
// 156 in turn made classifying five commands take 17-27 µs against 6-10
// (BenchmarkClassifyShell), and replay classifies every command it reads.
func builtinCheck(w []string) bool {
	name := baseName(w[0])
	return checkFirst(w, name) || name != w[0] && checkFirst(w, w[0])
}

// checkFirst matches w against the patterns whose first word is first.
// Their words are static data that TestCheckWordsTable writes
// (shell_words.go): splitting the patterns in the process took a hook call
// that saw a shell command 17 µs and 160 allocations.
func checkFirst(w []string, first string) bool {
	for _, i := range checkPatternsFor(first) {
		if matchWords(w, checkPatterns[i], checkPatternWords[i]) {
			return true
		}
	}
	return false
}

func stripRunner(w []string) []string {
	for changed := true; changed; {
		changed = false
		for _, r := range runnerPrefixes {
			if len(w) > len(r) && prefixEq(w, r) {
				w = w[len(r):]
				changed = true
			}
		}
	}
	return w
}

func prefixEq(w, p []string) bool {
	for i := range p {
		if baseName(w[i]) != p[i] && w[i] != p[i] {
			return false
		}
	}
	return true
}

// matchPattern reports whether a command's leading words match a check
// pattern. The first word matches by base name, so /usr/bin/go and go
// agree; a trailing "*" matches any word that starts with the prefix.
func matchPattern(w []string, pattern string) bool {
	return matchWords(w, pattern, strings.Fields(pattern))
}

// matchWords is matchPattern with the pattern already split.
func matchWords(w []string, pattern string, words []string) bool {
	if len(words) == 0 || len(w) < len(words) {
		return false
	}
	// `make` alone is a check only with no target: guard the bare pattern.
	if pattern == "make" && len(w) > 1 && !strings.HasPrefix(w[1], "-") {
		return false
	}
	for i, p := range words {
		word := w[i]
		if i == 0 && !strings.HasPrefix(p, "./") {
			word = baseName(word)
		}
		if strings.HasSuffix(p, "*") {
			if !strings.HasPrefix(word, strings.TrimSuffix(p, "*")) {
				return false
			}
			continue
		}
		if word != p {
			return false
		}
	}
	return true
}
