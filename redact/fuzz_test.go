package redact

import (
	"strings"
	"testing"
)

// boundaryTokens lists the known-prefix tokens in s that are long enough
// to be secrets, found by a plain scan independent of the redactor's.
func boundaryTokens(s string) []string {
	var toks []string
	for _, t := range tokenShapes {
		for from := 0; ; {
			k := strings.Index(s[from:], t.prefix)
			if k < 0 {
				break
			}
			k += from
			from = k + 1
			if k > 0 && isAlnum(s[k-1]) {
				continue
			}
			e := k + len(t.prefix)
			for e < len(s) && inClass(s[e], t.class) {
				e++
			}
			if tail := s[k+len(t.prefix) : e]; len(tail) >= t.min && classCount(tail) >= t.classes {
				toks = append(toks, s[k:e])
			}
		}
	}
	return toks
}

// checkRedaction asserts what holds for any input: idempotence, a bounded
// growth per redaction, and no long-enough known-prefix token left.
func checkRedaction(t *testing.T, in, out string, again func(string) string) {
	t.Helper()
	if a := again(out); a != out {
		t.Fatalf("not idempotent:\n in    %q\n once  %q\n twice %q", in, out, a)
	}
	if n := strings.Count(out, redacted); len(out) > len(in)+(len(redacted)-1)*n {
		t.Fatalf("output grew by %d for %d redactions:\n in  %q\n out %q", len(out)-len(in), n, in, out)
	}
	if toks := boundaryTokens(out); len(toks) > 0 {
		t.Fatalf("token %q left in the output:\n in  %q\n out %q", toks[0], in, out)
	}
	for _, tok := range boundaryTokens(in) {
		// A token that also appears inside a longer word of the input is
		// no token there and may stay.
		if strings.Count(in, tok) == 1 && strings.Contains(out, tok) {
			t.Fatalf("token %q of the input survived:\n in  %q\n out %q", tok, in, out)
		}
	}
}

func fuzzSeeds(f *testing.F) {
	for _, c := range loadCorpus(f) {
		f.Add(c.in)
	}
	for _, s := range []string{
		"", "=", ":", "://", "-----BEGIN ", "-----BEGIN RSA PRIVATE KEY-----", "eyJ", "<<", "<<EOF\n", "cat <<'E\nE",
		redacted, redacted + redacted, "x=" + redacted + "y", "[REDACTED" + "ghp_" + strings.Repeat("a1", 20),
		"AKIA" + strings.Repeat("A2", 8) + "ghp_" + strings.Repeat("Zz9", 12),
		"password=\"unterminated", "curl -u a:b:c:d", "https://:@", "https://a:b@@@c/", "mysql -p", "a=$(", "$(((",
		"echo '-----BEGIN PRIVATE KEY-----\\nAAAA' > k.pem", "printf 'A=1\\nB=2' > .env", "x <<<", "--token",
	} {
		f.Add(s)
	}
}

func FuzzRedact(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, in string) {
		checkRedaction(t, in, Text(in), Text)
	})
}

func FuzzRedactPath(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, in string) {
		out := Path(in)
		checkRedaction(t, in, out, Path)
		if !strings.Contains(out, redacted) && out != in {
			t.Fatalf("changed without redacting: %q -> %q", in, out)
		}
	})
}
