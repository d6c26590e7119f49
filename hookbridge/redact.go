package hookbridge

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// previewRunes bounds the command preview kept in the journal.
const previewRunes = 160

const redacted = "[REDACTED]"

// secretHints are lower-case substrings that any secret pattern below needs;
// a command without one of them skips the regular expressions entirely,
// which keeps the common case (go test, ls, cat) cheap on the hot path.
var secretHints = []string{
	"key", "token", "secret", "pass", "pwd", "auth", "bearer", "cookie", "credential", "session",
	"://", "sk-", "ghp_", "gho_", "ghs_", "ghu_", "github_pat_", "glpat-", "xox", "akia", "aiza", "eyj", "npm_", "hf_",
}

type rule struct {
	re   *regexp.Regexp
	repl string
}

var rules = sync.OnceValue(func() []rule {
	return []rule{
		// Authorization and API key headers.
		{regexp.MustCompile(`(?i)\b(authorization|proxy-authorization)(\s*:\s*)(bearer\s+|basic\s+|token\s+)?[^\s'"]+`), "${1}${2}${3}" + redacted},
		{regexp.MustCompile(`(?i)\b(x-api-key|api-key|x-auth-token|x-access-token|cookie|set-cookie)(\s*:\s*)[^'"]+`), "${1}${2}" + redacted},
		// user:password@ in URLs.
		{regexp.MustCompile(`(?i)(\b[a-z][a-z0-9+.-]*://[^\s:/@'"]+:)[^\s@/'"]+@`), "${1}" + redacted + "@"},
		// NAME=value where the name says secret.
		{regexp.MustCompile(`(?i)\b([a-z0-9_]*(?:token|secret|passw(?:or)?d|pwd|api_?key|access_?key|private_?key|credentials?|auth)[a-z0-9_]*)=("[^"]*"|'[^']*'|[^\s;&|]+)`), "${1}=" + redacted},
		// --password value, --token=value, -p's long cousins.
		{regexp.MustCompile(`(?i)(--?[a-z0-9-]*(?:token|secret|password|passwd|api-?key|access-key|auth)[a-z0-9-]*)(=|\s+)("[^"]*"|'[^']*'|[^\s;&|]+)`), "${1}${2}" + redacted},
		// Token shapes that are secrets wherever they appear.
		{regexp.MustCompile(`\b(sk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{16,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,}|npm_[A-Za-z0-9]{30,}|hf_[A-Za-z0-9]{30,})\b`), redacted},
		// JSON web tokens.
		{regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`), redacted},
	}
})

// Redact removes secrets from a command line: tokens, keys, passwords in
// URLs and flags, Authorization headers.
func Redact(s string) string {
	low := strings.ToLower(s)
	hit := false
	for _, h := range secretHints {
		if strings.Contains(low, h) {
			hit = true
			break
		}
	}
	if !hit {
		return s
	}
	for _, r := range rules() {
		s = r.re.ReplaceAllString(s, r.repl)
	}
	return s
}

// Preview is the short, redacted, single-line form of a command kept in
// the journal.
func Preview(cmd string) string {
	return truncate(Redact(strings.Join(strings.Fields(cmd), " ")), previewRunes)
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
