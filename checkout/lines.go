package checkout

import "bytes"

// Small scanners over a line's bytes. None allocates.

// pre reports whether b begins with s.
func pre(b []byte, s string) bool {
	return len(b) >= len(s) && string(b[:len(s)]) == s
}

// suf reports whether b ends with s.
func suf(b []byte, s string) bool {
	return len(b) >= len(s) && string(b[len(b)-len(s):]) == s
}

// index is the index of the first s in b, or -1.
func index(b []byte, s string) int {
	n := len(s)
	if n == 0 {
		return 0
	}
	for off := 0; ; {
		i := bytes.IndexByte(b[off:], s[0])
		if i < 0 || off+i+n > len(b) {
			return -1
		}
		if string(b[off+i:off+i+n]) == s {
			return off + i
		}
		off += i + 1
	}
}

// has reports whether b contains s.
func has(b []byte, s string) bool { return index(b, s) >= 0 }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// num parses the digits at the start of b: their value and the rest of b.
// ok is false when b does not start with a digit. Values saturate rather
// than overflow.
func num(b []byte) (n int, rest []byte, ok bool) {
	i := 0
	for i < len(b) && isDigit(b[i]) {
		if n < 1<<40 {
			n = n*10 + int(b[i]-'0')
		}
		i++
	}
	return n, b[i:], i > 0
}

// skipSpace drops leading blanks.
func skipSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	return b
}

// counts is a summary's "N word" items, by word.
type counts struct {
	passed, failed, errors, skipped, total                int
	pending, todo, deselected, xfailed, xpassed, warnings int
	tests, doctests, failures, excluded, invalid          int
	examples, runs, assertions, skips, passing, failing   int
	fixed, remaining, problems, issues, files             int
	other                                                 int // items with a word that is none of the above
	n                                                     int // items seen
}

// items reads the "N word" items of a summary line, such as `1 failed, 3
// passed, 4 total`, `3 tests, 1 failure`, `1 failed | 2 passed (3)`. A
// number must start the line or follow a blank or one of `,;|(`; the word is
// the letters after one space. Plural and singular agree.
func items(b []byte) counts {
	var c counts
	for i := 0; i < len(b); i++ {
		if !isDigit(b[i]) || i > 0 && isDigit(b[i-1]) {
			continue
		}
		if i > 0 {
			switch b[i-1] {
			case ' ', '\t', ',', ';', '|', '(':
			default:
				continue
			}
		}
		n, rest, _ := num(b[i:])
		if len(rest) < 2 || rest[0] != ' ' || !isLetter(rest[1]) {
			continue
		}
		w := rest[1:]
		j := 0
		for j < len(w) && isLetter(w[j]) {
			j++
		}
		c.add(n, w[:j])
		i = len(b) - len(w) + j - 1
	}
	return c
}

func (c *counts) add(n int, w []byte) {
	c.n++
	switch string(w) {
	case "passed":
		c.passed += n
	case "failed":
		c.failed += n
	case "error", "errors":
		c.errors += n
	case "skipped", "ignored":
		c.skipped += n
	case "total":
		c.total += n
	case "pending":
		c.pending += n
	case "todo":
		c.todo += n
	case "deselected":
		c.deselected += n
	case "xfailed":
		c.xfailed += n
	case "xpassed":
		c.xpassed += n
	case "warning", "warnings":
		c.warnings += n
	case "test", "tests":
		c.tests += n
	case "doctest", "doctests", "property", "properties":
		c.doctests += n
	case "failure", "failures":
		c.failures += n
	case "excluded":
		c.excluded += n
	case "invalid":
		c.invalid += n
	case "example", "examples":
		c.examples += n
	case "run", "runs":
		c.runs += n
	case "assertion", "assertions":
		c.assertions += n
	case "skip", "skips":
		c.skips += n
	case "passing":
		c.passing += n
	case "failing":
		c.failing += n
	case "fixed":
		c.fixed += n
	case "remaining":
		c.remaining += n
	case "problem", "problems":
		c.problems += n
	case "issue", "issues":
		c.issues += n
	case "file", "files":
		c.files += n
	default:
		c.other++
	}
}

// posLine reports whether b starts with `path.ext:LINE:` (and optionally
// `COL:`) followed by a blank or the end: a compiler's or linter's
// diagnostic position. ext includes the colon (".go:"). The path has no
// blanks.
func posLine(b []byte, ext string) bool {
	i := index(b, ext)
	if i <= 0 {
		return false
	}
	for _, c := range b[:i] {
		if c == ' ' || c == '\t' {
			return false
		}
	}
	rest := b[i+len(ext):]
	_, rest, ok := num(rest)
	if !ok {
		return false
	}
	if len(rest) > 0 && rest[0] == ':' {
		if _, r2, ok := num(rest[1:]); ok {
			rest = r2
		}
	}
	return len(rest) > 0 && rest[0] == ':' && (len(rest) == 1 || rest[1] == ' ')
}

// word reports whether b starts with s followed by a blank, punctuation or
// the end (not by a letter or digit).
func word(b []byte, s string) bool {
	if !pre(b, s) {
		return false
	}
	return len(b) == len(s) || !isLetter(b[len(s)]) && !isDigit(b[len(s)])
}
