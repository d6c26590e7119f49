package redact

import (
	"strings"
	"sync"
	"testing"
)

func TestRedact(t *testing.T) {
	cases := []struct{ in, secret string }{
		{`curl -H "Authorization: Bearer abc.def.ghi123" https://api.example.com`, "abc.def.ghi123"},
		{`curl -H 'X-Api-Key: 9f8e7d6c5b4a' https://x`, "9f8e7d6c5b4a"},
		{`git clone https://user:hunter2pass@github.com/o/r.git`, "hunter2pass"},
		{`ANTHROPIC_API_KEY=sk-ant-api03-abcdefghijklmnopqrstuvwx claude -p hi`, "abcdefghijklmnopqrstuvwx"},
		{`export GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ`, "ghp_0123456789"},
		{`mysql --password=s3cr3t -u root`, "s3cr3t"},
		{`tool --token deadbeefcafe run`, "deadbeefcafe"},
		{`echo ghp_0123456789abcdefghijABCDEFGHIJ`, "ghp_0123456789abcdefghij"},
		{`aws s3 ls # AKIAABCDEFGHIJKLMNOP`, "AKIAABCDEFGHIJKLMNOP"},
		{`DB_PASSWORD="two words" psql`, "two words"},
		{`curl -d token=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.sflKxwRJSMeKKF2QT4fwpM`, "sflKxwRJSMeKKF2QT4fwpM"},
	}
	for _, c := range cases {
		got := Text(c.in)
		if strings.Contains(got, c.secret) || !strings.Contains(got, redacted) {
			t.Errorf("Text(%q) = %q: secret %q survived", c.in, got, c.secret)
		}
	}
	for _, plain := range []string{"go test ./...", "cat README.md", "grep -rn keyboard src/", "ls -la", "git log --oneline -5"} {
		if got := Text(plain); got != plain {
			t.Errorf("Text(%q) changed a harmless command to %q", plain, got)
		}
	}
}

func TestRedactKeepsStructure(t *testing.T) {
	cases := map[string]string{
		`curl -H "Authorization: Bearer abc123" https://x`: `curl -H "Authorization: Bearer [REDACTED]" https://x`,
		`TOKEN=abc go test ./...`:                          `TOKEN=[REDACTED] go test ./...`,
		`git push https://me:pw@host/r.git main`:           `git push https://me:[REDACTED]@host/r.git main`,
		`tool --api-key k1 --verbose`:                      `tool --api-key [REDACTED] --verbose`,
		`echo $SECRET_X`:                                   `echo $SECRET_X`,
	}
	for in, want := range cases {
		if got := Text(in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
}

// A name says secret by its words, unless it is about the secret (a file,
// a switch, a count) rather than the secret itself.
func TestNameKind(t *testing.T) {
	cases := map[string]int{
		"PASSWORD": kindStrong, "DB_PASSWORD": kindStrong, "PGPASSWORD": kindStrong, "--password": kindStrong,
		"passwd": kindStrong, "client_secret": kindStrong, "GITHUB_TOKEN": kindStrong, "_authToken": kindStrong,
		"api-key": kindStrong, "apiKey": kindStrong, "AccountKey": kindStrong, "private_key": kindStrong,
		"private_key_id": kindStrong, "secret_id": kindStrong, "MYSQL_PWD": kindStrong, "ansible_become_pass": kindStrong,
		"storepass": kindStrong, "Authorization": kindStrong, "x-api-key": kindStrong, "SharedAccessSignature": kindStrong,
		"STRIPE_KEY": kindWeak, "stripeKey": kindWeak, "sig": kindWeak, "X-Amz-Signature": kindWeak, "auth": kindWeak,
		"GITLAB_PAT":   kindWeak,
		"--token-file": kindNone, "PASSWORD_FILE": kindNone, "--password-stdin": kindNone, "--no-password": kindNone,
		"--ask-become-pass": kindNone, "--with-token": kindNone, "max_tokens": kindNone, "--tokenizer": kindNone,
		"secret_name": kindNone, "TOKEN_URL": kindNone, "--auth-type": kindNone, "csrf_token": kindNone,
		"page_token": kindNone, "--secret-id": kindStrong, "key": kindNone, "primary_key": kindNone,
		"--ssh-key": kindNone, "--key-file": kindNone, "PWD": kindNone, "OLDPWD": kindNone, "bypass": kindNone,
		"author": kindNone, "keyboard": kindNone, "monkey": kindNone, "auth.enabled": kindNone,
		// An environment variable named *_KEY, *_SECRET or *_TOKEN is weak
		// whatever its prefix: its value is a secret when it looks random
		// (SORT_KEY=created_at stays).
		"SORT_KEY": kindWeak, "AZURE_STORAGE_KEY": kindWeak, "CSRF_SECRET": kindWeak, "SYNC_TOKEN": kindWeak,
		"PAGE_TOKEN": kindWeak, "SSH_KEY": kindWeak,
		// A name past 64 bytes is judged by its last 64.
		strings.Repeat("very_long_prefix_", 8) + "client_secret": kindStrong,
		strings.Repeat("VeryLongPrefix", 8) + "Max":              kindNone,
	}
	for name, want := range cases {
		if got := nameKind(name, false); got != want {
			t.Errorf("nameKind(%q) = %d, want %d", name, got, want)
		}
	}
	if nameKind("key", true) != kindWeak {
		t.Error("a key query parameter should be weak")
	}
}

// Redactions at once (the daemon serves hook calls concurrently) get what
// one at a time gets: one takes the static scratch, the others the pool's.
func TestRedactConcurrent(t *testing.T) {
	cmds := []string{
		"curl -H 'Authorization: Bearer sk-ant-api03-" + strings.Repeat("a", 40) + "' https://x",
		"mysql -u root -phunter2secret db",
		"echo hello world",
		"export GITHUB_TOKEN=ghp_" + strings.Repeat("b", 36),
	}
	want := make([]string, len(cmds))
	for i, c := range cmds {
		want[i] = Text(c)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				k := (g + i) % len(cmds)
				if got := Text(cmds[k]); got != want[k] {
					t.Errorf("%q: %q, alone %q", cmds[k], got, want[k])
					return
				}
			}
		}()
	}
	wg.Wait()
}
