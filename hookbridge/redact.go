package hookbridge

import (
	"strings"
	"unicode/utf8"

	"cully/engine"
)

// previewRunes bounds the command preview kept in the journal.
const previewRunes = 160

const redacted = "[REDACTED]"

// Redaction is written as small scanners rather than regular expressions on
// purpose: the regexp package's start-up tables cost every hook call, and
// each rule below is a plain left-to-right scan.

// secretWords mark a variable, flag or header name as holding a secret.
var secretWords = []string{"token", "secret", "passw", "pwd", "apikey", "api_key", "api-key", "access_key",
	"access-key", "private_key", "private-key", "credential", "auth", "cookie", "session_key"}

// tokenPrefixes are shapes of credentials that are secrets wherever they
// appear, with the shortest tail that makes them one.
var tokenPrefixes = []struct {
	prefix string
	min    int
}{
	{"sk-ant-", 16}, {"sk-proj-", 16}, {"sk-", 20}, {"ghp_", 20}, {"gho_", 20}, {"ghs_", 20}, {"ghu_", 20}, {"ghr_", 20},
	{"github_pat_", 20}, {"glpat-", 16}, {"xoxb-", 10}, {"xoxp-", 10}, {"xoxa-", 10}, {"xoxs-", 10}, {"AKIA", 16},
	{"AIza", 30}, {"npm_", 30}, {"hf_", 30},
}

// Redact removes secrets from a command line: credentials in NAME=value
// assignments and --flag values whose name says secret, Authorization and
// API-key headers, passwords in URLs, well-known token shapes and JSON web
// tokens.
func Redact(s string) string {
	if !mayHoldSecret(s) {
		return s
	}
	s = redactHeaders(s)
	s = redactURLPasswords(s)
	s = redactWords(s)
	s = redactTokens(s)
	return s
}

// mayHoldSecret is a cheap pre-check: most commands (go test, ls, cat)
// contain none of these and skip every scan.
func mayHoldSecret(s string) bool {
	low := strings.ToLower(s)
	for _, h := range []string{"key", "token", "secret", "pass", "pwd", "auth", "bearer", "cookie", "credential",
		"://", "sk-", "ghp_", "gho_", "ghs_", "ghu_", "ghr_", "github_pat_", "glpat-", "xox", "akia", "aiza", "eyj", "npm_", "hf_"} {
		if strings.Contains(low, h) {
			return true
		}
	}
	return false
}

func isSecretName(name string) bool {
	low := strings.ToLower(name)
	for _, w := range secretWords {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}

// valueEnd returns the end of a shell value starting at i: a quoted span
// through its closing quote, else up to whitespace or a shell operator.
func valueEnd(s string, i int) int {
	if i < len(s) && (s[i] == '"' || s[i] == '\'') {
		q := s[i]
		for j := i + 1; j < len(s); j++ {
			if s[j] == '\\' && q == '"' {
				j++
				continue
			}
			if s[j] == q {
				return j + 1
			}
		}
		return len(s)
	}
	j := i
	for j < len(s) && !strings.ContainsRune(" \t\n;&|'\")", rune(s[j])) {
		j++
	}
	return j
}

// redactWords handles NAME=value, --secret-flag=value and --secret-flag value.
func redactWords(s string) string {
	var b strings.Builder
	i := 0
	for i < len(s) {
		// Find the next word.
		if strings.ContainsRune(" \t\n;&|(", rune(s[i])) {
			b.WriteByte(s[i])
			i++
			continue
		}
		start := i
		end := valueEnd(s, i)
		if end == i {
			end = i + 1
		}
		word := s[start:end]
		eq := strings.IndexByte(word, '=')
		switch {
		case eq > 0 && word[0] != '"' && word[0] != '\'' && isSecretName(word[:eq]):
			// The value may itself be quoted and run past this word.
			vEnd := valueEnd(s, start+eq+1)
			if vEnd <= start+eq+1 {
				vEnd = end
			}
			b.WriteString(s[start : start+eq+1])
			b.WriteString(redacted)
			i = vEnd
			continue
		case strings.HasPrefix(word, "-") && isSecretName(word):
			b.WriteString(word)
			i = end
			// The flag's value is the next word.
			j := i
			for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
				j++
			}
			if j < len(s) && j > i && s[j] != '-' && !strings.ContainsRune(";&|\n", rune(s[j])) {
				b.WriteString(s[i:j])
				b.WriteString(redacted)
				i = valueEnd(s, j)
			}
			continue
		}
		b.WriteString(word)
		i = end
	}
	return b.String()
}

// redactHeaders handles "Authorization: Bearer x", "X-Api-Key: x" and the
// like, in any case.
func redactHeaders(s string) string {
	low := strings.ToLower(s)
	for _, name := range []string{"proxy-authorization", "authorization", "x-api-key", "api-key", "x-auth-token", "x-access-token", "set-cookie", "cookie"} {
		from := 0
		for {
			k := strings.Index(low[from:], name)
			if k < 0 {
				break
			}
			k += from
			j := k + len(name)
			for j < len(s) && s[j] == ' ' {
				j++
			}
			if j >= len(s) || s[j] != ':' {
				from = k + len(name)
				continue
			}
			j++
			for j < len(s) && s[j] == ' ' {
				j++
			}
			// Keep an auth scheme word, redact the credential after it.
			for _, scheme := range []string{"bearer ", "basic ", "token "} {
				if strings.HasPrefix(low[j:], scheme) {
					j += len(scheme)
					break
				}
			}
			e := j
			for e < len(s) && s[e] != '"' && s[e] != '\'' && s[e] != '\n' {
				e++
			}
			if e > j {
				s = s[:j] + redacted + s[e:]
				low = strings.ToLower(s)
			}
			from = j + len(redacted)
		}
	}
	return s
}

// redactURLPasswords handles scheme://user:password@host.
func redactURLPasswords(s string) string {
	from := 0
	for {
		k := strings.Index(s[from:], "://")
		if k < 0 {
			return s
		}
		start := from + k + 3
		end := start
		for end < len(s) && !strings.ContainsRune(" \t\n/'\"", rune(s[end])) {
			end++
		}
		auth := s[start:end]
		at := strings.LastIndexByte(auth, '@')
		colon := strings.IndexByte(auth, ':')
		if at > 0 && colon > 0 && colon < at {
			s = s[:start+colon+1] + redacted + s[start+at:]
			end = start + colon + 1 + len(redacted)
		}
		from = end
	}
}

func tokenChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// redactTokens replaces well-known credential shapes and JSON web tokens.
func redactTokens(s string) string {
	for _, tp := range tokenPrefixes {
		from := 0
		for {
			k := strings.Index(s[from:], tp.prefix)
			if k < 0 {
				break
			}
			k += from
			if k > 0 && tokenChar(s[k-1]) {
				from = k + len(tp.prefix)
				continue
			}
			e := k + len(tp.prefix)
			for e < len(s) && tokenChar(s[e]) {
				e++
			}
			if e-k-len(tp.prefix) >= tp.min {
				s = s[:k] + redacted + s[e:]
				from = k + len(redacted)
			} else {
				from = e
			}
		}
	}
	// JSON web tokens: eyJ<b64>.<b64>.<b64>
	from := 0
	for {
		k := strings.Index(s[from:], "eyJ")
		if k < 0 {
			return s
		}
		k += from
		e, dots := k, 0
		for e < len(s) && (tokenChar(s[e]) || s[e] == '.') {
			if s[e] == '.' {
				dots++
			}
			e++
		}
		if dots == 2 && e-k >= 30 {
			s = s[:k] + redacted + s[e:]
			from = k + len(redacted)
		} else {
			from = e
		}
	}
}

// Preview is the short, redacted, single-line form of a command kept in
// the journal.
func Preview(cmd string) string {
	return truncate(Redact(engine.NormalizeCommand(cmd)), previewRunes)
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// Clip bounds an already redacted, normalized command to the journal's
// preview length.
func Clip(s string) string { return truncate(s, previewRunes) }
