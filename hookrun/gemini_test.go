package hookrun

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Gemini CLI's captured payloads, in capture order, then a failing command
// run again and again, go through the hook's whole path: the answers (an
// AfterTool one carrying the nudges, BeforeTool ones never) and the
// journal records must equal the golden file byte for byte.
func TestGeminiFixturesByteForByte(t *testing.T) {
	seq := filepath.Join("..", "hookbridge", "gemini", "testdata", "capture")
	files, err := filepath.Glob(filepath.Join(seq, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for i := 0; i < 4; i++ {
		files = append(files, filepath.Join(seq, "003-BeforeTool-run_shell_command.json"), filepath.Join(seq, "004-AfterTool-run_shell_command.json"))
	}
	home := t.TempDir()
	env := map[string]string{
		"CULLY_HOME":         home,
		"CULLY_NOW":          "2026-12-01T12:00:00Z",
		"CULLY_CONFIG":       filepath.Join(home, "none.toml"),
		"GEMINI_PROJECT_DIR": "/home/dev/project",
	}
	var out bytes.Buffer
	nudged := 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		Run(IO{Stdin: bytes.NewReader(raw), Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string { return env[k] }}, "gemini")
		fmt.Fprintf(&out, "== %s\nanswer: %s\n", filepath.Base(f), stdout.String())
		if stderr.Len() > 0 {
			t.Errorf("%s: stderr %q", f, stderr.String())
		}
		if stdout.Len() > 0 {
			nudged++
			if !bytes.Contains(stdout.Bytes(), []byte(`"hookEventName":"AfterTool"`)) {
				t.Errorf("%s answered %s: only AfterTool's answer reaches the model", filepath.Base(f), stdout.String())
			}
		}
	}
	if nudged == 0 {
		t.Error("the repeated failing command was never nudged")
	}
	journal, err := os.ReadFile(filepath.Join(home, "journal.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&out, "== journal\n%s", journal)
	golden := filepath.Join("testdata", "gemini.golden")
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
