package redact

import "strings"

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
