package secretscan

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/report"

	"cully/engine"
	"cully/redact"
	"cully/redact/secretcorpus"
)

// corpusFile is the regression corpus, from this module's folder.
const corpusFile = "../../redact/testdata/secrets.txt"

func loadCorpus(t *testing.T) []secretcorpus.Case {
	t.Helper()
	cs, err := secretcorpus.Load(corpusFile)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// newJudge is gitleaks with its default rules, also looking inside
// base64, hex and percent-encoded text.
func newJudge(t *testing.T) *detect.Detector {
	t.Helper()
	d, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	d.MaxDecodeDepth = 2
	return d
}

func describe(fs []report.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString("\n\t" + f.RuleID + ": " + f.Secret)
	}
	return b.String()
}

// wrap puts a value where gitleaks' rules look for secrets. Its rules know
// provider formats and keyword=value text, not shell context: mysql -pX,
// sshpass -p X, curl -u user:X or a URL password are invisible to it as
// they stand. Presented as a token assignment, every word is judged on its
// own merits (entropy, alphabet, length).
func wrap(v string) string { return `export CULLY_FAKE_TOKEN="` + v + `"` }

// fields splits a redacted output into the words a secret could hide in.
// A binary surface (the session state file: framed JSON bodies, written
// in place, with the stale bytes of earlier bodies between them) is read
// as its printable runs; a run that starts right after a binary byte
// starts at an arbitrary cut, so its first word is a fragment glued to
// whatever printable byte the frame held ("pfailure-loop"), no word cully
// ever wrote: it is left out here (gitleaks still reads the whole surface
// as it stands).
func fields(s string) []string {
	word := func(c rune) bool { return strings.ContainsRune(" \t\n\"'`:@/?&=,;()<>{}[]\\", c) }
	binary := func(c rune) bool {
		return c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f || c == utf8.RuneError
	}
	var out []string
	for start, cut := 0, false; start < len(s); {
		end := strings.IndexFunc(s[start:], binary)
		if end < 0 {
			end = len(s)
		} else {
			end += start
		}
		ws := strings.FieldsFunc(s[start:end], word)
		if c, _ := utf8.DecodeRuneInString(s[start:end]); cut && len(ws) > 0 && !word(c) {
			ws = ws[1:] // a fragment: the run begins mid-word
		}
		out = append(out, ws...)
		_, n := utf8.DecodeRuneInString(s[end:])
		start, cut = end+max(n, 1), true
	}
	return out
}

// isUUID: an identifier, not a secret, though random enough for gitleaks'
// generic rule once presented as a token.
func isUUID(f string) bool {
	if len(f) != 36 {
		return false
	}
	for i := 0; i < len(f); i++ {
		switch c := f[i]; {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if c != '-' {
				return false
			}
		case !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f'):
			return false
		}
	}
	return true
}

// judge returns what gitleaks finds in text as it stands and in each of
// its words of 8 bytes or more presented as a token (UUIDs aside).
func judge(d *detect.Detector, text string) []report.Finding {
	fs := d.DetectString(text)
	for _, f := range fields(text) {
		if len(f) < 8 || isUUID(f) {
			continue
		}
		fs = append(fs, d.DetectString(wrap(f))...)
	}
	return fs
}

func redacted(c secretcorpus.Case) string {
	if c.Path() {
		return redact.Path(c.In)
	}
	return redact.Text(c.In)
}

// gitleaks judges the corpus twice. On the raw corpus it finds secrets in
// the lines as they stand (provider formats, keyword=value) and in nearly
// every secret value once wrapped, which proves the judge works. On
// everything Redact and RedactPath made of the corpus it finds nothing:
// not in the output as returned, not as the journal stores it
// (normalized), and not in any word of it wrapped as a token.
func TestGitleaksJudge(t *testing.T) {
	d := newJudge(t)
	var lines, linesCaught, values, valuesCaught int
	var missedLines, missedValues []int
	for _, c := range loadCorpus(t) {
		if !c.Secret() {
			continue
		}
		lines++
		if len(d.DetectString(c.In)) > 0 {
			linesCaught++
		} else {
			missedLines = append(missedLines, c.Line)
		}
		for _, s := range c.Secrets {
			values++
			if len(d.DetectString(wrap(s))) > 0 || len(d.DetectString(s)) > 0 {
				valuesCaught++
			} else {
				missedValues = append(missedValues, c.Line)
			}
		}
		out := redacted(c)
		for _, text := range []string{out, engine.NormalizeCommand(out)} {
			if fs := judge(d, text); len(fs) > 0 {
				t.Errorf("secrets.txt:%d: gitleaks finds a secret in the redacted %q:%s", c.Line, text, describe(fs))
			}
		}
	}
	t.Logf("raw lines: gitleaks finds secrets in %d of %d as they stand (misses lines %v)", linesCaught, lines, missedLines)
	t.Logf("raw values: gitleaks finds %d of %d secret values wrapped as a token (misses those of lines %v)", valuesCaught, values, missedValues)
	// gitleaks cannot see every shape (a bare sk- key of letters only, a
	// short password behind a flag): that is why cully keeps its own
	// check. It sees most, enough to prove it is working.
	if linesCaught < 60 || valuesCaught*100 < values*85 {
		t.Errorf("gitleaks finds only %d of %d lines and %d of %d values: the judge is not working", linesCaught, lines, valuesCaught, values)
	}
}

// The innocent lines are left unchanged on purpose; gitleaks agreeing that
// they hold no secret shows the two do not disagree about them.
func TestGitleaksInnocent(t *testing.T) {
	d := newJudge(t)
	for _, c := range loadCorpus(t) {
		if c.Secret() {
			continue
		}
		if fs := d.DetectString(c.In); len(fs) > 0 {
			t.Errorf("secrets.txt:%d: gitleaks sees a secret in the innocent %q:%s", c.Line, c.In, describe(fs))
		}
	}
}

// TestFieldsBinary: in a framed file, a printable run after binary bytes
// loses its first word (a fragment) and nothing else.
func TestFieldsBinary(t *testing.T) {
	got := fields("cully-s1\x00\x00\x04pfailure-loop\",\"task\":2 abcdefgh\x00{\"v\":7}\nnext line")
	want := []string{"cully-s1", "task", "2", "abcdefgh", "v", "7", "next", "line"}
	if !slices.Equal(got, want) {
		t.Errorf("fields = %q, want %q", got, want)
	}
}
