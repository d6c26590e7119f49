package hookbridge

import (
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"cully/engine"
)

// previewRunes bounds the command preview kept in the journal.
const previewRunes = 160

const redacted = "[REDACTED]"

// Redaction is written as small scanners rather than regular expressions on
// purpose: the regexp package's start-up tables cost every hook call, and
// each rule is a left-to-right scan that collects the spans to replace.
// Three families of rules find them:
//
//   - by shape, anywhere (redact_tokens.go): known-prefix tokens, JSON web
//     tokens, PEM private-key blocks, URL passwords and webhook paths;
//   - by name (this file): the value of NAME=value, "name": "value",
//     name: value and of query parameters whose name says secret;
//   - by shell context (redact_shell.go): flags that take a password
//     (mysql -pX, curl -u user:X, sshpass -p X, --token X), a long random
//     word after a secret-ish one, echo/printf/heredoc bodies written to
//     .env-like and key files, and what is piped into --password-stdin.
//
// Only the secret is replaced, so a preview keeps its structure
// (mysql -u root -p[REDACTED] db). Redact applies the rules until nothing
// changes, which makes it idempotent: a secret that only stands alone once
// its neighbour is redacted is found on the next pass.

// maxPasses bounds the passes of Redact; two suffice for anything but
// adversarial input.
const maxPasses = 8

// Redact removes secrets from a command line, keeping the rest of it.
func Redact(cmd string) string {
	for range maxPasses {
		out, changed := redactOnce(cmd, false)
		if !changed {
			return cmd
		}
		cmd = out
	}
	return cmd
}

// RedactPath removes tokens from a file path (a target): known-prefix
// tokens, JSON web tokens and name=value components whose name says
// secret, each within one path component. A path with none comes back as
// it is, without allocating.
func RedactPath(p string) string {
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

// noPathSecret reports whether RedactPath can find nothing in p without
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
	var r *redactor
	if scratch.TryLock() {
		defer scratch.Unlock()
		r = &scratch.r
	} else {
		r = redactors.Get().(*redactor)
		defer redactors.Put(r)
	}
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

// scratch is the redactor of the one goroutine that redacts at a time, as
// the hook does: static memory, where the pool's first Get made its
// per-processor tables and a 3 KB redactor on the heap, fresh spans in a
// process that lives a few milliseconds (1.1 page faults and 2 µs of every
// hook call that redacted a command). A redaction that finds it in use
// takes one from the pool.
var scratch struct {
	sync.Mutex
	r redactor
}

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

// nameChar may be part of a variable, flag, property or parameter name.
func nameChar(c byte) bool {
	return isAlnum(c) || c == '_' || c == '-' || c == '.'
}

// valueStop ends an unquoted value.
func valueStop(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '"', '\'', ';', '&', '|', '<', '>', '`', ')':
		return true
	}
	return false
}

const (
	ctxPlain = iota
	ctxList  // a,b=c,d: the value ends at a comma
	ctxQuery // ?a=b&c=d: the value ends at '&' or '#'
	ctxConn  // an Azure SharedAccessSignature: the value ends at ';' only
)

// valueAt finds the value starting at v: the text inside its quotes, a
// whole $(…) or `…`, or an unquoted run. It returns the secret's span and
// where the value ends.
func (r *redactor) valueAt(v, ctx int) (a, b, end int) {
	s := r.s
	if v >= len(s) {
		return v, v, v
	}
	switch c := s[v]; {
	case c == '"' || c == '\'':
		e := closeQuote(s, v)
		if e < len(s) {
			return v + 1, e, e + 1
		}
		// An unclosed quote: up to the end of the line.
		e = v + 1
		for e < len(s) && s[e] != '\n' {
			e++
		}
		return v + 1, e, e
	case c == '$' && v+1 < len(s) && s[v+1] == '\'':
		e := closeQuote(s, v+1)
		return v + 2, min(e, len(s)), min(e+1, len(s))
	case c == '$' && v+1 < len(s) && s[v+1] == '(':
		e := closeParen(s, v+1)
		return v, e, e
	case c == '`':
		e := strings.IndexByte(s[v+1:], '`')
		if e < 0 {
			return v, len(s), len(s)
		}
		return v, v + e + 2, v + e + 2
	case c == '\\' && v+1 < len(s) && s[v+1] == '"':
		// An escaped JSON string inside a double-quoted shell word.
		e := strings.Index(s[v+2:], `\"`)
		if e < 0 {
			return v + 2, v + 2, v + 2
		}
		return v + 2, v + 2 + e, v + 2 + e + 2
	}
	e := v
	for e < len(s) {
		c := s[e]
		if ctx == ctxConn && c == '&' {
			e++
			continue
		}
		if valueStop(c) || (ctx == ctxList && c == ',') || (ctx == ctxQuery && c == '#') || (r.path && c == '/') {
			break
		}
		if c == '\\' {
			if e+1 < len(s) && strings.IndexByte("nrt\"'", s[e+1]) >= 0 {
				break
			}
			e += 2
			continue
		}
		e++
	}
	e = min(e, len(s))
	return v, e, e
}

// openQuote returns the quote character open at i, reading the line
// holding i as the shell does (0 when none is). Calls come in increasing
// order of i, so the line is read once.
func (r *redactor) openQuote(i int) byte {
	s := r.s
	j, q := r.qpos, r.qstate
	if i < j {
		j, q = strings.LastIndexByte(s[:i], '\n')+1, 0
	}
	for ; j < i; j++ {
		switch c := s[j]; {
		case c == '\n':
			q = 0
		case c == '\\' && q != '\'':
			j++
		case q == 0 && (c == '"' || c == '\''):
			q = c
		case c == q:
			q = 0
		}
	}
	r.qpos, r.qstate = j, q
	return q
}

// closeQuote returns the index of the quote closing the one at q, or
// len(s).
func closeQuote(s string, q int) int {
	c := s[q]
	for j := q + 1; j < len(s); j++ {
		if s[j] == '\\' && c == '"' {
			j++
			continue
		}
		if s[j] == c {
			return j
		}
	}
	return len(s)
}

// closeParen returns the index after the parenthesis closing the one at p.
func closeParen(s string, p int) int {
	depth := 0
	for j := p; j < len(s); j++ {
		switch s[j] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return j + 1
			}
		case '\'', '"':
			j = closeQuote(s, j)
		case '\\':
			j++
		}
	}
	return len(s)
}

// kvEquals handles the '=' at i: NAME=value, --flag=value, a=b,password=c,
// ?token=…&, and name = "value" in code and config. It returns where the
// value it redacted ends, or i.
func (r *redactor) kvEquals(i int) int {
	s := r.s
	if i+1 < len(s) && (s[i+1] == '=' || s[i+1] == '~' || s[i+1] == '>') {
		return i // ==, =~, =>
	}
	j := i
	if j > 0 && (s[j-1] == ':' || s[j-1] == '?' || s[j-1] == '+') {
		j-- // :=, ?=, +=
	}
	if j > 0 && (s[j-1] == '=' || s[j-1] == '!' || s[j-1] == '<' || s[j-1] == '>') {
		return i
	}
	k := j
	for k > 0 && (s[k-1] == ' ' || s[k-1] == '\t') {
		k--
	}
	spacedName := k < j
	ne := k
	for k > 0 && nameChar(s[k-1]) {
		k--
	}
	if k == ne {
		return i
	}
	name := s[k:ne]
	ctx := ctxPlain
	if k > 0 {
		switch s[k-1] {
		case ',':
			ctx = ctxList
		case '?', '&':
			ctx = ctxQuery
		}
	}
	if strings.EqualFold(name, "SharedAccessSignature") {
		ctx = ctxConn
	}
	v := i + 1
	if !r.path {
		w := v
		for w < len(s) && (s[w] == ' ' || s[w] == '\t') {
			w++
		}
		if spacedName || w > v {
			// name = value: only a quoted string literal or a
			// credential pair here; config files' unquoted values are
			// read by the file rules.
			if w >= len(s) || (s[w] != '"' && s[w] != '\'' && s[w] != '(' && s[w] != '[') {
				return i
			}
			v = w
		}
	}
	kind := nameKind(name, ctx == ctxQuery)
	pair := v < len(s) && (s[v] == '(' || s[v] == '[') && (kind != kindNone || credName(name))
	tail := kind == kindNone && secretTailName(name)
	if kind == kindNone && !tail && !pair {
		return i
	}
	if v < len(s) && (s[v] == '"' || s[v] == '\'') && r.openQuote(v) == s[v] {
		return i // the quote closes the string holding NAME= ("NAME=" in a grep)
	}
	if pair {
		if e := r.credTuple(v); e > v {
			return e // auth=('user', 'secret')
		}
		if v > i+1 {
			return i // name = (an expression)
		}
	}
	a, b, end := r.valueAt(v, ctx)
	val := s[a:b]
	if tail {
		// storage_key="…", cache.token=…: a name that ends in key, secret
		// or token but says nothing more holds a secret when its value
		// is random: long, mixed, with digits.
		if !highEntropy(val) || pathLike(val) {
			return i
		}
		kind = kindWeak
	}
	if strings.HasPrefix(trimDashes(name), "secret") && hasSpecPrefix(val) {
		return i // docker build --secret=id=x,src=path
	}
	if !secretValue(val, kind) {
		return i
	}
	r.add(a, b)
	return end
}

// hasSpecPrefix tells a BuildKit secret spec (id=…,src=…) from a secret.
func hasSpecPrefix(v string) bool {
	for _, p := range []string{"id=", "type=", "src=", "source=", "env=", "target="} {
		if strings.HasPrefix(v, p) {
			return true
		}
	}
	return false
}

// headerNames are names whose "name:value" needs no space after the colon.
var headerNames = []string{"authorization", "proxy-authorization", "x-api-key", "api-key", "x-auth-token",
	"x-access-token", "private-token", "cookie", "set-cookie", "x-vault-token"}

// authSchemes are kept in front of a credential in a header.
var authSchemes = []string{"bearer ", "basic ", "token ", "digest ", "bot ", "negotiate ", "sso-key "}

// kvColon handles the ':' at i: "name": "value" (JSON, also \"escaped\"
// inside a shell string, and Python's 'name': 'value'), name: value (YAML,
// HTTP headers) with the credential after an auth scheme. It returns where
// the value it redacted ends, or i.
func (r *redactor) kvColon(i int) int {
	s := r.s
	if (i+1 < len(s) && s[i+1] == ':') || (i > 0 && s[i-1] == ':') {
		return i
	}
	k := i
	for k > 0 && (s[k-1] == ' ' || s[k-1] == '\t') {
		k--
	}
	var quote byte
	if k > 0 && (s[k-1] == '"' || s[k-1] == '\'') {
		quote = s[k-1]
		k--
		if k > 0 && s[k-1] == '\\' {
			k--
		}
	}
	ne := k
	for k > 0 && nameChar(s[k-1]) {
		k--
	}
	if k == ne {
		return i
	}
	name := s[k:ne]
	if quote != 0 && (k == 0 || s[k-1] != quote) {
		return i
	}
	if k >= 2 && s[k-2:k] == "//" {
		return i // scheme://user:password@ is the URL rule's
	}
	v := i + 1
	for v < len(s) && (s[v] == ' ' || s[v] == '\t') {
		v++
	}
	// Every header name is a strong name, so the list is only looked at
	// for the names that say secret.
	kind := nameKind(name, false)
	tail := kind == kindNone && secretTailName(name)
	if (kind == kindNone && !tail) || v >= len(s) {
		return i
	}
	if (s[v] == '(' || s[v] == '[') && kind != kindNone {
		if e := r.credTuple(v); e > v {
			return e // "auth": ("user", "secret")
		}
	}
	header := false
	for _, h := range headerNames {
		if len(h) == len(name) && strings.EqualFold(name, h) {
			header = true
			break
		}
	}
	if quote == 0 && v == i+1 && !header {
		return i // user:pass, host:port, a:b
	}
	if header {
		kind = kindStrong
	}
	if header || strings.Contains(strings.ToLower(name), "authoriz") {
		for _, sc := range authSchemes {
			if len(s)-v > len(sc) && strings.EqualFold(s[v:v+len(sc)], sc) {
				v += len(sc)
				for v < len(s) && s[v] == ' ' {
					v++
				}
				break
			}
		}
		if v >= len(s) {
			return i
		}
	}
	if (s[v] == '"' || s[v] == '\'') && r.openQuote(v) == s[v] {
		return i // the quote closes the string holding "name:"
	}
	var a, b int
	switch c := s[v]; {
	case c == '"' || c == '\'' || (c == '\\' && v+1 < len(s) && s[v+1] == '"'):
		a, b, _ = r.valueAt(v, ctxPlain)
	case quote != 0:
		// A JSON scalar: up to , } ] or space.
		a, b = v, v
		for b < len(s) && strings.IndexByte(",}] \t\n\r\"'\\", s[b]) < 0 {
			b++
		}
	default:
		// Up to the end of the line, the closing quote of the shell word
		// holding it, or an escaped line break (and 4 KiB at most).
		a, b = v, v
		for b < len(s) && b-a < 4096 && s[b] != '\n' && s[b] != '\r' && s[b] != '"' && s[b] != '\'' &&
			!(s[b] == '\\' && b+1 < len(s) && strings.IndexByte("nr\"", s[b+1]) >= 0) {
			b++
		}
		for b > a && (s[b-1] == ' ' || s[b-1] == '\t') {
			b--
		}
		if !header && strings.ContainsAny(s[a:b], "(){}[]") {
			return i // code (token: s.sign(now),) or a nested structure
		}
	}
	if tail {
		if !highEntropy(s[a:b]) || pathLike(s[a:b]) {
			return i
		}
		kind = kindWeak
	}
	if !secretValue(s[a:b], kind) {
		return i
	}
	r.add(a, b)
	return b
}

// Name kinds: a strong name's value is a secret whatever it looks like; a
// weak name's only when it looks random.
const (
	kindNone = iota
	kindWeak
	kindStrong
)

// strongWords mark a name as holding a secret wherever they occur in it
// (lower case; longer words before the shorter ones they extend).
var strongWords = []string{"password", "passwd", "passphrase", "passw", "secret", "token", "apikey", "api_key",
	"api-key", "accesskey", "access_key", "access-key", "privatekey", "private_key", "private-key", "credential",
	"authorization", "authtoken", "auth_token", "auth-token", "authkey", "auth_key", "bearer", "cookie",
	"sessionkey", "session_key", "signingkey", "signing_key", "masterkey", "master_key", "accountkey",
	"account_key", "encryptionkey", "encryption_key", "sharedaccesssignature"}

// afterWords after a secret word make the name about the secret, not the
// secret itself: --token-file, PASSWORD_PATH, secret_name, max_tokens…
var afterWords = []string{"file", "path", "dir", "folder", "jar", "name", "type", "env", "helper", "cmd",
	"command", "mode", "method", "provider", "format", "url", "uri", "endpoint", "host", "server", "addr",
	"user", "ttl", "expir", "timeout", "len", "size", "bits", "count", "limit", "max", "min", "policy", "role",
	"version", "alg", "source", "src", "stdin", "prompt", "ref", "manager", "store", "backend", "engine", "mount",
	"kind", "class", "template", "pattern", "field", "regex", "hint", "strength", "lifetime", "duration",
	"location", "label", "only", "flag", "option", "required", "enabled", "budget", "usage", "id", "less",
	"reset", "rotat", "input", "output", "var", "arn", "mask"}

// beforeAny words anywhere before a secret word make a flag a switch:
// --no-password, --ask-become-pass, --with-token, --password-stdin…
var beforeAny = []string{"no", "ask", "prompt", "skip", "with", "without", "use", "show", "print", "list",
	"require", "enable", "disable", "allow", "reset", "forgot", "generate", "is", "has", "need", "validate",
	"check", "hide", "mask"}

// beforeLast words just before a secret word make it no secret: max_tokens,
// csrf_token, page_token, public_key…
var beforeLast = []string{"max", "min", "num", "n", "count", "csrf", "xsrf", "public", "pub", "page", "next",
	"continuation", "cursor", "sync"}

// keyBefore words before a "key" component make it a database or map key.
var keyBefore = []string{"primary", "foreign", "sort", "partition", "hash", "range", "cache", "idempotency",
	"dedup", "lookup", "group", "object", "s3", "routing", "row", "index", "unique", "shard", "natural",
	"sequence", "bucket", "schema", "ssh", "gpg", "pgp", "host", "map", "dict", "composite", "cluster",
	"public", "pub", "join", "order", "label", "annotation", "metadata", "config", "registry", "storage"}

// passNot are words that end in "pass" and are no password.
var passNot = []string{"bypass", "compass", "encompass", "surpass", "overpass", "underpass", "trespass"}

// strongIndex, in redact_tables.go, lists strongWords by first letter, in
// their order.

func trimDashes(s string) string {
	for len(s) > 0 && (s[0] == '-' || s[0] == '_') {
		s = s[1:]
	}
	return s
}

func isSep(c byte) bool { return c == '_' || c == '-' || c == '.' || c == '/' || c == ':' }

func inList(w []byte, list []string) bool {
	for _, x := range list {
		if string(w) == x {
			return true
		}
	}
	return false
}

// nameKind classifies a variable, flag, parameter or property name.
func nameKind(name string, query bool) int {
	name = trimDashes(name)
	if len(name) < 2 {
		return kindNone
	}
	if len(name) > 64 {
		name = name[len(name)-64:]
	}
	var buf [64]byte
	low := buf[:len(name)]
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	for i := 0; i < len(low); i++ {
		for _, w := range strongIndex[low[i]] {
			if len(low)-i < len(w) || string(low[i:i+len(w)]) != w {
				continue
			}
			if !excludedName(low, i, i+len(w), w) {
				return kindStrong
			}
			break
		}
	}
	kind := componentKind(name, low, query)
	if kind == kindNone && shouting(name) && secretTail(low) {
		// AZURE_STORAGE_KEY, CSRF_SECRET, SYNC_TOKEN: an environment
		// variable named for a key, secret or token holds one whatever
		// its prefix; its value still has to look random.
		kind = kindWeak
	}
	return kind
}

// shouting tells an environment variable's name (upper case, digits and
// underscores) from a flag, a property or code.
func shouting(name string) bool {
	letter := false
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c >= 'A' && c <= 'Z':
			letter = true
		case c >= '0' && c <= '9' || c == '_':
		default:
			return false
		}
	}
	return letter
}

// secretTails are the last components that name a credential.
var secretTails = []string{"key", "keys", "secret", "secrets", "token", "password", "passwd", "passphrase", "pass", "apikey", "credential", "credentials"}

// secretTail tells whether the last component of the lower-cased name low
// names a credential (storage_key, csrf-secret, sync.token).
func secretTail(low []byte) bool {
	e := len(low)
	for e > 0 && !isAlnum(low[e-1]) {
		e--
	}
	b := e
	for b > 0 && isAlnum(low[b-1]) {
		b--
	}
	// Something must come before it: a key, a secret or a token alone
	// says nothing (a map's key, a checkpoint's key).
	return b > 0 && b < e && inList(low[b:e], secretTails)
}

// secretTailName is secretTail for a name as written.
func secretTailName(name string) bool {
	if len(name) > 64 {
		name = name[len(name)-64:]
	}
	var buf [64]byte
	low := buf[:len(name)]
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	return secretTail(low)
}

// excludedName tells whether the secret word low[ws:we] is only part of a
// name about the secret.
func excludedName(low []byte, ws, we int, w string) bool {
	rest := low[we:]
	if w == "token" && len(rest) > 0 && (rest[0] == 's' || rest[0] == 'i') {
		return true // tokens, tokenizer, tokenise
	}
	if len(rest) > 0 && rest[0] == 's' {
		rest = rest[1:]
	}
	for len(rest) > 0 && isSep(rest[0]) {
		rest = rest[1:]
	}
	for _, x := range afterWords {
		if len(rest) >= len(x) && string(rest[:len(x)]) == x {
			if x == "id" && (w == "secret" || strings.HasPrefix(w, "private")) {
				continue // a Vault AppRole secret_id is a secret; a private_key_id names the key of a service-account blob
			}
			return true
		}
	}
	before := low[:ws]
	for len(before) > 0 && isSep(before[len(before)-1]) {
		before = before[:len(before)-1]
	}
	last := true
	for len(before) > 0 {
		e := len(before)
		b := e
		for b > 0 && !isSep(before[b-1]) {
			b--
		}
		comp := before[b:e]
		if last && inList(comp, beforeLast) {
			return true
		}
		if inList(comp, beforeAny) {
			return true
		}
		// A word glued to the secret word (nopassword, askpass) counts.
		if last && b == 0 {
			for _, x := range beforeAny {
				if len(comp) > len(x) && string(comp[len(comp)-len(x):]) == x && len(x) >= 3 {
					return true
				}
			}
		}
		last = false
		before = before[:b]
		for len(before) > 0 && isSep(before[len(before)-1]) {
			before = before[:len(before)-1]
		}
	}
	return false
}

// componentKind classifies a name by its components (split at separators
// and camel-case humps): pwd and a trailing pass are strong; key (after
// another component), auth, sig, pat, pw and jwt are weak.
func componentKind(name string, low []byte, query bool) int {
	kind := kindNone
	idx := 0
	var prev []byte
	for i := 0; i < len(name); {
		for i < len(name) && !isAlnum(name[i]) {
			i++
		}
		st := i
		for i < len(name) && isAlnum(name[i]) {
			i++
			if i < len(name) && name[i] >= 'A' && name[i] <= 'Z' && name[i-1] >= 'a' && name[i-1] <= 'z' {
				break
			}
		}
		if st == i {
			break
		}
		comp := low[st:i]
		k := kindNone
		switch string(comp) {
		case "pwd":
			if string(low) != "pwd" && string(low) != "oldpwd" {
				k = kindStrong
			}
		case "pass", "pin":
			k = kindStrong
		case "pw", "pat", "jwt", "sas", "sig", "signature", "auth", "sid":
			k = kindWeak
		case "key":
			if (idx > 0 && !inList(prev, keyBefore)) || (query && string(low) == "key") {
				k = kindWeak
			}
		default:
			if len(comp) > 4 && string(comp[len(comp)-4:]) == "pass" && !inList(comp, passNot) {
				k = kindStrong // storepass, keypass, becomepass
			}
		}
		if k != kindNone && !excludedName(low, st, i, string(comp)) {
			kind = max(kind, k)
		}
		prev = comp
		idx++
	}
	return kind
}

// isVarRef tells a reference to a variable ($NAME, ${NAME}, ${{ x.y }})
// or the output of a command ($(gh auth token), `cat ~/.token`) from a
// value: a reference is no secret, and keeping it keeps the preview
// telling. A command that only prints a literal ($(echo x)) is the
// literal.
func isVarRef(v string) bool {
	if len(v) < 2 {
		return false
	}
	var inner string
	switch {
	case v[0] == '`' && v[len(v)-1] == '`':
		inner = v[1 : len(v)-1]
	case strings.HasPrefix(v, "$(") && v[len(v)-1] == ')' && !strings.HasPrefix(v, "$(("):
		inner = v[2 : len(v)-1]
	}
	if inner != "" {
		inner = strings.TrimLeft(inner, " \t")
		return !strings.HasPrefix(inner, "echo") && !strings.HasPrefix(inner, "printf") && !strings.HasPrefix(inner, "<<<")
	}
	if v[0] != '$' {
		return false
	}
	if v[1] == '{' {
		return strings.HasSuffix(v, "}") && !strings.Contains(v[2:len(v)-1], "$(")
	}
	for i := 1; i < len(v); i++ {
		if !isAlnum(v[i]) && v[i] != '_' {
			return false
		}
	}
	return true
}

var boolish = []string{"true", "false", "yes", "no", "on", "off", "null", "none", "nil", "-", "0", "1"}

func isBoolish(v string) bool {
	for _, b := range boolish {
		if strings.EqualFold(v, b) {
			return true
		}
	}
	return false
}

// secretValue tells whether val, the value of a name of the given kind, is
// to be redacted.
func secretValue(val string, kind int) bool {
	if nothingLeft(val) || isVarRef(val) {
		return false
	}
	if isBoolish(val) {
		return false
	}
	if pathLike(val) {
		return false
	}
	if kind == kindWeak {
		return looksSecret(val)
	}
	return true
}

// nothingLeft tells a value with nothing to hide: empty, or no letter or
// digit once the markers of an earlier pass are taken out (a marker
// followed by an empty pair of quotes, say).
func nothingLeft(v string) bool {
	if strings.Contains(v, redacted) {
		v = strings.ReplaceAll(v, redacted, "")
	}
	return !hasAlnum(v)
}

func hasAlnum(v string) bool {
	for i := 0; i < len(v); i++ {
		if isAlnum(v[i]) {
			return true
		}
	}
	return false
}

// pathLike tells a path (~/.ssh/id_ed25519, ./key.pem, /run/secrets/db)
// from a secret that happens to start with a slash or hold one.
func pathLike(v string) bool {
	if !(strings.HasPrefix(v, "/") || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") || strings.HasPrefix(v, "~/")) {
		// A name with slashes in one case and no digit (prod/db/password,
		// a secret's path in a store) is no secret either.
		return strings.IndexByte(v, '/') > 0 && classCount(v) == 1 && strings.ToLower(v) == v
	}
	return classCount(v) < 3 || strings.Count(v, "/") == 1 && strings.IndexByte(v, '.') > 0
}

// looksSecret: long enough and mixing letters with digits or cases.
func looksSecret(v string) bool {
	return len(v) >= 6 && classCount(v) >= 2 && !pathLike(v)
}

// highEntropy: a long word of base64 or hex characters with digits in it,
// the shape of a key or token with no known prefix.
func highEntropy(v string) bool {
	if len(v) < 16 {
		return false
	}
	digit := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !isAlnum(c) && strings.IndexByte("+/=_-.~%", c) < 0 {
			return false
		}
		digit = digit || c >= '0' && c <= '9'
	}
	if !digit || classCount(v) < 2 {
		return false
	}
	if strings.ContainsRune(v, '/') && strings.ToLower(v) == v {
		return false // a path
	}
	return true
}

// Preview is the short, redacted, single-line form of a command kept in
// the journal. Redaction comes first: heredocs and multi-line strings are
// only recognisable before the whitespace is collapsed.
func Preview(cmd string) string {
	return truncate(engine.NormalizeCommand(Redact(cmd)), previewRunes)
}

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

// Clip bounds an already redacted, normalized command to the journal's
// preview length.
func Clip(s string) string { return truncate(s, previewRunes) }
