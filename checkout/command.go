package checkout

import (
	"strconv"
	"strings"
)

// segment is one simple command of a command line.
type segment struct {
	words   []string
	redirs  []redir
	op      string // operator after it: "|", "|&", "&&", "||", ";", "&" or "" at the end
	depth   int    // group depth ( `(` or `{` ) at its start
	opDepth int    // group depth at the operator after it
}

// redir is one redirection: fd 1, 2, or 0 for both (`&>`), to a file target
// or, with dup, to another descriptor ("1", "2").
type redir struct {
	fd     int
	target string
	dup    bool
}

// splitCommand tokenizes a shell command line into segments, honouring
// quotes, escapes, command substitutions, groups and redirections. It is
// forgiving: a line it cannot parse still yields words.
func splitCommand(s string) []segment {
	var segs []segment
	var cur segment
	var word strings.Builder
	inWord := false
	depth := 0
	cur.depth = 0
	endWord := func() {
		if !inWord {
			return
		}
		w := word.String()
		word.Reset()
		inWord = false
		switch w {
		case "{":
			depth++
			if len(cur.words) == 0 {
				cur.depth = depth
			}
			return
		case "}":
			if depth > 0 {
				depth--
			}
			return
		}
		cur.words = append(cur.words, w)
	}
	endSeg := func(op string) {
		endWord()
		cur.op = op
		cur.opDepth = depth
		if len(cur.words) > 0 || len(cur.redirs) > 0 || op == "|" || op == "|&" {
			segs = append(segs, cur)
		}
		cur = segment{depth: depth}
	}
	// readTarget reads the word after a redirection operator.
	readTarget := func(i int) (string, int) {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		var t strings.Builder
		for i < len(s) {
			c := s[i]
			if c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '|' || c == '&' || c == '<' || c == '>' || c == '(' || c == ')' {
				break
			}
			switch c {
			case '\'':
				j := strings.IndexByte(s[i+1:], '\'')
				if j < 0 {
					t.WriteString(s[i+1:])
					return t.String(), len(s)
				}
				t.WriteString(s[i+1 : i+1+j])
				i += j + 2
				continue
			case '"':
				j := i + 1
				for j < len(s) && s[j] != '"' {
					if s[j] == '\\' && j+1 < len(s) {
						j++
					}
					t.WriteByte(s[j])
					j++
				}
				i = j + 1
				continue
			case '\\':
				if i+1 < len(s) {
					t.WriteByte(s[i+1])
					i += 2
					continue
				}
			}
			t.WriteByte(c)
			i++
		}
		return t.String(), i
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			endWord()
			i++
		case c == '\n':
			endSeg(";")
			i++
		case c == '#' && !inWord:
			j := strings.IndexByte(s[i:], '\n')
			if j < 0 {
				i = len(s)
			} else {
				i += j
			}
		case c == '\\':
			if i+1 < len(s) {
				if s[i+1] != '\n' {
					word.WriteByte(s[i+1])
					inWord = true
				}
				i += 2
			} else {
				i++
			}
		case c == '\'':
			inWord = true
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				word.WriteString(s[i+1:])
				i = len(s)
			} else {
				word.WriteString(s[i+1 : i+1+j])
				i += j + 2
			}
		case c == '"':
			inWord = true
			j := i + 1
			for j < len(s) && s[j] != '"' {
				if s[j] == '\\' && j+1 < len(s) && strings.IndexByte("\"\\$`\n", s[j+1]) >= 0 {
					j++
				}
				word.WriteByte(s[j])
				j++
			}
			i = j + 1
		case c == '`':
			inWord = true
			j := strings.IndexByte(s[i+1:], '`')
			if j < 0 {
				word.WriteString(s[i:])
				i = len(s)
			} else {
				word.WriteString(s[i : i+j+2])
				i += j + 2
			}
		case c == '$' && i+1 < len(s) && (s[i+1] == '(' || s[i+1] == '{'):
			inWord = true
			open, close := s[i+1], byte(')')
			if open == '{' {
				close = '}'
			}
			n, j := 0, i+1
			for ; j < len(s); j++ {
				if s[j] == open {
					n++
				} else if s[j] == close {
					n--
					if n == 0 {
						break
					}
				}
			}
			if j >= len(s) {
				j = len(s) - 1
			}
			word.WriteString(s[i : j+1])
			i = j + 1
		case c == '|':
			switch {
			case i+1 < len(s) && s[i+1] == '|':
				endSeg("||")
				i += 2
			case i+1 < len(s) && s[i+1] == '&':
				endSeg("|&")
				i += 2
			default:
				endSeg("|")
				i++
			}
		case c == '&':
			switch {
			case i+1 < len(s) && s[i+1] == '&':
				endSeg("&&")
				i += 2
			case i+1 < len(s) && s[i+1] == '>':
				endWord()
				j := i + 2
				if j < len(s) && s[j] == '>' {
					j++
				}
				t, k := readTarget(j)
				cur.redirs = append(cur.redirs, redir{fd: 0, target: t})
				i = k
			default:
				endSeg("&")
				i++
			}
		case c == ';':
			endSeg(";")
			i++
			for i < len(s) && s[i] == ';' {
				i++
			}
		case c == '(' && !inWord:
			depth++
			if len(cur.words) == 0 {
				cur.depth = depth
			}
			i++
		case c == ')':
			endWord()
			if depth > 0 {
				depth--
			}
			i++
		case c == '>' || c == '<':
			fd := 1
			if c == '<' {
				fd = -1
			}
			if inWord {
				if n, err := strconv.Atoi(word.String()); err == nil && n >= 0 && n < 10 {
					fd = n
					word.Reset()
					inWord = false
				}
			}
			endWord()
			j := i + 1
			for j < len(s) && (s[j] == '>' || s[j] == '<' || s[j] == '|') {
				j++
			}
			dup := false
			if j < len(s) && s[j] == '&' {
				dup = true
				j++
			}
			t, k := readTarget(j)
			i = k
			if fd < 0 || fd > 2 {
				continue // input or another descriptor: nothing of ours
			}
			if dup && (t == "" || t[0] < '0' || t[0] > '9') && t != "-" {
				// `>&file` sends both streams to the file.
				cur.redirs = append(cur.redirs, redir{fd: 0, target: t})
				continue
			}
			cur.redirs = append(cur.redirs, redir{fd: fd, target: t, dup: dup})
		default:
			word.WriteByte(c)
			inWord = true
			i++
		}
	}
	endSeg("")
	return segs
}

// plan is what the command line tells about reading its output.
type plan struct {
	readers []*reader // in priority order; nil before resolve
	named   [numReaders]bool
	direct  bool // every check segment named its runner (no wrapper or unknown script)
	silent  bool // every check segment is a runner that prints nothing on success
	goOne   bool // go test of a single package
	maxWarn int  // eslint --max-warnings, -1 when absent
	echoes  []string
	view    cmdView
}

// cmdView is how the command's plumbing shapes the visible output.
type cmdView struct {
	cuts       []cut
	filtered   bool // a filter (grep, sed, awk, sort, …) or a file stands between the check and the output
	stderrLost bool // the check's stderr goes to /dev/null or a file
}

// cut is a `head` or `tail` the output went through.
type cut struct {
	tail  bool // tail (keeps the end) rather than head (keeps the start)
	bytes bool // -c: n counts bytes, not lines
	n     int  // lines or bytes kept; for tail from the start (`+N`), the first line kept
	from  bool // tail -n +N: drops the start, keeps the end
	neg   bool // head -n -N: drops the end always
}

// neutralCommand reports commands that print nothing a reader needs and
// never are the check.
func neutralCommand(name string) bool {
	switch name {
	case "cd", "pushd", "popd", "export", "set", "source", ".", "echo", "printf", "true", "false",
		":", "sleep", "clear", "unset", "ulimit", "wait", "exit", "trap", "mkdir", "rm", "cp", "mv",
		"touch", "ls", "pwd", "date", "which", "git", "cat", "head", "tail", "wc", "grep":
		return true
	}
	return false
}

// parseCommand builds the plan for a command line.
func parseCommand(command string) plan {
	segs := splitCommand(command)
	p := plan{maxWarn: -1, direct: true, silent: true}
	consumer := make([]bool, len(segs))
	for i := 1; i < len(segs); i++ {
		if segs[i-1].op == "|" || segs[i-1].op == "|&" {
			consumer[i] = true
		}
	}
	var checks []int
	anyWrapper := false
	var order []int
	for i, sg := range segs {
		w := stripAssignments(sg.words)
		if len(w) == 0 {
			continue
		}
		name := baseName(w[0])
		if name == "echo" {
			if lit, ok := echoLiteral(w[1:]); ok {
				p.echoes = append(p.echoes, lit)
			}
		}
		if consumer[i] || neutralCommand(name) {
			continue
		}
		checks = append(checks, i)
		r, args := resolveRunner(w)
		if r == nil {
			anyWrapper = true
			p.direct = false
			p.silent = false
			continue
		}
		if r.wrapper {
			anyWrapper = true
			p.direct = false
			p.silent = false
		} else if !r.silent {
			p.silent = false
		}
		if !p.named[r.id] {
			p.named[r.id] = true
			order = append(order, r.id)
		}
		switch r.id {
		case rGoTest:
			p.goOne = goSinglePackage(args)
		case rESLint:
			p.maxWarn = maxWarnings(args)
		}
	}
	if len(checks) == 0 {
		// Nothing recognisable: every reader, and no silence.
		anyWrapper, p.direct, p.silent = true, false, false
		for i, sg := range segs {
			if !consumer[i] && len(stripAssignments(sg.words)) > 0 {
				checks = append(checks, i)
				break
			}
		}
	}
	// Named runners first, so that a fail they see is theirs; then, when a
	// wrapper or an unknown script hides the runner, every reader; then the
	// wrappers' and the shell's own error lines, which are read always.
	for _, id := range order {
		if !readers[id].always {
			p.readers = append(p.readers, &readers[id])
		}
	}
	for i := range readers {
		r := &readers[i]
		if anyWrapper && !p.named[r.id] && r.inWrapper && !r.always {
			p.readers = append(p.readers, r)
		}
	}
	for i := range readers {
		if readers[i].always {
			p.readers = append(p.readers, &readers[i])
		}
	}
	for _, i := range checks {
		p.view.add(segs, consumer, i)
	}
	return p
}

// add folds in the plumbing after check segment i: its redirections, and the
// commands its output is piped through, also from an enclosing group.
func (v *cmdView) add(segs []segment, consumer []bool, i int) {
	out, errOut := v.redirect(segs[i].redirs, "tty", "tty")
	cur := segs[i].depth
	broken := false
	for j := i; j < len(segs)-1; j++ {
		d := segs[j].opDepth
		if d > cur {
			continue // an operator inside a later, deeper group
		}
		if d < cur {
			cur, broken = d, false
		}
		if broken {
			if cur == 0 {
				break // no enclosing group can pipe it on
			}
			continue
		}
		switch segs[j].op {
		case "|", "|&":
			if segs[j].op == "|&" {
				errOut = out
			}
			if out == "tty" {
				// The check's stdout flows into the next command, and what
				// that command prints is what is seen.
				next := segs[j+1]
				v.consume(stripAssignments(next.words))
				out, _ = v.redirect(next.redirs, "tty", "tty")
			}
		default:
			broken = true
		}
	}
	if out == "null" || out == "file" {
		v.filtered = true
	}
	if errOut == "null" || errOut == "file" {
		v.stderrLost = true
	}
}

// redirect applies redirections to the destinations of stdout and stderr
// ("tty", "null" or "file").
func (v *cmdView) redirect(rs []redir, out, errOut string) (string, string) {
	kind := func(t string) string {
		if t == "/dev/null" {
			return "null"
		}
		if t == "/dev/stdout" || t == "/dev/stderr" || t == "/dev/tty" {
			return "tty"
		}
		return "file"
	}
	for _, r := range rs {
		switch {
		case r.fd == 0:
			out, errOut = kind(r.target), kind(r.target)
		case r.dup && r.fd == 2 && r.target == "1":
			errOut = out
		case r.dup && r.fd == 1 && r.target == "2":
			out = errOut
		case r.dup:
			// `>&-` closes: treat as lost.
			if r.target == "-" {
				if r.fd == 1 {
					out = "null"
				} else {
					errOut = "null"
				}
			}
		case r.fd == 1:
			out = kind(r.target)
		case r.fd == 2:
			errOut = kind(r.target)
		}
	}
	return out, errOut
}

// consume records what a command reading the check's output does to it.
func (v *cmdView) consume(w []string) {
	if len(w) == 0 {
		return
	}
	switch baseName(w[0]) {
	case "head", "tail":
		c, ok := headTail(w[1:], baseName(w[0]) == "tail")
		if !ok || c.n == 0 && !c.from && !c.neg {
			v.filtered = true // a form we do not know, or one that shows nothing
			return
		}
		v.cuts = append(v.cuts, c)
	case "cat", "tee", "less", "more", "col", "ts", "stdbuf", "unbuffer":
		// These pass the output through unchanged (tee also copies it).
		if baseName(w[0]) == "cat" || baseName(w[0]) == "less" || baseName(w[0]) == "more" {
			for _, a := range w[1:] {
				if a != "" && a[0] != '-' {
					v.filtered = true // reads a file, not the pipe
				}
			}
		}
	default:
		v.filtered = true
	}
}

// headTail parses the options of head or tail. ok is false for a form it
// does not understand (which then counts as a filter).
func headTail(args []string, tail bool) (cut, bool) {
	c := cut{tail: tail, n: 10}
	for i := 0; i < len(args); i++ {
		a := args[i]
		val := ""
		switch {
		case a == "-n" || a == "--lines" || a == "-c" || a == "--bytes":
			if i+1 >= len(args) {
				return c, false
			}
			c.bytes = a == "-c" || a == "--bytes"
			val = args[i+1]
			i++
		case strings.HasPrefix(a, "--lines="):
			val = a[len("--lines="):]
		case strings.HasPrefix(a, "--bytes="):
			c.bytes, val = true, a[len("--bytes="):]
		case strings.HasPrefix(a, "-n") && len(a) > 2:
			val = a[2:]
		case strings.HasPrefix(a, "-c") && len(a) > 2:
			c.bytes, val = true, a[2:]
		case len(a) > 1 && a[0] == '-' && isDigits(a[1:]):
			val = a[1:]
		case len(a) > 1 && a[0] == '+' && isDigits(a[1:]) && tail:
			val = a
		case a == "-q" || a == "-s" || a == "--quiet" || a == "--silent" || a == "-v":
			continue
		case a == "-f" || a == "-F" || a == "--follow":
			continue
		case a == "-" || a == "--":
			continue
		default:
			return c, false // a file, or an option we do not know
		}
		switch {
		case strings.HasPrefix(val, "+") && tail:
			n, err := strconv.Atoi(val[1:])
			if err != nil {
				return c, false
			}
			c.from, c.n = true, n
		case strings.HasPrefix(val, "-") && !tail:
			c.neg = true
		default:
			n, err := strconv.Atoi(strings.TrimPrefix(val, "-"))
			if err != nil || n < 0 {
				return c, false
			}
			c.n = n
		}
	}
	return c, true
}

func stripAssignments(w []string) []string {
	for len(w) > 0 && isAssignment(w[0]) {
		w = w[1:]
	}
	return w
}

func isAssignment(w string) bool {
	eq := strings.IndexByte(w, '=')
	if eq <= 0 {
		return false
	}
	for i := 0; i < eq; i++ {
		c := w[i]
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 && i < len(p)-1 {
		return p[i+1:]
	}
	return p
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// echoLiteral is the line a plain `echo` prints, when the command line shows
// it whole (no expansion).
func echoLiteral(args []string) (string, bool) {
	for len(args) > 0 && (args[0] == "-e" || args[0] == "-E") {
		args = args[1:]
	}
	if len(args) > 0 && args[0] == "-n" {
		return "", false
	}
	s := strings.Join(args, " ")
	if strings.ContainsAny(s, "$`\\*?[") {
		return "", false
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return "", false
	}
	return s, true
}

// resolveRunner names the reader for a simple command, looking through
// launchers (npx, uv run, python -m, bundle exec, env, timeout…). It returns
// the reader and the runner's arguments, or nil when the command is not one
// cully knows (then every reader reads its output).
func resolveRunner(w []string) (*reader, []string) {
	for len(w) > 0 {
		name := baseName(w[0])
		args := w[1:]
		switch name {
		case "time", "command", "exec", "nohup", "nice", "ionice", "stdbuf", "unbuffer", "xvfb-run", "caffeinate":
			w = skipFlags(args)
			if name == "nice" && len(args) > 1 && args[0] == "-n" {
				w = skipFlags(args[2:])
			}
			continue
		case "timeout", "gtimeout":
			args = skipFlags(args)
			if len(args) > 0 {
				args = args[1:] // the duration
			}
			w = args
			continue
		case "env":
			args = skipFlags(args)
			w = stripAssignments(args)
			continue
		case "npx", "bunx", "pnpx":
			w = skipLauncherFlags(args, "-p", "--package")
			continue
		case "uv", "poetry", "pipenv", "pdm", "hatch", "rye", "conda", "mamba", "pixi":
			if len(args) > 0 && args[0] == "run" {
				w = skipLauncherFlags(args[1:], "--with", "--python", "-p", "--package", "-n", "--name", "-e", "--env", "--extra", "--group")
				continue
			}
			if name == "uv" && len(args) > 1 && args[0] == "tool" && args[1] == "run" {
				w = skipFlags(args[2:])
				continue
			}
			return nil, nil
		case "uvx":
			w = skipFlags(args)
			continue
		case "bundle", "bundler":
			if len(args) > 0 && args[0] == "exec" {
				w = args[1:]
				continue
			}
			return nil, nil
		case "python", "python3", "py", "pypy3":
			if m := afterDashM(args); m != nil {
				w = m
				continue
			}
			return nil, nil
		case "npm", "pnpm", "yarn", "bun":
			if len(args) > 0 {
				switch args[0] {
				case "exec", "dlx", "x":
					w = skipLauncherFlags(args[1:], "-p", "--package")
					continue
				}
				if name != "npm" && !strings.HasPrefix(args[0], "-") {
					if r := lookupRunner(args[0], args[1:]); r != nil && !r.wrapper {
						return r, args[1:] // `yarn jest`, `pnpm vitest`
					}
				}
			}
			return &readers[wrapperOf(name)], args
		}
		r := lookupRunner(name, args)
		if r == nil {
			return nil, nil
		}
		return r, runnerArgs(r, args)
	}
	return nil, nil
}

// afterDashM returns the words from the module of `python -m module …`, nil
// when the interpreter runs something else.
func afterDashM(args []string) []string {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-m" && i+1 < len(args):
			return args[i+1:]
		case a == "-X" || a == "-W":
			i++ // takes a value
		case a == "-c" || !strings.HasPrefix(a, "-"):
			return nil
		}
	}
	return nil
}

func wrapperOf(name string) int {
	switch name {
	case "pnpm":
		return rPnpm
	case "yarn":
		return rYarn
	}
	return rNpm
}

// runnerArgs drops the subcommand words from a runner's arguments.
func runnerArgs(r *reader, args []string) []string {
	switch r.id {
	case rGoTest, rGoVet, rGoBuild, rCargoTest, rCargoCheck, rMix:
		if len(args) > 0 {
			return args[1:]
		}
	}
	return args
}

func skipFlags(w []string) []string {
	for len(w) > 0 && strings.HasPrefix(w[0], "-") {
		w = w[1:]
	}
	return w
}

// skipLauncherFlags skips a launcher's flags, with the values of those named.
func skipLauncherFlags(w []string, withValue ...string) []string {
	for len(w) > 0 && strings.HasPrefix(w[0], "-") {
		f := w[0]
		w = w[1:]
		if f == "--" {
			break
		}
		for _, v := range withValue {
			if f == v && len(w) > 0 {
				w = w[1:]
				break
			}
		}
	}
	return w
}

// lookupRunner maps a command name (and its first argument, for go, cargo,
// mix, ruff…) to its reader.
func lookupRunner(name string, args []string) *reader {
	sub := ""
	if len(args) > 0 {
		sub = args[0]
	}
	id := -1
	switch name {
	case "go":
		switch sub {
		case "test":
			id = rGoTest
		case "vet":
			id = rGoVet
		case "build", "install":
			id = rGoBuild
		}
	case "cargo":
		if strings.HasPrefix(sub, "+") && len(args) > 1 { // cargo +nightly test
			return lookupRunner(name, args[1:])
		}
		switch sub {
		case "test", "t":
			id = rCargoTest
		case "check", "c", "clippy", "build", "b":
			id = rCargoCheck
		}
	case "pytest", "py.test":
		id = rPytest
	case "jest":
		id = rJest
	case "vitest":
		id = rVitest
	case "mocha":
		id = rMocha
	case "tsc", "vue-tsc", "tsgo":
		id = rTsc
	case "eslint":
		id = rESLint
	case "ruff":
		id = rRuff
	case "mypy", "dmypy":
		id = rMypy
	case "golangci-lint":
		id = rGolangci
	case "mix":
		if sub == "test" {
			id = rMix
		}
	case "rspec":
		id = rRSpec
	case "ruby":
		for _, a := range args {
			if strings.HasSuffix(a, "_test.rb") || strings.HasPrefix(baseName(a), "test_") && strings.HasSuffix(a, ".rb") {
				id = rMinitest
			}
		}
	case "rails":
		if sub == "test" {
			id = rMinitest
		}
	case "make", "gmake":
		id = rMake
	case "just":
		id = rJust
	case "task":
		id = rTask
	case "rake":
		id = rRake
	}
	if id < 0 {
		return nil
	}
	return &readers[id]
}

// goValueFlag reports go test's flags that take a separate value.
func goValueFlag(f string) bool {
	switch f {
	case "run", "skip", "bench", "count", "cpu", "parallel", "timeout", "tags", "p", "coverprofile",
		"coverpkg", "covermode", "o", "exec", "benchtime", "blockprofile", "cpuprofile", "memprofile",
		"mutexprofile", "outputdir", "trace", "fuzz", "fuzztime", "fuzzminimizetime", "list", "shuffle",
		"vet", "ldflags", "gcflags", "asmflags", "mod", "modfile", "C", "overlay", "pkgdir", "toolexec",
		"blockprofilerate", "memprofilerate", "mutexprofilefraction":
		return true
	}
	return false
}

// goSinglePackage reports whether go test's arguments name at most one
// package and no pattern (`./...`): then its one package line is the whole
// run's verdict.
func goSinglePackage(args []string) bool {
	n := 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-args" || a == "--args" {
			break
		}
		if strings.HasPrefix(a, "-") {
			f := strings.TrimLeft(a, "-")
			if !strings.Contains(f, "=") && goValueFlag(f) {
				i++
			}
			continue
		}
		if strings.Contains(a, "...") {
			return false
		}
		if strings.HasSuffix(a, ".go") {
			continue // files make one package
		}
		n++
	}
	return n <= 1
}

// maxWarnings reads eslint's --max-warnings, -1 when absent.
func maxWarnings(args []string) int {
	for i, a := range args {
		v := ""
		switch {
		case a == "--max-warnings" && i+1 < len(args):
			v = args[i+1]
		case strings.HasPrefix(a, "--max-warnings="):
			v = a[len("--max-warnings="):]
		default:
			continue
		}
		if n, err := strconv.Atoi(v); err == nil && n >= 0 {
			return n
		}
	}
	return -1
}
