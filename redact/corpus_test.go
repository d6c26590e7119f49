package redact

import (
	"strings"
	"testing"

	"cully/engine"
	"cully/redact/secretcorpus"
)

// corpusCase is one line of testdata/secrets.txt, the regression corpus
// every surface's test reads (package secretcorpus).
type corpusCase struct {
	line    int
	kind    string // cmd, path, keep, keeppath
	in      string
	secrets []string
	want    string // the exact expected output
}

func loadCorpus(t testing.TB) []corpusCase {
	t.Helper()
	cs, err := secretcorpus.Load("testdata/secrets.txt")
	if err != nil {
		t.Fatal(err)
	}
	if secretcorpus.Marker != redacted {
		t.Fatalf("the corpus expects %q, redaction writes %q", secretcorpus.Marker, redacted)
	}
	cases := make([]corpusCase, len(cs))
	for i, c := range cs {
		cases[i] = corpusCase{line: c.Line, kind: c.Kind, in: c.In, secrets: c.Secrets, want: c.Want}
	}
	return cases
}

func (c corpusCase) redact() string {
	if c.kind == "path" || c.kind == "keeppath" {
		return Path(c.in)
	}
	return Text(c.in)
}

// Every secret in the corpus is gone from the output, in place: the output
// is the input with each secret replaced by the marker (or the case's exact
// expectation), so the structure around it survives. Every innocent
// command and path comes back unchanged.
func TestRedactCorpus(t *testing.T) {
	cases := loadCorpus(t)
	var secret, innocent int
	for _, c := range cases {
		got := c.redact()
		switch c.kind {
		case "cmd", "path":
			secret++
			for _, s := range c.secrets {
				if strings.Contains(got, s) {
					t.Errorf("secrets.txt:%d: secret %q survived in %q", c.line, s, got)
				}
			}
			if got != c.want {
				t.Errorf("secrets.txt:%d:\n in   %q\n got  %q\n want %q", c.line, c.in, got, c.want)
			}
			if c.kind == "cmd" {
				// What the decoder stores: redacted, then normalized.
				norm := engine.NormalizeCommand(got)
				for _, s := range c.secrets {
					for _, f := range strings.Fields(s) {
						if len(f) >= 8 && strings.Contains(norm, f) {
							t.Errorf("secrets.txt:%d: %q survived in the normalized command %q", c.line, f, norm)
						}
					}
				}
			}
		default:
			innocent++
			if got != c.in {
				t.Errorf("secrets.txt:%d: innocent %q changed to %q", c.line, c.in, got)
			}
		}
		if again := c.redact2(got); again != got {
			t.Errorf("secrets.txt:%d: not idempotent: %q then %q", c.line, got, again)
		}
	}
	if secret < 60 || innocent < 20 {
		t.Errorf("corpus has %d secret shapes and %d innocent lines; want at least 60 and 20", secret, innocent)
	}
	t.Logf("%d secret shapes, %d innocent lines", secret, innocent)
}

func (c corpusCase) redact2(s string) string {
	if c.kind == "path" || c.kind == "keeppath" {
		return Path(s)
	}
	return Text(s)
}

// An ordinary path comes back as the very same string, with no allocation.
func TestRedactPathNoAlloc(t *testing.T) {
	p := "internal/authentication/password_reset_token_handler_test.go"
	if n := testing.AllocsPerRun(100, func() { _ = Path(p) }); n != 0 {
		t.Errorf("Path allocated %v times on an ordinary path", n)
	}
	if n := testing.AllocsPerRun(100, func() { _ = Text("go test ./... -run TestKeyOrder -count=1") }); n != 0 {
		t.Errorf("Text allocated %v times on an ordinary command", n)
	}
}
