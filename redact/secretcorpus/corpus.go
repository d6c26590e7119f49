// Package secretcorpus reads the regression corpus of secret shapes
// (redact/testdata/secrets.txt): every shape redaction ever missed,
// grouped by family, with the innocent lines it must leave alone. Three
// places read it: redact's tests (redaction itself), cmd/cully's tests
// (every surface of the real binaries) and tools/secretscan (an independent
// detector over the same surfaces). It imports nothing of cully's and holds
// no secret of its own: the file's values are fake.
package secretcorpus

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

// Marker is what redaction writes in place of a secret.
const Marker = "[REDACTED]"

// Case is one line of the corpus.
type Case struct {
	Line    int
	Family  string   // the "## " heading above it
	Kind    string   // cmd, path, keep, keeppath
	In      string   // the command or path
	Secrets []string // values that must be absent from every output (cmd, path)
	Want    string   // the exact redacted output
}

// Secret tells a case whose input holds secrets from an innocent one.
func (c Case) Secret() bool { return c.Kind == "cmd" || c.Kind == "path" }

// Path tells a case read as a file path from one read as a command.
func (c Case) Path() bool { return c.Kind == "path" || c.Kind == "keeppath" }

// markers stand for the line breaks and tabs inside a case.
var markers = strings.NewReplacer("⏎", "\n", "⇥", "\t")

// Load reads the corpus file: one case per line, tab-separated (kind,
// input, the secret values, optionally "want:" and the exact expected
// output); "## " lines name the family of the cases below them, other "#"
// lines are comments. A malformed line is an error naming it.
func Load(path string) ([]Case, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open secret corpus: %w", err)
	}
	defer f.Close()
	var cases []Case
	family := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		text := sc.Text()
		if h, ok := strings.CutPrefix(text, "## "); ok {
			family = strings.TrimSpace(h)
			continue
		}
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		if family == "" {
			return nil, fmt.Errorf("%s:%d: a case before any \"## family\" heading", path, n)
		}
		c, err := parse(text, n, family)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read secret corpus: %w", err)
	}
	return cases, nil
}

func parse(text string, n int, family string) (Case, error) {
	cols := strings.Split(text, "\t")
	for i := range cols {
		cols[i] = markers.Replace(cols[i])
	}
	if len(cols) < 2 {
		return Case{}, fmt.Errorf("no input")
	}
	c := Case{Line: n, Family: family, Kind: cols[0], In: cols[1], Want: cols[1]}
	explicit := false
	for _, col := range cols[2:] {
		if w, ok := strings.CutPrefix(col, "want:"); ok {
			c.Want, explicit = w, true
			continue
		}
		c.Secrets = append(c.Secrets, col)
	}
	switch c.Kind {
	case "cmd", "path":
		if len(c.Secrets) == 0 {
			return Case{}, fmt.Errorf("a secret case names no secret")
		}
		if !explicit {
			for _, s := range c.Secrets {
				if !strings.Contains(c.In, s) {
					return Case{}, fmt.Errorf("secret %q is not in the input", s)
				}
				c.Want = strings.ReplaceAll(c.Want, s, Marker)
			}
		}
	case "keep", "keeppath":
		if len(c.Secrets) > 0 || explicit {
			return Case{}, fmt.Errorf("an innocent case names a secret")
		}
	default:
		return Case{}, fmt.Errorf("unknown kind %q", c.Kind)
	}
	return c, nil
}

// Leaks returns the secrets of c that text still holds: each value whole,
// and each of its words of 8 bytes or more (what survives a preview's
// whitespace collapse or a clipped line).
func (c Case) Leaks(text string) []string {
	var out []string
	for _, s := range c.Secrets {
		if strings.Contains(text, s) {
			out = append(out, s)
			continue
		}
		for _, f := range strings.Fields(s) {
			if len(f) >= 8 && f != s && strings.Contains(text, f) {
				out = append(out, f)
			}
		}
	}
	return out
}
