package redact

import (
	"strings"
	"testing"
)

// benchCommand is a typical shell call of an agent, about 200 characters:
// no secret in it, but words (key, token) that send it past a cheap
// pre-check.
const benchCommand = `cd /home/dev/project && go test ./engine/... -run 'TestCheckpoint|TestKeyOrder' -count=1 2>&1 | tail -40 && ` +
	`git diff --stat HEAD~1 -- engine/ hookbridge/ | head -20 && grep -rn "token budget" docs/ | wc -l`

// benchSecret is a 200-character call with two secrets in it.
const benchSecret = `curl -sS -X POST -H "Authorization: Bearer ghp_Zq8XkR2mVt7LwPn4YcB9sJd3HfGa6Ue1Ko5N" ` +
	`-H 'Content-Type: application/json' -d '{"name":"ci","password":"Fake-Pa55word-Here"}' https://api.example.com/v1/users`

// benchHeredoc writes a 4 KiB Go file through a heredoc, the shape of an
// agent creating a file from the shell.
var benchHeredoc = func() string {
	var b strings.Builder
	b.WriteString("cat > internal/auth/session.go <<'EOF'\npackage auth\n\nimport (\n\t\"errors\"\n\t\"time\"\n)\n\n")
	for i := 0; b.Len() < 4096-4; i++ {
		b.WriteString("// Refresh renews the session token when its key is older than maxAge.\n")
		b.WriteString("func (s *Session) Refresh(now time.Time, maxAge time.Duration) error {\n")
		b.WriteString("\tif s.key == nil {\n\t\treturn errors.New(\"no key\")\n\t}\n")
		b.WriteString("\tif now.Sub(s.issued) > maxAge {\n\t\ts.token = s.sign(now)\n\t}\n\treturn nil\n}\n\n")
	}
	b.WriteString("EOF")
	return b.String()
}()

func BenchmarkRedact(b *testing.B) {
	for _, c := range []struct{ name, in string }{
		{"command-200", benchCommand},
		{"secret-200", benchSecret},
		{"heredoc-4k", benchHeredoc},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.in)))
			b.ReportAllocs()
			for b.Loop() {
				_ = Text(c.in)
			}
		})
	}
}
