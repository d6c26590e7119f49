package engine

import (
	"strings"
	"sync"
)

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
}

type segment struct {
	words    []string
	redirs   []string // redirection targets that are files
	op       string   // operator that follows: "&&", "||", ";", "|", "&" or "" at the end
	pipefail bool
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
	case has(classes, ClassRun):
		out.Class = ClassRun
	case has(classes, ClassRead):
		out.Class = ClassRead
	case has(classes, ClassPoll):
		out.Class = ClassPoll
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

// splitShell tokenizes a command line into segments, honouring quotes and
// escapes. It is deliberately forgiving: a command it cannot parse still
// yields words.
func splitShell(s string) []segment {
	var segs []segment
	var cur segment
	var word strings.Builder
	inWord := false
	pendingRedir := false
	flushWord := func() {
		if !inWord {
			return
		}
		w := word.String()
		word.Reset()
		inWord = false
		if pendingRedir {
			pendingRedir = false
			if isFileTarget(w) {
				cur.redirs = append(cur.redirs, w)
			}
			return
		}
		cur.words = append(cur.words, w)
	}
	endSeg := func(op string) {
		flushWord()
		cur.op = op
		if len(cur.words) > 0 || len(cur.redirs) > 0 {
			segs = append(segs, cur)
		} else if len(segs) > 0 && op != "" {
			segs[len(segs)-1].op = op
		}
		cur = segment{}
	}
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case c == '\\' && i+1 < len(rs):
			if rs[i+1] == '\n' {
				i++
				continue
			}
			word.WriteRune(rs[i+1])
			inWord = true
			i++
		case c == '\'':
			j := i + 1
			for j < len(rs) && rs[j] != '\'' {
				j++
			}
			word.WriteString(string(rs[i+1 : min(j, len(rs))]))
			inWord = true
			i = j
		case c == '"':
			j := i + 1
			for j < len(rs) && rs[j] != '"' {
				if rs[j] == '\\' && j+1 < len(rs) {
					j++
				}
				j++
			}
			word.WriteString(string(rs[i+1 : min(j, len(rs))]))
			inWord = true
			i = j
		case c == ' ' || c == '\t':
			flushWord()
		case c == '\n' || c == ';':
			endSeg(";")
		case c == '&':
			if i+1 < len(rs) && rs[i+1] == '&' {
				endSeg("&&")
				i++
			} else if i+1 < len(rs) && rs[i+1] == '>' { // &> file
				flushWord()
				pendingRedir = true
				i++
				if i+1 < len(rs) && rs[i+1] == '>' {
					i++
				}
			} else {
				endSeg("&")
			}
		case c == '|':
			if i+1 < len(rs) && rs[i+1] == '|' {
				endSeg("||")
				i++
			} else {
				endSeg("|")
			}
		case c == '>':
			// N>&M duplicates a descriptor: no file.
			prefix := word.String()
			if inWord && !isDigits(prefix) {
				flushWord()
			} else {
				word.Reset()
				inWord = false
			}
			if i+1 < len(rs) && rs[i+1] == '>' {
				i++
			}
			if i+1 < len(rs) && rs[i+1] == '&' {
				// >&2 or 2>&1: skip the descriptor
				i++
				for i+1 < len(rs) && rs[i+1] >= '0' && rs[i+1] <= '9' {
					i++
				}
				continue
			}
			pendingRedir = true
		case c == '<':
			flushWord()
			// Input redirection and here-docs read; skip the operator and the
			// following word (the file or the delimiter).
			for i+1 < len(rs) && (rs[i+1] == '<' || rs[i+1] == '-') {
				i++
			}
			skipWord := true
			for skipWord && i+1 < len(rs) && (rs[i+1] == ' ' || rs[i+1] == '\t') {
				i++
			}
			for i+1 < len(rs) && rs[i+1] != ' ' && rs[i+1] != '\n' && rs[i+1] != ';' && rs[i+1] != '|' && rs[i+1] != '&' {
				i++
			}
			if i+1 < len(rs) && rs[i+1] == '\n' {
				// a here-doc body follows: it is data, not commands
				return appendTail(segs, cur, word, inWord)
			}
		default:
			word.WriteRune(c)
			inWord = true
		}
	}
	endSeg("")
	return segs
}

// appendTail closes the segment in progress when the rest of the line is a
// here-doc body.
func appendTail(segs []segment, cur segment, word strings.Builder, inWord bool) []segment {
	if inWord {
		cur.words = append(cur.words, word.String())
	}
	if len(cur.words) > 0 || len(cur.redirs) > 0 {
		segs = append(segs, cur)
	}
	return segs
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func isFileTarget(w string) bool {
	return w != "" && w != "/dev/null" && w != "/dev/stdout" && w != "/dev/stderr" && !strings.HasPrefix(w, "&")
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

// runnerPrefixes run another program named by the next words; they are
// dropped before check patterns are matched ("npx tsc", "uv run pytest").
var runnerPrefixes = [][]string{
	{"npx"}, {"bunx"}, {"pnpx"}, {"pnpm", "exec"}, {"pnpm", "dlx"}, {"yarn", "exec"}, {"yarn", "dlx"},
	{"uv", "run"}, {"uvx"}, {"poetry", "run"}, {"pipenv", "run"}, {"pdm", "run"}, {"hatch", "run"},
	{"bundle", "exec"}, {"python", "-m"}, {"python3", "-m"}, {"py", "-m"}, {"go", "tool"},
	{"mise", "exec", "--"}, {"dotenv", "--"},
}

// checkPatterns are the default check commands: tests, builds, linters and
// type checks. Broad on purpose: a missed check runner turns into a false
// unverified-edits alarm. Each is matched against the leading words; a
// trailing "*" matches any word that starts with the prefix.
var checkPatterns = []string{
	"go test", "go vet", "go build", "go install", "gotestsum", "golangci-lint", "staticcheck", "govulncheck", "gofmt -l", "revive",
	"pytest", "py.test", "tox", "nox", "mypy", "pyright", "ruff check", "ruff format --check", "flake8", "pylint", "black --check", "unittest",
	"npm test", "npm t", "npm run test*", "npm run lint*", "npm run check*", "npm run typecheck*", "npm run type-check*", "npm run build*", "npm run vet*",
	"pnpm test", "pnpm run test*", "pnpm run lint*", "pnpm run check*", "pnpm run typecheck*", "pnpm run build*", "pnpm test*", "pnpm lint*", "pnpm typecheck*", "pnpm build*", "pnpm check*",
	"yarn test*", "yarn lint*", "yarn typecheck*", "yarn build*", "yarn check*", "yarn run test*", "yarn run lint*", "yarn run typecheck*", "yarn run build*",
	"bun test", "bun run test*", "bun run lint*", "bun run typecheck*", "bun run build*", "bun run check*",
	"deno test", "deno check", "deno lint",
	"cargo test", "cargo check", "cargo clippy", "cargo build", "cargo nextest", "cargo fmt --check",
	"make test*", "make check*", "make lint*", "make vet*", "make typecheck*", "make build", "make",
	"just test*", "just check*", "just lint*", "just vet*", "just typecheck*",
	"mise run test*", "mise run check*", "mise run lint*", "mise run typecheck*", "mise test*",
	"task test*", "task check*", "task lint*", "task vet*", "task typecheck*",
	"mix test", "mix compile", "mix credo", "mix format --check-formatted", "mix dialyzer",
	"rspec", "rake test*", "rake spec", "rubocop", "bin/rails test",
	"gradle test", "gradle check", "gradle build", "./gradlew test", "./gradlew check", "./gradlew build", "gradlew test",
	"mvn test", "mvn verify", "mvn package", "mvn compile", "./mvnw test", "./mvnw verify",
	"dotnet test", "dotnet build", "swift test", "swift build", "ctest", "zig build test", "zig test",
	"tsc", "vue-tsc", "eslint", "biome check", "biome lint", "biome ci", "prettier --check", "prettier -c", "stylelint",
	"jest", "vitest", "mocha", "ava", "playwright test", "cypress run", "karma start",
	"phpunit", "vendor/bin/phpunit", "composer test", "phpstan", "psalm",
	"shellcheck", "hadolint", "terraform validate", "tflint", "bazel test", "bazel build", "buck2 test",
	"clang-tidy", "cppcheck", "meson test", "ninja test", "cmake --build", "elm-test", "stack test", "cabal test", "dune test", "dune build",
}

// checkWords are checkPatterns split into words, once, when a command is
// first classified (not at start-up: most hook calls classify none).
var checkWords = sync.OnceValue(func() [][]string {
	w := make([][]string, len(checkPatterns))
	for i, p := range checkPatterns {
		w[i] = strings.Fields(p)
	}
	return w
})

// readOnly commands only read the tree (after wrappers are stripped).
func readOnly(s string) bool {
	switch s {
	case "cat", "head", "tail", "less", "more", "wc", "rg", "grep", "egrep", "fgrep", "ag", "ack", "find",
		"fd", "fdfind", "ls", "tree", "file", "stat", "du", "df", "pwd", "which", "whereis", "type",
		"realpath", "readlink", "basename", "dirname", "diff", "cmp", "sort", "uniq", "cut", "jq", "yq",
		"bat", "batcat", "nl", "od", "xxd", "hexdump", "strings", "column", "sed", "awk", "tr", "comm",
		"printenv", "locate", "zcat", "md5sum", "sha256sum", "sha1sum", "tac":
		return true
	}
	return false
}

// neutral commands do not decide a command line's class.
func neutral(s string) bool {
	switch s {
	case "cd", "pushd", "popd", "set", "export", "echo", "printf", "true", ":", "unset", "source", ".",
		"shopt", "trap", "exit", "date", "clear", "read":
		return true
	}
	return false
}

// changers modify files whatever their arguments.
func changers(s string) bool {
	switch s {
	case "rm", "mv", "cp", "touch", "mkdir", "rmdir", "ln", "chmod", "chown", "patch", "truncate",
		"install", "dd", "unzip", "rsync", "shred":
		return true
	}
	return false
}

// gitRead are git subcommands that only read.
func gitRead(s string) bool {
	switch s {
	case "status", "log", "show", "diff", "blame", "grep", "ls-files", "rev-parse", "describe", "shortlog",
		"reflog", "ls-tree", "cat-file", "whatchanged", "branch", "tag", "remote", "config", "rev-list",
		"show-ref", "merge-base", "name-rev", "for-each-ref", "worktree":
		return true
	}
	return false
}

// gitChange are git subcommands that rewrite the work tree.
func gitChange(s string) bool {
	switch s {
	case "apply", "am", "checkout", "restore", "reset", "merge", "rebase", "cherry-pick", "revert", "mv",
		"rm", "pull", "switch", "clean", "stash":
		return true
	}
	return false
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
		case gitChange(sub):
			return ClassEdit, true, "", false
		case gitRead(sub):
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
		for _, a := range w[1:] {
			if a == "-delete" || a == "-exec" || a == "-execdir" || a == "-ok" {
				if a == "-delete" {
					return ClassEdit, true, "", false
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

func gitSub(args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-C" || a == "-c" || a == "--git-dir" || a == "--work-tree" {
			i++
			continue
		}
		if strings.HasPrefix(a, "-") {
			continue
		}
		return a
	}
	return ""
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
	words := checkWords()
	for i, p := range checkPatterns {
		if matchWords(w, p, words[i]) {
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

// matchPattern matches "go test" or "npm run test*" against leading words.
// The first word matches by base name, so /usr/bin/go and go agree. The
// pattern's words are walked in place (no slice per call: a replay
// matches every pattern against every command it reads).
func matchPattern(w []string, pattern string) bool {
	if bareMake(w, pattern) {
		return false
	}
	i := 0
	for p := range strings.FieldsSeq(pattern) {
		if i >= len(w) || !wordMatches(i, w[i], p) {
			return false // a word differs, or the pattern is longer than the command
		}
		i++
	}
	return i > 0
}

// matchWords is matchPattern with the pattern already split (the built-in
// patterns, split once).
func matchWords(w []string, pattern string, words []string) bool {
	if len(words) == 0 || len(w) < len(words) || bareMake(w, pattern) {
		return false
	}
	for i, p := range words {
		if !wordMatches(i, w[i], p) {
			return false
		}
	}
	return true
}

// bareMake: `make` alone is a check only with no target.
func bareMake(w []string, pattern string) bool {
	return pattern == "make" && len(w) > 1 && !strings.HasPrefix(w[1], "-")
}

// wordMatches matches the command's i-th word against the pattern's.
func wordMatches(i int, word, p string) bool {
	if i == 0 && !strings.HasPrefix(p, "./") {
		word = baseName(word)
	}
	if strings.HasSuffix(p, "*") {
		return strings.HasPrefix(word, strings.TrimSuffix(p, "*"))
	}
	return word == p
}
