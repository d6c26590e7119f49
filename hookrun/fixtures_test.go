package hookrun

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// Every captured Claude Code payload, in capture order, goes through the
// hook's whole path (the agent registry's adapter, the rules, the journal);
// the answers and the journal records must equal the golden file byte for
// byte. The golden file was written before the agent seam existed, so a
// refactor that changes what the hook stores or says fails here.
func TestCapturedFixturesByteForByte(t *testing.T) {
	var out bytes.Buffer
	fixtures := filepath.Join("..", "hookbridge", "claude", "testdata")
	seq := filepath.Join(fixtures, "capture-sequence")
	// A failing command run again and again, then a long read-only stretch:
	// captured payloads replayed so the nudges' answers are covered too.
	var loop []string
	for i := 0; i < 4; i++ {
		loop = append(loop, filepath.Join(seq, "010-PreToolUse-Bash.json"), filepath.Join(seq, "012-PostToolUseFailure-Bash.json"))
	}
	for i := 0; i < 22; i++ {
		loop = append(loop, filepath.Join(seq, "005-PreToolUse-Read.json"), filepath.Join(seq, "007-PostToolUse-Read.json"))
	}
	loop = append(loop, filepath.Join(seq, "010-PreToolUse-Bash.json"), filepath.Join(seq, "071-Stop.json"))
	for _, dir := range []string{"capture-sequence", "hooks", "loop"} {
		files, err := filepath.Glob(filepath.Join(fixtures, dir, "*.json"))
		if dir == "loop" {
			files = loop
		}
		if err != nil || len(files) == 0 {
			t.Fatalf("no fixtures in %s: %v", dir, err)
		}
		home := t.TempDir()
		env := map[string]string{
			"CULLY_HOME":                   home,
			"CULLY_NOW":                    "2026-11-30T12:00:00Z",
			"CULLY_CONFIG":                 filepath.Join(home, "none.toml"),
			"CLAUDE_PROJECT_DIR":           "/home/dev/project",
			"CLAUDE_CODE_SESSION_ATTENDED": "0",
		}
		for _, f := range files {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			Run(IO{Stdin: bytes.NewReader(raw), Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string { return env[k] }}, "claude")
			fmt.Fprintf(&out, "== %s/%s\nanswer: %s\n", dir, filepath.Base(f), stdout.String())
			if stderr.Len() > 0 {
				t.Errorf("%s: stderr %q", f, stderr.String())
			}
		}
		journal, err := os.ReadFile(filepath.Join(home, "journal.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&out, "== %s journal\n%s", dir, journal)
	}
	golden := filepath.Join("testdata", "fixtures.golden")
	if *update {
		if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Errorf("hook answers or journal records differ from %s (run with -update only for a deliberate change)\n%s", golden, firstDiff(out.Bytes(), want))
	}
}

func firstDiff(got, want []byte) string {
	g, w := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := 0; i < len(g) || i < len(w); i++ {
		var a, b []byte
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if !bytes.Equal(a, b) {
			return fmt.Sprintf("line %d:\n got: %s\nwant: %s", i+1, a, b)
		}
	}
	return ""
}
