package redact

import (
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// ClipRunes bounds the command preview kept in the journal (Clip).
const ClipRunes = 160

const redacted = "[REDACTED]"

// Redaction is written as small scanners rather than regular expressions on
// purpose: the regexp package's start-up tables cost every hook call, and
// each rule is a left-to-right scan that collects the spans to replace.
// Three families of rules find them:
//
//   - by shape, anywhere (tokens.go): known-prefix tokens, JSON web
//     tokens, PEM private-key blocks, URL passwords and webhook paths;
//   - by name (values.go, names.go): the value of NAME=value, "name": "value",
//     name: value and of query parameters whose name says secret;
//   - by shell context (shell_*.go): flags that take a password
//     (mysql -pX, curl -u user:X, sshpass -p X, --token X), a long random
//     word after a secret-ish one, echo/printf/heredoc bodies written to
//     .env-like and key files, and what is piped into --password-stdin.
//
// Only the secret is replaced, so a preview keeps its structure
// (mysql -u root -p[REDACTED] db). Text applies the rules until nothing
// changes, which makes it idempotent: a secret that only stands alone once
// its neighbour is redacted is found on the next pass.

// maxPasses bounds the passes of Text; two suffice for anything but
// adversarial input.
const maxPasses = 8

// Text removes secrets from a command line, keeping the rest of it.
func Text(cmd string) string {
	for range maxPasses {
		out, changed := redactOnce(cmd, false)
		if !changed {
			return cmd
		}
		cmd = out
	}
	return cmd
}

// Path removes tokens from a file path (a target): known-prefix
// tokens, JSON web tokens and name=value components whose name says
// secret, each within one path component. A path with none comes back as
// it is, without allocating.
func Path(p string) string {
	if noPathSecret(p) {
		return p
	}
	return redactPathPasses(p)
}

func redactPathPasses(p string) string {
	for range maxPasses {
		out, changed := redactOnce(p, true)
		if !changed {
			return p
		}
		p = out
	}
	return p
}

// minPathSecret is the shortest run of token bytes a path rule can match:
// the shortest known-prefix token (a Slack "xoxb-" and 10 more) and JSON
// web token are longer (TestMinPathSecret holds it to tokenShapes).
const minPathSecret = 15

// noPathSecret reports whether Path can find nothing in p without
// running its passes: p has no '=' (a name=value component) and no run of
// token bytes (letters, digits, '_', '-', '.') as long as the shortest
// token. Most paths are such; the passes' scratch and code then stay out
// of the hook's call (measured: 10 µs and 5 page faults on a Read's first
// path).
func noPathSecret(p string) bool {
	run := 0
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '=':
			return false
		case isAlnum(c) || c == '_' || c == '-' || c == '.':
			if run++; run >= minPathSecret {
				return false
			}
		default:
			run = 0
		}
	}
	return true
}

func redactOnce(s string, path bool) (string, bool) {
	r := redactors.Get().(*redactor)
	defer redactors.Put(r)
	*r = redactor{s: s, path: path}
	r.scanText()
	if !path {
		r.sqlLiterals()
		r.scanShell()
	}
	return r.apply()
}

// redactors hold the passes' scratch (3 KB: span and token buffers) off
// the stack: on it, the first redaction grew the hook's stack to 16 KiB,
// a copy of the stack and a fresh stack span on every hook call (0.014 ms
// in bench/ratio against the build before).
var redactors = sync.Pool{New: func() any { return new(redactor) }}

type span struct{ a, b int }

// redactor collects the spans of one pass over s. Its buffers are arrays
// with an overflow slice, so that a pass that finds nothing allocates
// nothing.
type redactor struct {
	s     string
	path  bool
	nspan int
	spans [16]span
	more  []span

	sh shellState

	// Memos that keep each pass linear in the input.
	qpos    int      // openQuote has read the line up to here…
	qstate  byte     // …where this quote was open
	tokFail [128]int // per token shape, the end of a tail run that was too weak to be one
	noEnd   bool     // no "-----END " follows the last PEM armour looked at
}

func (r *redactor) add(a, b int) {
	if a < 0 || b > len(r.s) || a >= b {
		return
	}
	if r.nspan < len(r.spans) {
		r.spans[r.nspan] = span{a, b}
	} else {
		r.more = append(r.more, span{a, b})
	}
	r.nspan++
}

// apply writes s with every span replaced by the marker. Spans are merged
// when they overlap or touch, and widened to swallow a marker they cut
// into, so the output never holds a broken marker; a span that is exactly
// a marker changes nothing.
func (r *redactor) apply() (string, bool) {
	if r.nspan == 0 {
		return r.s, false
	}
	s := r.s
	sp := make([]span, 0, r.nspan)
	sp = append(sp, r.spans[:min(r.nspan, len(r.spans))]...)
	sp = append(sp, r.more...)
	for i := range sp {
		a, b := sp[i].a, sp[i].b
		for k := max(0, a-len(redacted)+1); k < a; k++ {
			if strings.HasPrefix(s[k:], redacted) {
				a = k
				break
			}
		}
		for k := max(0, b-len(redacted)+1); k < b; k++ {
			if k+len(redacted) > b && strings.HasPrefix(s[k:], redacted) {
				b = k + len(redacted)
				break
			}
		}
		sp[i] = span{a, b}
	}
	slices.SortFunc(sp, func(x, y span) int { return x.a - y.a })
	merged := sp[:1]
	for _, x := range sp[1:] {
		last := &merged[len(merged)-1]
		if x.a <= last.b {
			last.b = max(last.b, x.b)
			continue
		}
		merged = append(merged, x)
	}
	changed := false
	for _, x := range merged {
		if s[x.a:x.b] != redacted {
			changed = true
			break
		}
	}
	if !changed {
		return s, false
	}
	var b strings.Builder
	b.Grow(len(s) + len(merged)*len(redacted))
	prev := 0
	for _, x := range merged {
		b.WriteString(s[prev:x.a])
		b.WriteString(redacted)
		prev = x.b
	}
	b.WriteString(s[prev:])
	return b.String(), true
}

// scanText runs the rules that need no shell context over the whole text.
func (r *redactor) scanText() {
	s := r.s
	for i := 0; i < len(s); i++ {
		tb := textBytes[s[i]]
		if tb == 0 {
			continue
		}
		if tb&tbPrefix != 0 && tokenBoundary(s, i) {
			if e := r.matchToken(i); e > 0 {
				r.add(i, e)
				i = e - 1
				continue
			}
		}
		if tb&tbE != 0 && tokenBoundary(s, i) {
			if e := matchJWT(s, i); e > 0 {
				r.add(i, e)
				i = e - 1
				continue
			}
		}
		if r.path {
			if tb&tbEq != 0 {
				if e := r.kvEquals(i); e > i {
					i = e - 1
				}
			}
			continue
		}
		switch {
		case tb&tbEq != 0:
			if e := r.kvEquals(i); e > i {
				i = e - 1
			}
		case tb&tbColon != 0:
			if i+2 < len(s) && s[i+1] == '/' && s[i+2] == '/' {
				r.url(i)
				i += 2
			} else if e := r.kvColon(i); e > i {
				i = e - 1
			}
		case tb&tbDash != 0:
			if e := r.matchPEM(i); e > 0 {
				r.add(i, e)
				i = e - 1
			}
		case tb&tbParen != 0:
			if e := r.credCall(i); e > i {
				i = e - 1
			}
		}
	}
}

// sqlLiterals redacts the password literal of CREATE USER … IDENTIFIED BY
// '…', ALTER ROLE … PASSWORD '…' and the like.
func (r *redactor) sqlLiterals() {
	s := r.s
	for _, kw := range []string{"IDENTIFIED BY", "identified by", "PASSWORD"} {
		for from := 0; ; {
			k := strings.Index(s[from:], kw)
			if k < 0 {
				break
			}
			k += from
			from = k + len(kw)
			if k > 0 && isAlnum(s[k-1]) {
				continue
			}
			v := from
			for v < len(s) && s[v] == ' ' {
				v++
			}
			if v == from || v >= len(s) || (s[v] != '\'' && s[v] != '"') {
				continue
			}
			e := strings.IndexByte(s[v+1:], s[v])
			if e <= 0 {
				continue
			}
			if val := s[v+1 : v+1+e]; !isVarRef(val) {
				r.add(v+1, v+1+e)
			}
		}
	}
}

// Clip bounds an already redacted, normalized command to the journal's
// preview length, ClipRunes.
func Clip(s string) string { return truncate(s, ClipRunes) }

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	head := string(r[:n-1])
	// Never cut a marker in two: a clipped "[RE…" reads as a value that
	// redaction would take for a secret again.
	for k := len(redacted) - 1; k > 0; k-- {
		if strings.HasSuffix(head, redacted[:k]) {
			head = head[:len(head)-k]
			break
		}
	}
	return head + "…"
}
