package redact

import "strings"

// This file holds the rule for credentials written as code literals: a
// (user, password) pair in a tuple or list (requests' auth=('u', 'p')) or
// as the two arguments of a call that takes them (HTTPBasicAuth('u', 'p'),
// smtp.login('u', 'p'), req.SetBasicAuth("u", "p")).

// maxLiteral bounds the code literals a pair is read from: a credential
// is short, and the bound keeps every '(' of the text a constant amount
// of work.
const maxLiteral = 1024

// credCalls are the functions whose two arguments are a user and a
// password (lower case, the last component of a dotted name).
var credCalls = []string{"httpbasicauth", "httpdigestauth", "httpproxyauth", "basicauth", "digestauth", "basic_auth",
	"login", "auth", "setbasicauth", "networkcredential", "usernamepasswordcredentials", "passwordcredential",
	"credentials", "creds"}

// credCall handles the '(' at i: the call of a function in credCalls. It
// returns where the pair it redacted ends, or i.
func (r *redactor) credCall(i int) int {
	s := r.s
	k := i
	for k > 0 && (isAlnum(s[k-1]) || s[k-1] == '_') {
		k--
	}
	if k == i || !credName(s[k:i]) {
		return i
	}
	return r.credTuple(i)
}

// credName tells a name in credCalls (creds = ['u', 'p']).
func credName(name string) bool {
	if len(name) > 40 {
		return false
	}
	var buf [40]byte
	return inList(lowerTail(buf[:], name), credCalls)
}

// credTuple reads the pair opened at p ('(' or '['): two elements, the
// second a string literal, and redacts that literal. It returns where the
// pair ends, or p when there is none.
func (r *redactor) credTuple(p int) int {
	s := r.s
	closer := byte(')')
	if s[p] == '[' {
		closer = ']'
	}
	q := skipBlank(s, p+1)
	// The first element: a literal, or a name or expression without
	// brackets (user, os.environ.get("U") is too much to read).
	if _, _, e, ok := codeLiteral(s, q); ok {
		q = e
	} else {
		e := q
		for e < len(s) && e-q < 128 && (nameChar(s[e]) || s[e] == '[' || s[e] == ']') {
			e++
		}
		if e == q {
			return p
		}
		q = e
	}
	q = skipBlank(s, q)
	if q >= len(s) || s[q] != ',' {
		return p
	}
	q = skipBlank(s, q+1)
	a, b, e, ok := codeLiteral(s, q)
	if !ok {
		return p
	}
	q = skipBlank(s, e)
	if q < len(s) && s[q] == ',' {
		q = skipBlank(s, q+1)
	}
	if q >= len(s) || s[q] != closer {
		return p
	}
	if v := s[a:b]; nothingLeft(v) || isVarRef(v) {
		return p
	}
	r.add(a, b)
	return q + 1
}

func skipBlank(s string, p int) int {
	for p < len(s) && (s[p] == ' ' || s[p] == '\t') {
		p++
	}
	return p
}

// codeLiteral reads the string literal at p: '…', "…", or \"…\" inside a
// double-quoted shell word. It returns the span inside the quotes and
// where the literal ends.
func codeLiteral(s string, p int) (a, b, end int, ok bool) {
	if p >= len(s) {
		return 0, 0, 0, false
	}
	limit := min(len(s), p+maxLiteral)
	switch c := s[p]; {
	case c == '\\' && p+1 < len(s) && s[p+1] == '"':
		k := strings.Index(s[p+2:limit], `\"`)
		if k < 0 {
			return 0, 0, 0, false
		}
		return p + 2, p + 2 + k, p + 2 + k + 2, true
	case c == '\'' || c == '"':
		for j := p + 1; j < limit; j++ {
			switch s[j] {
			case '\\':
				j++
			case c:
				return p + 1, j, j + 1, true
			case '\n':
				return 0, 0, 0, false
			}
		}
	}
	return 0, 0, 0, false
}
