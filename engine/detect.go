package engine

import "strings"

// What the detectors of rule_emptysearch.go, rule_rerun.go and
// rule_samefailure.go read from a command line or a search pattern: a
// search's term, a check with its output plumbing removed, the program a
// command runs. Text in, text out; the adapters hash what goes into the
// journal, so no pattern or command is stored by them.

// SearchFP fingerprints a search pattern's term: its letters, digits and
// underscores, lower-cased, with quotes, escapes and regular-expression
// syntax taken as separators, so the same term behind different quoting
// (`"foo(bar"`, `foo\(bar`, `'foo\\(bar'`) is one. "" when nothing of a
// term is left (a pattern of punctuation alone).
func SearchFP(pattern string) string {
	var b strings.Builder
	sep := false
	rs := []rune(pattern)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '\\' && i+1 < len(rs) && isLetter(rs[i+1]):
			// \s, \w, \b, \d …: a regular expression's class, not the term
			i++
			sep = true
		case isLetter(r) || r >= '0' && r <= '9' || r == '_' || r > 127:
			if sep && b.Len() > 0 {
				b.WriteByte(' ')
			}
			sep = false
			b.WriteString(strings.ToLower(string(r)))
		default:
			sep = true
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return Fingerprint("search", b.String())
}

func isLetter(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }

// searchPrograms are the shell searches whose exit status says whether
// they found anything (1: no match).
func searchProgram(w []string) int {
	if len(w) == 0 {
		return 0
	}
	switch baseName(w[0]) {
	case "grep", "egrep", "fgrep", "rg", "ag", "ack":
		return 1
	case "git":
		if len(w) > 1 && w[1] == "grep" {
			return 2
		}
	}
	return 0
}

// valued are grep's and rg's flags that take the next word as their value
// (the pattern's flags, -e and --regexp, apart).
var valued = []string{"-A", "-B", "-C", "-m", "-f", "-g", "-t", "-T", "--glob", "--type", "--type-not", "--max-count",
	"--context", "--after-context", "--before-context", "--include", "--exclude", "--exclude-dir", "-d", "-D", "--max-depth", "--file"}

// filterFlags are the search flags that narrow which files are searched
// (a glob, a file type): their values make a search's file filter.
var filterFlags = []string{"-g", "--glob", "-t", "--type", "--include", "--iglob"}

// ShellSearch finds a shell search (grep, rg, ag, ack, git grep) in a
// command line and returns its pattern and its file filter (the values of
// -g, --glob, -t, --type, --include, space-joined; "" for none). plain: the
// search is the line's last command, so the line's exit status is the
// search's (1: it found nothing); a search piped into another command, or
// followed by `||`, is not.
func ShellSearch(cmd string) (pattern, filter string, plain bool) {
	segs := splitShell(cmd)
	for i, sg := range segs {
		w := stripWrappers(sg.words)
		skip := searchProgram(w)
		if skip == 0 {
			continue
		}
		args := w[skip:]
		var filters []string
		explicit := false // -e or --regexp named the pattern: every other word is a path
		for j := 0; j < len(args); j++ {
			a := args[j]
			name, value, hasValue := strings.Cut(a, "=")
			switch {
			case contains(filterFlags, name):
				if !hasValue && j+1 < len(args) {
					j++
					value = args[j]
				}
				filters = append(filters, value)
			case a == "-e" || a == "--regexp" || name == "--regexp" && hasValue:
				if hasValue {
					pattern = value
				} else if j+1 < len(args) {
					j++
					pattern = args[j]
				}
				explicit = true
			case a == "--":
				if j+1 < len(args) && pattern == "" {
					pattern = args[j+1]
				}
				j = len(args)
			case contains(valued, a):
				j++
			case strings.HasPrefix(a, "-"):
			case pattern == "" && !explicit:
				pattern = a
			}
		}
		return pattern, strings.Join(filters, " "), pattern != "" && i == len(segs)-1 && sg.op == ""
	}
	return "", "", false
}

// plumbing are the commands that only filter or page another command's
// output when it is piped into them.
func plumbing(name string) bool {
	switch name {
	case "tail", "head", "grep", "egrep", "rg", "cat", "less", "more", "tee", "sed", "awk", "cut", "sort", "uniq", "wc", "tr", "column", "nl":
		return true
	}
	return false
}

// outputFlags change how much a check prints, not what it runs.
var outputFlags = []string{"-v", "-vv", "-vvv", "-q", "-qq", "--verbose", "--quiet", "-count", "-s", "--tb", "--color", "--no-color",
	"--colors", "--no-header", "-rA", "-ra", "--reporter", "--silent", "--no-summary"}

// PlainCommand is a command line with its output plumbing removed: what
// is piped into a filter or pager (`| tail -20`, `| grep FAIL`, `| cat`),
// an echo chained after it (`; echo "exit $?"`), and the flags that only
// change how much a check prints (-v, -q, --verbose, -count=1 …);
// redirections such as 2>&1 the lexer already drops. Two runs of one check
// with the same plain command ran the same thing.
func PlainCommand(cmd string) string {
	type kept struct {
		words []string
		op    string
	}
	var out []kept
	for i, sg := range splitShell(cmd) {
		if i > 0 && len(out) > 0 && len(sg.words) > 0 {
			prev := out[len(out)-1].op
			name := baseName(sg.words[0])
			if prev == "|" && plumbing(name) || prev != "|" && prev != "&" && (name == "echo" || name == "printf") {
				out[len(out)-1].op = sg.op
				continue
			}
		}
		var words []string
		for j := 0; j < len(sg.words); j++ {
			w := sg.words[j]
			name, _, hasValue := strings.Cut(w, "=")
			if contains(outputFlags, name) {
				if name == "-count" && !hasValue && j+1 < len(sg.words) {
					j++
				}
				continue
			}
			words = append(words, w)
		}
		if n := len(words); n > 0 && words[n-1] == "--" { // what ended the runner's own flags, nothing after it now
			words = words[:n-1]
		}
		out = append(out, kept{words, sg.op})
	}
	var b strings.Builder
	for i, k := range out {
		if i > 0 {
			b.WriteString(" " + out[i-1].op + " ")
		}
		b.WriteString(strings.Join(k.words, " "))
	}
	return b.String()
}

// program names what a command line runs, for the same-failure rule:
// its first command that is not neutral (cd, export …), wrappers
// stripped, with a subcommand word after it (`go vet`, `npm test`, `make
// lint`) but no argument (a flag, a path, a file, a value).
func program(cmd string) string {
	for _, sg := range splitShell(cmd) {
		w := stripWrappers(sg.words)
		if len(w) == 0 || neutral(w[0]) {
			continue
		}
		p := baseName(w[0])
		if len(w) > 1 && subcommandWord(w[1]) {
			p += " " + w[1]
		}
		return p
	}
	return ""
}

// subcommandWord: a lower-case word of letters and dashes, no flag.
func subcommandWord(w string) bool {
	if w == "" || w[0] == '-' {
		return false
	}
	for _, r := range w {
		if !(r >= 'a' && r <= 'z' || r == '-' || r == ':' || r == '_') {
			return false
		}
	}
	return true
}
