package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"cully/store"
)

// demoSession is the id of the scripted demo session.
const demoSession = "demo-7c1e2a40-5b9d-4e0f-9a31-6d2c8b1f0e55"

// demoStep is one hook call of the scripted session.
type demoStep struct {
	payload map[string]any
	say     string // narration printed before the step in headless mode
}

// demoScript is a realistic Claude Code session: the agent explores, runs a
// failing test three times without changing anything, re-reads a file it
// already has, opens a large fixture whole, then fixes the bug and verifies.
// The payloads have the shapes captured from the real client.
func demoScript(project string) []demoStep {
	var steps []demoStep
	n := 0
	base := func(event string) map[string]any {
		return map[string]any{
			"session_id":      demoSession,
			"transcript_path": filepath.Join(project, ".demo-transcript.jsonl"),
			"cwd":             project,
			"hook_event_name": event,
			"permission_mode": "default",
		}
	}
	tool := func(say, name string, input map[string]any, fail string) {
		n++
		id := fmt.Sprintf("toolu_demo%04d", n)
		pre := base("PreToolUse")
		pre["tool_name"], pre["tool_input"], pre["tool_use_id"] = name, input, id
		steps = append(steps, demoStep{pre, say})
		post := base("PostToolUse")
		post["tool_name"], post["tool_input"], post["tool_use_id"] = name, input, id
		if fail != "" {
			post["hook_event_name"] = "PostToolUseFailure"
			post["error"], post["is_interrupt"] = fail, false
		} else if name == "Bash" {
			post["tool_response"] = map[string]any{"stdout": "", "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": false}
		} else {
			post["tool_response"] = map[string]any{"type": "text"}
		}
		steps = append(steps, demoStep{post, ""})
	}
	read := func(say, path string) {
		tool(say, "Read", map[string]any{"file_path": filepath.Join(project, path)}, "")
	}
	bash := func(say, cmd, fail string) {
		tool(say, "Bash", map[string]any{"command": cmd, "description": "demo"}, fail)
	}
	start := base("SessionStart")
	start["source"] = "startup"
	steps = append(steps, demoStep{start, "A Claude Code session starts."})
	prompt := base("UserPromptSubmit")
	prompt["prompt"] = "The parser rejects empty input; make Parse(\"\") return an empty document."
	steps = append(steps, demoStep{prompt, "The user asks for a fix (task 1)."})

	read("The agent reads the parser…", "parser/parser.go")
	bash("", "rg -n 'func Parse' parser", "")
	read("", "parser/parser_test.go")
	testFail := "Exit code 1\n--- FAIL: TestParseEmpty (0.00s)\n    parser_test.go:14: Parse(\"\"): unexpected EOF\nFAIL\nFAIL\texample.com/demo/parser\t0.004s"
	bash("…runs the tests: one fails.", "go test ./parser/", testFail)
	bash("It runs them again, unchanged.", "go test ./parser/", testFail)
	bash("And a third time, with nothing changed: cully warns before it runs.", "go test ./parser/", testFail)
	read("The failure loop is now a checkpoint; the agent gets it before its next call.", "parser/lexer.go")
	read("It re-reads parser.go, which has not changed: a re-read warning.", "parser/parser.go")
	bash("It dumps a 300 KiB fixture whole with cat: a large-read warning.", "cat testdata/corpus.json", "")
	for i, p := range []string{"parser/doc.go", "parser/token.go", "parser/ast.go", "README.md", "go.mod"} {
		say := ""
		if i == 0 {
			say = "It keeps exploring without editing or checking…"
		}
		read(say, p)
	}
	for _, c := range []string{"rg -n EOF parser", "git log --oneline -5 -- parser", "grep -rn 'Parse(' --include=*.go .", "ls parser", "git diff --stat",
		"sed -n '1,40p' parser/lexer.go", "rg -n 'empty' parser", "cat go.sum", "find . -name '*_test.go'", "git show --stat HEAD", "wc -l parser/*.go"} {
		bash("", c, "")
	}
	read("…until twenty reads since the last check raise the exploring checkpoint: shown in the panel for you, not told to the agent (on real sessions such stretches were healthy work).", "parser/errors.go")
	tool("The agent edits the parser, which resolves the exploring checkpoint…", "Edit", map[string]any{"file_path": filepath.Join(project, "parser/parser.go"), "old_string": "if len(src) == 0 {\n\t\treturn nil, io.ErrUnexpectedEOF", "new_string": "if len(src) == 0 {\n\t\treturn &Document{}, nil", "replace_all": false}, "")
	bash("…and verifies: the tests pass, a new check epoch begins.", "go test ./parser/", "")
	stop := base("Stop")
	stop["stop_hook_active"], stop["last_assistant_message"] = false, "Fixed: Parse(\"\") now returns an empty document; tests pass."
	steps = append(steps, demoStep{stop, "The agent finishes its turn."})
	return steps
}

// demoProject writes the files the scripted session touches, with sizes
// that make the guards meaningful.
func demoProject(dir string) error {
	files := map[string]int{
		"parser/parser.go": 9 << 10, "parser/parser_test.go": 3 << 10, "parser/lexer.go": 7 << 10,
		"parser/doc.go": 1 << 10, "parser/token.go": 2 << 10, "parser/ast.go": 5 << 10, "parser/errors.go": 1 << 10,
		"README.md": 2 << 10, "go.mod": 64, "go.sum": 1 << 10, "testdata/corpus.json": 300 << 10,
	}
	old := time.Now().Add(-time.Hour)
	for name, size := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		line := []byte("// cully demo file: the content does not matter, its size and age do.\n")
		if err := os.WriteFile(p, bytes.Repeat(line, size/len(line)+1)[:size], 0o644); err != nil {
			return err
		}
		if err := os.Chtimes(p, old, old); err != nil {
			return err
		}
	}
	return nil
}

type demoOpts struct {
	headless bool
	keep     bool
}

func (a *app) demo(o demoOpts) error {
	headless, keep := &o.headless, &o.keep
	tmp, err := os.MkdirTemp("", "cully-demo-")
	if err != nil {
		return fmt.Errorf("create demo dir: %w", err)
	}
	if !*keep {
		defer os.RemoveAll(tmp)
	}
	home, project := filepath.Join(tmp, "state"), filepath.Join(tmp, "project")
	if err := demoProject(project); err != nil {
		return fmt.Errorf("write demo project: %w", err)
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find own binary: %w", err)
	}
	env := demoEnv(home, project)
	if !*headless && isTerminal(a.stdout) && isTerminal(a.stdin) {
		return a.demoPanel(self, env, home, project)
	}
	clock := time.Now().UTC().Add(-10 * time.Minute).Truncate(time.Second)
	fmt.Fprintf(a.stdout, "cully demo: a scripted Claude Code session through the real hook path (`cully hook`)\nstate dir: %s\n\n", home)
	for _, st := range demoScript(project) {
		clock = clock.Add(7 * time.Second)
		if st.say != "" {
			fmt.Fprintf(a.stdout, "· %s\n", st.say)
		}
		out, err := runHook(self, env, clock, st.payload)
		if err != nil {
			return err
		}
		if nudge := nudgeText(out); nudge != "" {
			fmt.Fprintf(a.stdout, "  ↳ cully → agent:\n%s\n", indent(nudge, "      "))
		}
	}
	fmt.Fprintln(a.stdout, "\n── cully status ──")
	sub := &app{stdin: strings.NewReader(""), stdout: a.stdout, stderr: a.stderr, getenv: func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		if k == "CULLY_NOW" {
			return clock.Format(time.RFC3339)
		}
		return a.getenv(k)
	}}
	if err := sub.status(statusOpts{session: demoSession}); err != nil {
		return err
	}
	if *keep {
		fmt.Fprintf(a.stdout, "\nkept: CULLY_HOME=%s cully status\n", home)
	}
	return nil
}

// demoStepDelay paces the scripted session in the panel: fast enough to
// finish in a few seconds, slow enough to watch the pane change.
const demoStepDelay = 120 * time.Millisecond

// demoPanel opens the panel on the demo's state dir while the scripted
// session runs through the real hook, one step every demoStepDelay.
func (a *app) demoPanel(self string, env map[string]string, home, project string) error {
	h := store.Home{Dir: home}
	feed := func(ctx context.Context) {
		time.Sleep(600 * time.Millisecond) // let the panel draw its empty state first
		for _, st := range demoScript(project) {
			select {
			case <-ctx.Done():
				return
			case <-time.After(demoStepDelay):
			}
			if _, err := runHook(self, env, time.Now().UTC(), st.payload); err != nil {
				return
			}
		}
	}
	panelApp := *a
	panelApp.getenv = func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		return a.getenv(k)
	}
	return panelApp.runPanel(h, demoSession, feed)
}

func demoEnv(home, project string) map[string]string {
	return map[string]string{
		"CULLY_HOME":                   home,
		"CLAUDE_PROJECT_DIR":           project,
		"CLAUDE_CODE_SESSION_ATTENDED": "1",
		"CULLY_CONFIG":                 filepath.Join(home, "no-config.toml"),
	}
}

// runHook runs `cully hook` as its own process, as an agent would.
func runHook(self string, env map[string]string, now time.Time, payload map[string]any) ([]byte, error) {
	body, err := json.Marshal(payload)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, "hook")
	cmd.Env = os.Environ()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Env = append(cmd.Env, "CULLY_NOW="+now.Format(time.RFC3339), "CULLY_GUARD=")
	cmd.Dir = env["CLAUDE_PROJECT_DIR"]
	cmd.Stdin = bytes.NewReader(body)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, io.Discard
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("run cully hook: %w", err)
	}
	return out.Bytes(), nil
}

func nudgeText(out []byte) string {
	var ans struct {
		HookSpecificOutput struct {
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if json.Unmarshal(out, &ans) != nil {
		return ""
	}
	return ans.HookSpecificOutput.AdditionalContext
}

func indent(s, pre string) string {
	return pre + strings.ReplaceAll(s, "\n", "\n"+pre)
}
