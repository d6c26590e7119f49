package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	tea "charm.land/bubbletea/v2"

	"cully/hookrun"
	"cully/runs"
	"cully/store"
	"cully/tui"
)

// demoSession is the id of the scripted demo session.
const demoSession = "demo-7c1e2a40-5b9d-4e0f-9a31-6d2c8b1f0e55"

// demoStep is one hook call of the scripted session.
type demoStep struct {
	payload map[string]any
	say     string // its caption: printed (headless), or in the panel's footer
	// act is what the scripted agent's tool does to the project, run once
	// the step's hook call (its PreToolUse) has answered: the call itself.
	act func() error
	// rollback: the step is no hook call but the user's `cully rollback`
	// (demoRun.rollback), after the agent's turn.
	rollback bool
}

// demoScript is a realistic Claude Code session: the agent explores, runs a
// failing test three times without changing anything, re-reads a file it
// already has, opens a large fixture whole, then fixes the bug and verifies.
// With run control (rc: git is there for the snapshot store), it then
// deletes the project's testdata/ folder while tidying up, for real, and
// the user rolls that back (demoRun.rollback). The payloads have the shapes
// captured from the real client.
func demoScript(project string, rc bool) []demoStep {
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
		steps = append(steps, demoStep{payload: pre, say: say})
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
		steps = append(steps, demoStep{payload: post})
	}
	read := func(say, path string) {
		tool(say, "Read", map[string]any{"file_path": filepath.Join(project, path)}, "")
	}
	bash := func(say, cmd, fail string) {
		tool(say, "Bash", map[string]any{"command": cmd, "description": "demo"}, fail)
	}
	start := base("SessionStart")
	start["source"] = "startup"
	steps = append(steps, demoStep{payload: start, say: "A Claude Code session starts."})
	prompt := base("UserPromptSubmit")
	prompt["prompt"] = "The parser rejects empty input; make Parse(\"\") return an empty document."
	steps = append(steps, demoStep{payload: prompt, say: "The user asks for a fix (task 1)."})

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
	if rc {
		bash("Tidying up, it deletes testdata/ with your 300 KiB fixture: cully snapshotted the folder just before the command ran.", "rm -rf testdata", "")
		steps[len(steps)-2].act = func() error { return os.RemoveAll(filepath.Join(project, "testdata")) }
	}
	stop := base("Stop")
	stop["stop_hook_active"], stop["last_assistant_message"] = false, "Fixed: Parse(\"\") now returns an empty document; tests pass."
	steps = append(steps, demoStep{payload: stop, say: "The agent finishes its turn."})
	if rc {
		steps = append(steps, demoStep{say: "You run `cully rollback --to 0`: what the agent changed since the run began is put back (testdata/ here), and nothing else is touched.", rollback: true})
	}
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
	speed    float64
}

// Pacing of the demo in the panel, at --speed 1: steps without a caption
// follow each other fast enough to watch the rows arrive; a caption (and
// what the agent was told with it) stays until it can be read, skimmed at
// demoReadWord a word (the panel is what to watch), never longer than
// demoReadMax. The whole session plays in under a minute.
const (
	demoStepDelay = 120 * time.Millisecond
	demoReadBase  = 800 * time.Millisecond
	demoReadWord  = 100 * time.Millisecond
	demoReadMax   = 6 * time.Second
	demoMaxSpeed  = 1000 // beyond it every pause is below a millisecond anyway
)

func (a *app) demo(ctx context.Context, o demoOpts) error {
	if !(o.speed > 0 && o.speed <= demoMaxSpeed) { // also refuses NaN
		return fmt.Errorf("%w: --speed takes a number above 0 and up to %d (2 plays the demo twice as fast), not %v", errUsage, demoMaxSpeed, o.speed)
	}
	// A reader that goes away (`cully demo | head -1`) must not kill the
	// demo before it removes its folder: writes then fail with EPIPE, and
	// the demo stops at its next step.
	hookrun.IgnoreSIGPIPE()
	ctx, stopped := stopSignals(ctx)
	tmp, err := os.MkdirTemp("", "cully-demo-")
	if err != nil {
		return fmt.Errorf("cannot create the demo's temporary folder: %v (set TMPDIR to a folder you can write)", err)
	}
	home, project := filepath.Join(tmp, "state"), filepath.Join(tmp, "project")
	err = a.demoIn(ctx, o, home, project)
	if !o.keep {
		demoRemove(tmp, store.Home{Dir: home})
	}
	sig := stopped() // after the clean-up: until then a signal is caught, not fatal
	switch {
	case sig != nil && o.keep:
		return fmt.Errorf("demo stopped (%v); its state dir is kept: CULLY_HOME=%s cully status", sig, home)
	case sig != nil:
		return fmt.Errorf("demo stopped (%v); its temporary folder is removed", sig)
	case isClosedPipe(err):
		return errSilent
	}
	return err
}

// demoRemove removes the demo's folder once its snapshot server is gone.
// A server the last hook call started can be taking its lock, inside the
// folder, while the folder is removed, and keep it (its lock file) with
// the server in it: so the folder is removed again, its server first, until
// it stays gone (a second at most).
func demoRemove(tmp string, h store.Home) {
	for range 10 {
		demoStopServer(h)
		os.RemoveAll(tmp)
		time.Sleep(20 * time.Millisecond)
		if _, err := os.Lstat(tmp); errors.Is(err, fs.ErrNotExist) {
			return
		}
	}
}

// demoStopServer ends the snapshot server the demo's hook calls started
// in its state dir, before the folder goes: left to find the folder gone
// on its own, it could still be writing there while it is removed. It
// removes the server's queue, which the server takes for its cue to stop,
// and waits (5 s at most) for the process to end. The pid is only looked
// at, never signalled: by then it could be another process's.
func demoStopServer(h store.Home) {
	info, err := runs.Server(h)
	if served, _ := h.Served(); err != nil || !served || info.PID <= 0 {
		return
	}
	os.RemoveAll(h.AsksDir())
	p, err := os.FindProcess(info.PID)
	if err != nil {
		return
	}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if p.Signal(syscall.Signal(0)) != nil {
			return
		}
	}
}

// demoIn runs the demo in its folder: the panel on a terminal, the printed
// session otherwise.
func (a *app) demoIn(ctx context.Context, o demoOpts, home, project string) error {
	if err := demoProject(project); err != nil {
		return fmt.Errorf("write the demo's project: %w", err)
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find cully's own binary, whose hook the demo calls: %w", err)
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		return fmt.Errorf("create the demo's state dir: %w", err)
	}
	if err := os.WriteFile(filepath.Join(home, demoConfig), []byte(demoBudget), 0o600); err != nil {
		return fmt.Errorf("write the demo's config: %w", err)
	}
	// Run control keeps its snapshots in a git object store: without git
	// the demo plays the rest and says why it shows no rollback.
	_, noGit := exec.LookPath("git")
	rc := noGit == nil
	d := &demoRun{self: self, env: demoEnv(home, project, rc), steps: demoScript(project, rc)}
	if !o.headless && isTerminal(a.stdout) && isTerminal(a.stdin) {
		return a.demoPanel(ctx, d, home, o.speed)
	}
	out := &stickyWriter{w: a.stdout}
	fmt.Fprintf(out, "cully demo: a scripted Claude Code session through the real hook path (`cully hook`)\nstate dir: %s\n\n", home)
	// Printed, the session is stamped 7 s a call apart, ending now, so that
	// its status reads as a real one would. Not with run control: the
	// snapshot server records on the real clock, between the calls, and a
	// journal whose time went backwards would be the status's story.
	clock := time.Now().UTC().Add(-time.Duration(len(d.steps)) * 7 * time.Second).Truncate(time.Second)
	tick := func() time.Time { clock = clock.Add(7 * time.Second); return clock }
	if rc {
		tick = func() time.Time { return time.Time{} }
	}
	if err := d.play(ctx, 0, len(d.steps), tick, printNarrator{out}); err != nil {
		return err
	}
	fmt.Fprintln(out, "\n── cully status ──")
	sub := &app{stdin: strings.NewReader(""), stdout: out, stderr: a.stderr, getenv: func(k string) string {
		if v, ok := d.env[k]; ok {
			return v
		}
		if k == "CULLY_NOW" && !rc {
			return clock.Format(time.RFC3339)
		}
		return a.getenv(k)
	}}
	if err := sub.status(statusOpts{which: which{session: demoSession}}); err != nil {
		return err
	}
	title, text := demoClosing(d.told, d.rolledBack)
	fmt.Fprintf(out, "\n%s\n\n%s\n", title, text)
	if o.keep {
		fmt.Fprintf(out, "\nkept: CULLY_HOME=%s cully status\n", home)
	}
	return out.err
}

// demoClosing is the demo's last word, one text for both modes: printed
// after the headless session's status, the panel's closing screen
// otherwise. told is how many times the agent was nudged.
func demoClosing(told int, rolledBack bool) (title, text string) {
	times := fmt.Sprintf("%d times", told)
	if told == 1 {
		times = "once"
	}
	undo := " When it deleted your fixtures, one command brought them back."
	if !rolledBack {
		undo = " (Run control, which snapshots the work and rolls an agent's changes back, needs git, which is not on this PATH: the demo left it out.)"
	}
	return "That was cully — next: `cully install`",
		"The scripted agent ran a failing test three times unchanged, re-read a file it already had and dumped a large one whole: cully told it " + times +
			", each time before its next tool call. Its long exploring stretch was shown to you, not told." + undo + "\n\n" +
			"Next, watch your own agent:\n" +
			"  cully install         hooks into Claude Code\n" +
			"  cully doctor          checks the installation\n" +
			"  cully panel --split   this pane beside your agent, in tmux"
}

// demoRun is one run of the scripted session: the binary whose `cully
// hook` it calls, the environment that points that at the demo's folder,
// and how many nudges the agent has been handed so far.
type demoRun struct {
	self  string
	env   map[string]string
	steps []demoStep
	told  int
	// rolledBack: the user's rollback step ran and put testdata/ back.
	rolledBack bool
}

// rollback is the user's step after the agent's turn: `cully rollback
// --to 0` in the project, as the user would type it, then a check that the
// fixture the agent deleted is back (the demo fails rather than claim a
// rollback that did not happen). It returns what the command printed.
func (d *demoRun) rollback(ctx context.Context) (string, error) {
	run := func(args ...string) ([]byte, error) {
		out, err := demoCommand(ctx, d.self, d.env, time.Time{}, args...).CombinedOutput()
		if err != nil {
			return nil, fmt.Errorf("the demo's `cully %s`: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out, nil
	}
	// The snapshots asked for run in the background; on a busy machine
	// the turn-end one may still be under way.
	if _, err := run("snapshot", "--wait"); err != nil {
		return "", err
	}
	out, err := run("rollback", "--to", "0")
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(d.env["CLAUDE_PROJECT_DIR"], "testdata", "corpus.json")); err != nil {
		return "", fmt.Errorf("the demo's rollback did not bring testdata/corpus.json back: %v\n%s", err, out)
	}
	d.rolledBack = true
	return strings.TrimRight(string(out), "\n"), nil
}

// demoBeat is the narration of one step: its caption (most steps have
// none; n of of is the caption's number, or the last one's), and what the
// agent was told when the step's hook call nudged it.
type demoBeat struct {
	n, of int
	say   string
	told  string
	// did is what a user's step printed (the rollback's own lines).
	did string
}

// demoNarrator says the session as it plays: printed, or in the panel.
type demoNarrator interface {
	before(ctx context.Context, b demoBeat) error // before a step's hook call: where the panel paces the session
	after(ctx context.Context, b demoBeat) error  // once it answered, with what the agent was told
}

// play sends steps[from:to] through the hook, one process per call as an
// agent would, stamping each with clock, and narrates them. It stops at
// the first error, the narrator's included, or when ctx ends.
func (d *demoRun) play(ctx context.Context, from, to int, clock func() time.Time, nr demoNarrator) error {
	of, n := 0, 0
	for _, st := range d.steps {
		if st.say != "" {
			of++
		}
	}
	for i, st := range d.steps {
		if st.say != "" {
			n++
		}
		if i < from || i >= to {
			continue
		}
		b := demoBeat{n: n, of: of, say: st.say}
		if err := nr.before(ctx, b); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if st.rollback {
			did, err := d.rollback(ctx)
			if err != nil {
				return err
			}
			b.did = did
			if err := nr.after(ctx, b); err != nil {
				return err
			}
			continue
		}
		out, err := runHook(ctx, d.self, d.env, clock(), st.payload)
		if err != nil {
			return err
		}
		if st.act != nil {
			if err := st.act(); err != nil {
				return fmt.Errorf("the scripted agent's call: %w", err)
			}
		}
		if b.told = nudgeText(out); b.told != "" {
			d.told++
		}
		if err := nr.after(ctx, b); err != nil {
			return err
		}
	}
	return nil
}

// printNarrator prints the session (headless): each caption, and what the
// agent was told under it.
type printNarrator struct{ out *stickyWriter }

func (printNarrator) before(context.Context, demoBeat) error { return nil }

func (p printNarrator) after(_ context.Context, b demoBeat) error {
	if b.say != "" {
		fmt.Fprintf(p.out, "· %s\n", b.say)
	}
	if b.told != "" {
		fmt.Fprintf(p.out, "  ↳ cully → agent:\n%s\n", indent(b.told, "      "))
	}
	if b.did != "" {
		fmt.Fprintf(p.out, "  ↳ cully rollback --to 0:\n%s\n", indent(b.did, "      "))
	}
	return p.out.err
}

// panelNarrator shows the captions in the panel's footer and paces the
// session so that each can be read before the next replaces it.
type panelNarrator struct {
	send  func(tea.Msg)
	speed float64
	shown demoBeat  // the caption on screen
	until time.Time // when it has been read
}

func (p *panelNarrator) pace(d time.Duration) time.Duration {
	return time.Duration(float64(d) / p.speed)
}

func (p *panelNarrator) before(ctx context.Context, b demoBeat) error {
	wait := p.pace(demoStepDelay)
	if b.say != "" {
		wait = max(wait, time.Until(p.until))
	}
	return sleep(ctx, wait)
}

func (p *panelNarrator) after(_ context.Context, b demoBeat) error {
	if b.say == "" && b.told == "" {
		return nil
	}
	if b.say == "" { // told on a step without a caption: it joins the one on screen
		b.n, b.say = p.shown.n, p.shown.say
	}
	p.shown = b
	p.show()
	return nil
}

// show sends the caption on screen, once there is a panel to send it to,
// and starts its reading time.
func (p *panelNarrator) show() {
	if p.send == nil {
		return
	}
	b := p.shown
	p.send(tui.CaptionMsg{Label: "Demo", Step: b.n, Steps: b.of, Text: b.say, Told: b.told})
	words := len(strings.Fields(b.say)) + len(strings.Fields(b.told))
	p.until = time.Now().Add(p.pace(min(demoReadBase+time.Duration(words)*demoReadWord, demoReadMax)))
}

// seedNarrator narrates the step recorded before the panel opens: no
// pause before it, its caption kept for the panel's first frame.
type seedNarrator struct{ *panelNarrator }

func (seedNarrator) before(context.Context, demoBeat) error { return nil }

// demoPanel opens the panel on the demo's state dir while the scripted
// session runs through the real hook, narrated in the panel's footer, and
// ends on a closing screen that stays until the user quits. The first
// step is recorded before the panel draws, so that it opens on the
// session rather than on an empty one.
func (a *app) demoPanel(ctx context.Context, d *demoRun, home string, speed float64) error {
	now := func() time.Time { return time.Time{} } // the wall clock (runHook)
	nr := &panelNarrator{speed: speed}
	if err := d.play(ctx, 0, 1, now, seedNarrator{nr}); err != nil {
		return err
	}
	feed := func(ctx context.Context, send func(tea.Msg)) error {
		nr.send = send
		nr.show()
		if err := d.play(ctx, 1, len(d.steps), now, nr); err != nil {
			return err
		}
		if err := sleep(ctx, time.Until(nr.until)); err != nil {
			return err
		}
		title, text := demoClosing(d.told, d.rolledBack)
		send(tui.ClosingMsg{Title: title, Text: text})
		return nil
	}
	panelApp := *a
	panelApp.getenv = func(k string) string {
		if v, ok := d.env[k]; ok {
			return v
		}
		return a.getenv(k)
	}
	return panelApp.runPanel(ctx, store.Home{Dir: home}, demoSession, feed)
}

// The demo's own config: its scripted agent acts out the rules at a
// reader's pace, which takes longer and more calls than a standard task's
// budgets (docs/run-control.md, "Budgets"); those are not its story.
const (
	demoConfig = "demo-config.toml"
	demoBudget = "[budget]\nwall_clock_seconds = 86400\ntool_calls = 1000\n"
)

func demoEnv(home, project string, rc bool) map[string]string {
	env := map[string]string{
		"CULLY_HOME":                   home,
		"CLAUDE_PROJECT_DIR":           project,
		"CLAUDE_CODE_SESSION_ATTENDED": "1",
		"CULLY_CONFIG":                 filepath.Join(home, demoConfig),
	}
	// Snapshots on in the demo's own folder, whatever the user's
	// CULLY_SNAPSHOTS says of their projects; off without git, which holds
	// them (docs/run-control.md).
	env["CULLY_SNAPSHOTS"] = "on"
	if !rc {
		env["CULLY_SNAPSHOTS"] = "off"
	}
	return env
}

// demoCommand is `cully args…` in the demo's project, with the demo's
// environment over the user's. A zero now is the wall clock (CULLY_NOW
// empty, whatever the user's environment says): the snapshot server a
// hook call starts inherits the call's environment, and on a set clock it
// stamps each snapshot with its ask's time, behind the calls recorded
// since.
func demoCommand(ctx context.Context, self string, env map[string]string, now time.Time, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, self, args...)
	cmd.Env = os.Environ()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	at := ""
	if !now.IsZero() {
		at = now.Format(time.RFC3339)
	}
	cmd.Env = append(cmd.Env, "CULLY_NOW="+at)
	cmd.Dir = env["CLAUDE_PROJECT_DIR"]
	return cmd
}

// runHook runs `cully hook` as its own process, as an agent would.
func runHook(ctx context.Context, self string, env map[string]string, now time.Time, payload map[string]any) ([]byte, error) {
	body, err := json.Marshal(payload)
	if err != nil {
		return nil, err
	}
	cmd := demoCommand(ctx, self, env, now, "hook")
	cmd.Env = append(cmd.Env, "CULLY_GUARD=")
	cmd.Stdin = bytes.NewReader(body)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, io.Discard
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("the demo's call of `cully hook` failed: %w", err)
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

// sleep waits d, or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// stickyWriter keeps its first write error and fails every write after
// it: the headless demo checks it after each step, so that a closed pipe
// stops it at once.
type stickyWriter struct {
	w   io.Writer
	err error
}

func (s *stickyWriter) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(p)
	s.err = err
	return n, err
}
