package hookrun

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// agentRun is one payload for one agent's hook, with the environment its
// host sets for that call.
type agentRun struct {
	file string
	env  map[string]string
}

// runGolden sends payloads through the hook's whole path for one agent
// and compares the answers and the journal with a golden file.
func runGolden(t *testing.T, agent, golden string, runs []agentRun) {
	t.Helper()
	home := t.TempDir()
	var out bytes.Buffer
	for _, r := range runs {
		raw, err := os.ReadFile(r.file)
		if err != nil {
			t.Fatal(err)
		}
		env := map[string]string{
			"CULLY_HOME":   home,
			"CULLY_NOW":    "2026-12-01T12:00:00Z",
			"CULLY_CONFIG": filepath.Join(home, "none.toml"),
		}
		for k, v := range r.env {
			env[k] = v
		}
		var stdout, stderr bytes.Buffer
		Run(IO{Stdin: bytes.NewReader(raw), Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string { return env[k] }}, agent)
		fmt.Fprintf(&out, "== %s\nanswer: %s\n", filepath.Base(r.file), stdout.String())
		if stderr.Len() > 0 {
			t.Errorf("%s: stderr %q", r.file, stderr.String())
		}
	}
	if b, err := os.ReadFile(filepath.Join(home, "errors.log")); err == nil {
		t.Errorf("errors.log: %s", b)
	}
	journal, err := os.ReadFile(filepath.Join(home, "journal.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&out, "== journal\n%s", journal)
	path := filepath.Join("testdata", golden)
	if *update {
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Errorf("hook answers or journal records differ from %s (run with -update only for a deliberate change)\n%s", path, firstDiff(out.Bytes(), want))
	}
}

// GitHub Copilot CLI's captured run through the hook's whole path, then a
// failing command run again and again and a long read-only stretch made of
// captured calls: the nudges come back as additionalContext on preToolUse.
func TestCopilotFixturesByteForByte(t *testing.T) {
	seq := filepath.Join("..", "hookbridge", "copilot", "testdata", "capture-sequence")
	files, err := filepath.Glob(filepath.Join(seq, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for i := 0; i < 4; i++ {
		files = append(files, filepath.Join(seq, "009-preToolUse-bash.json"), filepath.Join(seq, "010-postToolUse-bash.json"))
	}
	for i := 0; i < 22; i++ {
		files = append(files, filepath.Join(seq, "003-preToolUse-view.json"), filepath.Join(seq, "004-postToolUse-view.json"))
	}
	files = append(files, filepath.Join(seq, "025-preToolUse-bash.json"), filepath.Join(seq, "027-agentStop.json"))
	var runs []agentRun
	for _, f := range files {
		event := strings.SplitN(strings.TrimSuffix(filepath.Base(f), ".json"), "-", 3)[1]
		runs = append(runs, agentRun{f, map[string]string{"CULLY_HOOK_EVENT": event, "COPILOT_PROJECT_DIR": "/home/dev/project"}})
	}
	runGolden(t, "copilot", "copilot.golden", runs)
	b, _ := os.ReadFile(filepath.Join("testdata", "copilot.golden"))
	if !bytes.Contains(b, []byte(`answer: {"additionalContext":"cully`)) {
		t.Error("no nudge was answered: the loop proves nothing")
	}
}

// Cursor's payloads (from its documentation) through the hook's whole
// path: a long stretch of reads, then a check that keeps failing by its own
// output. The checkpoints are raised in the record, and no hook is
// answered: Cursor has no channel cully uses.
func TestCursorFixturesByteForByte(t *testing.T) {
	dir := filepath.Join("..", "hookbridge", "cursor", "testdata", "hooks")
	at := func(name string) string { return filepath.Join(dir, name+".json") }
	files := []string{at("sessionStart"), at("beforeSubmitPrompt")}
	for i := 0; i < 22; i++ {
		files = append(files, at("beforeReadFile"))
	}
	for i := 0; i < 4; i++ {
		files = append(files, at("beforeShellExecution-check"), at("afterShellExecution-check-fail"))
	}
	files = append(files, at("afterFileEdit"), at("beforeShellExecution-check"), at("afterShellExecution-check-pass"),
		at("beforeShellExecution-run"), at("afterShellExecution-run"), at("beforeMCPExecution"), at("afterMCPExecution"),
		at("afterMCPExecution-error"), at("preCompact"), at("subagentStart"), at("subagentStop"), at("stop"), at("sessionEnd"))
	var runs []agentRun
	for _, f := range files {
		runs = append(runs, agentRun{f, nil})
	}
	runGolden(t, "cursor", "cursor.golden", runs)
	b, _ := os.ReadFile(filepath.Join("testdata", "cursor.golden"))
	if bytes.Contains(b, []byte("answer: {")) {
		t.Error("a Cursor hook was answered")
	}
	for _, want := range []string{`"reason":"exploring"`, `"reason":"failure-loop"`} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("the record raises no %s checkpoint: the sequence proves nothing", want)
		}
	}
}

// A Claude Code entry run by GitHub Copilot CLI (COPILOT_CLI=1, as it runs
// a repository's .claude hooks) is recorded as Copilot CLI's call, with
// the exit status its result gives, and not answered.
func TestClaudeEntryRunByCopilot(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "hookbridge", "copilot", "testdata", "claude-format", "PostToolUse.json"))
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	env := map[string]string{"CULLY_HOME": home, "CULLY_NOW": "2026-12-01T12:00:00Z", "CULLY_CONFIG": filepath.Join(home, "none.toml"),
		"COPILOT_CLI": "1", "COPILOT_PROJECT_DIR": "/home/dev/project", "CLAUDE_PROJECT_DIR": "/home/dev/project"}
	var stdout, stderr bytes.Buffer
	Run(IO{Stdin: bytes.NewReader(raw), Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string { return env[k] }}, "claude")
	journal, _ := os.ReadFile(filepath.Join(home, "journal.jsonl"))
	if stdout.Len() > 0 || stderr.Len() > 0 || !bytes.Contains(journal, []byte(`"agent":"copilot"`)) || !bytes.Contains(journal, []byte(`"exit":0`)) {
		t.Errorf("answer %q, stderr %q, journal %s", stdout.String(), stderr.String(), journal)
	}
}
