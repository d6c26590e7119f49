package redact

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// The fast path of Path skips only paths its passes leave alone:
// minPathSecret is no longer than the shortest token the path rules match.
func TestMinPathSecret(t *testing.T) {
	shortest := 10 + 1 + 8 + 1 // a JSON web token: eyJ… of 10, '.', 8, '.'
	for _, sh := range tokenShapes {
		shortest = min(shortest, len(sh.prefix)+sh.min)
	}
	if minPathSecret > shortest {
		t.Fatalf("minPathSecret is %d, but a %d-byte token is a secret", minPathSecret, shortest)
	}
}

func TestNoPathSecretAgreesWithThePasses(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	parts := []string{"home", "dev", "project", "src", "internal", "a", "README.md", "x_y-z.go",
		"xoxb-0123456789", "xoxb-012345678", "AKIAABCDEFGHIJKLMNOP", "ghp_0123456789abcdefghijABCDEFGHIJ",
		"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.sflKxwRJSMeKKF2QT4fwpM", "token=abc123", "k=v", "a b",
		"sk_live_0123456789abcdEF", "über", "..", "very_long_file_name_test.go", "0123456789abcd"}
	paths := []string{"", "/", "/home/dev/project", "/home/dev/project/big.txt", "C:\\Users\\dev\\file.txt"}
	for range 20000 {
		var b strings.Builder
		for n := 1 + rng.IntN(6); n > 0; n-- {
			if rng.IntN(3) > 0 {
				b.WriteByte('/')
			}
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		paths = append(paths, b.String())
	}
	skipped := 0
	for _, p := range paths {
		if !noPathSecret(p) {
			continue
		}
		skipped++
		if got := redactPathPasses(p); got != p {
			t.Fatalf("the fast path skipped %q, which the passes redact to %q", p, got)
		}
	}
	if skipped == 0 || skipped == len(paths) {
		t.Fatalf("the generated paths do not exercise both sides: %d of %d skipped", skipped, len(paths))
	}
}
