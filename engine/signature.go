package engine

import "strings"

// errSigLines is how many leading lines of error text the cross-command
// error signature hashes: the first line names the error; more would let
// each command's own trailing output split one error into many.
const errSigLines = 2

// ErrorSignature hashes the error text alone, for the same error coming
// from different commands (a shell that rejects the syntax the agent keeps
// writing; a missing tool). Besides FailureSignature's normalization,
// quoted strings and words holding a path or file name are blanked, since
// they name the command's own arguments. It is "" when the text has
// nothing left to judge by.
func ErrorSignature(errText string) string {
	var lines []string
	for _, ln := range strings.Split(errText, "\n") {
		ln = normalizeErrLine(ln)
		if noiseLine(ln) {
			continue
		}
		ln = blankNames(ln)
		if strings.Trim(ln, "_# :.-") == "" || progressLine(ln) {
			continue
		}
		lines = append(lines, ln)
		if len(lines) == errSigLines {
			break
		}
	}
	if len(lines) == 0 {
		return ""
	}
	return Fingerprint(append([]string{"err"}, lines...)...)
}

// blankNames replaces quoted strings and words with a '/' or a '.' inside
// (paths, file and package names) by "_".
func blankNames(s string) string {
	var b strings.Builder
	for i, w := range strings.Fields(s) {
		if i > 0 {
			b.WriteByte(' ')
		}
		trimmed := strings.Trim(w, ",;:()[]")
		switch {
		case len(w) >= 2 && strings.ContainsRune("'\"`", rune(w[0])):
			b.WriteByte('_')
		case strings.ContainsAny(strings.TrimRight(trimmed, "."), "/.") || strings.HasPrefix(trimmed, "-"):
			b.WriteByte('_')
		default:
			b.WriteString(w)
		}
	}
	return b.String()
}

// narrowing are the flags that select a subset of one check run; the value
// that follows a flag without "=" goes with it.
var narrowing = []string{
	"-run", "-test.run", "-skip", "-k", "-m", "-t", "--testNamePattern", "--testPathPattern", "-g", "--grep",
	"--filter", "--example", "-e", "--only", "--test", "--match",
}

// verbosity are flags that change what a run prints, not what it runs.
var verbosity = []string{"-v", "-vv", "-x", "-s", "-q", "--verbose", "-count", "--no-cache", "--nocapture", "-failfast", "--lf", "--ff", "--bail"}

// CheckFamily is a check command with its narrowing and verbosity flags
// removed, and test selectors after "::" cut off: `go test -run TestX -v
// ./parser` and `go test ./parser` are one family. It returns "" when the
// command has nothing to remove (the family is the command itself).
func CheckFamily(cmd string) string {
	var out []string
	changed := false
	for _, seg := range splitShell(cmd) {
		words := seg.words
		for i := 0; i < len(words); i++ {
			w := words[i]
			name, _, hasValue := strings.Cut(w, "=")
			switch {
			case contains(narrowing, name):
				changed = true
				if !hasValue && i+1 < len(words) && !strings.HasPrefix(words[i+1], "-") {
					i++ // the flag's value
				}
				continue
			case contains(verbosity, name):
				changed = true
				if name == "-count" && !hasValue && i+1 < len(words) {
					i++
				}
				continue
			case strings.Contains(w, "::"):
				changed = true
				w = w[:strings.Index(w, "::")]
			}
			out = append(out, w)
		}
		if seg.op != "" {
			out = append(out, seg.op)
		}
	}
	if !changed {
		return ""
	}
	return strings.Join(out, " ")
}

// progressLine reports a test runner's per-file progress once names are
// blanked: "_ ..f.s" (pytest without its percentage column).
func progressLine(ln string) bool {
	rest, ok := strings.CutPrefix(ln, "_ ")
	return ok && rest != "" && strings.Trim(rest, ".fesx") == ""
}
