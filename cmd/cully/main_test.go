package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"cully/engine"
	"cully/internal/testbin"
	"cully/store"
)

// testBin is the folder of the binaries TestMain built ($CULLYBIN in
// scripts, for one that sets its own PATH).
var testBin string

// TestMain builds the real cully binary (without the race detector, which
// would only slow thousands of process starts and cannot see across
// processes) and puts it first on PATH: tests and scripts exec it as a
// separate process, like an agent does.
//
// Every test uses a state dir and a HOME of its own and runs in parallel
// with the others. A test here mostly waits: on the processes it starts,
// on a pane of tmux, on a snapshot server. With -parallel at its default
// (GOMAXPROCS, 2 on a small machine) the torture test alone held one of
// the two slots for its whole run, and the waits of the others queued in
// the second; TestMain raises the default to 2×GOMAXPROCS, and a
// -parallel given on the command line wins. (At 4×, on a 2-core machine
// other engineers also loaded, snapshot servers and hooks starved past
// the waits run control's scripts rely on.)
func TestMain(m *testing.M) {
	flag.Parse()
	explicit := false
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "test.parallel" })
	if !explicit {
		flag.Set("test.parallel", strconv.Itoa(2*runtime.GOMAXPROCS(0)))
	}
	dir, err := os.MkdirTemp("", "cully-test-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// One go command builds the three (cully, cully-hook, cully-daemon,
	// named after their folders): their links run in parallel, and only
	// when the code changed since this checkout's last run (testbin).
	if err := testbin.Build(dir, ".", "../cully-hook", "../cully-daemon"); err != nil {
		fmt.Fprintln(os.Stderr, "build cully, cully-hook and cully-daemon:", err)
		os.Exit(1)
	}
	os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	testBin = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	stdout, stderr string
	code           int
}

// cully runs the real binary with a clean environment plus env.
func cully(t testing.TB, env map[string]string, stdin []byte, args ...string) result {
	t.Helper()
	return runBin(t, "cully", env, stdin, args...)
}

// run runs one of the built binaries (cully or cully-hook).
func runBin(t testing.TB, bin string, env map[string]string, stdin []byte, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + env["HOME"]}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if dir, ok := env["PWD"]; ok {
		cmd.Dir = dir
	}
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run cully: %v", err)
	}
	return result{out.String(), errb.String(), code}
}

// testEnv is a hermetic environment: HOME and CULLY_HOME inside a temp dir.
func testEnv(t testing.TB) map[string]string {
	dir := t.TempDir()
	return map[string]string{
		"HOME":               filepath.Join(dir, "home"),
		"CULLY_HOME":         filepath.Join(dir, "state"),
		"CLAUDE_PROJECT_DIR": "/home/dev/project",
		"PWD":                dir,
		"CULLY_SNAPSHOTS":    "off", // no background snapshot of a folder that does not exist (snapshots.txtar has them)
		"CULLY_MARK_TIMEOUT": markTimeout,
	}
}

// longTests reports whether the full volume of the long tests was asked
// for (CULLY_LONG_TESTS=1, as .ci/run sets it). Without it, go test ./...
// (the README's command) runs each of them smaller, the same checks over
// fewer processes, cases or sequences, so that a plain run of the whole
// module's tests stays short on a 2-core machine; CI runs them in full.
func longTests() bool { return os.Getenv("CULLY_LONG_TESTS") != "" }

// markTimeout is the hook's wait for a mark in tests that turn snapshots
// on. A mark the hook gives up on (3.5 s by default: a loaded machine
// running these tests in parallel) leaves its call's changes to nobody, by
// design, and a rollback then keeps them; the tests are about attribution,
// not that deadline (hookrun's tests hold its default), so the hook waits
// for every mark. The hook takes CULLY_MARK_TIMEOUT below a minute only.
const markTimeout = "59s"

func journal(t testing.TB, home string) []engine.Event {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(home, "journal.jsonl"))
	if err != nil {
		return nil
	}
	var evs []engine.Event
	for _, ln := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		var ev engine.Event
		if err := json.Unmarshal([]byte(ln), &ev); err != nil {
			t.Fatalf("journal line is not JSON: %q: %v", ln, err)
		}
		evs = append(evs, ev)
	}
	return evs
}

// TestScripts runs the CLI scripts in testdata/script against the real
// binaries. Their hook calls go to cully-hook, the binary install wires
// in (half of `cully hook`'s CPU a call, and the scripts make over a thousand;
// `cully hook`, the same path, is TestHookEveryCapturedFixture's). Besides
// testscript's builtins they have:
//
//	claude EVENT [KEY=VALUE...]  send a Claude Code-shaped payload through cully-hook
//	                             (EVENT: start, prompt, pre, post, fail, batch, compact, stop);
//	                             TOOL=Name picks the tool, error=… the failure text (\n, \e, \a are
//	                             newline, ESC, BEL), prompt=, source=, trigger= and
//	                             last_assistant_message= fill those fields, other
//	                             keys go into tool_input; CULLY_NOW steps 1s per call
//	calls N [KEY=VALUE...]       N whole tool calls (pre, then post; fail when error= is given);
//	                             stdout holds what the pre-tool answers said; {i} in a
//	                             value is the call's index (0…N-1), for N different calls
//	mkfile FILE BYTES            write a file of that size, dated 2026-01-01
//	mklines FILE N LINE          write N lines, {i} in LINE replaced by the line's index
//	mkfifo FILE                  make a named pipe (Unix)
//	touch FILE                   move the file's mtime one hour forward
//	snapshot STEP                check snapshot STEP of the session's current run against
//	                             seed 001's format (exactly run_id, step, timestamp,
//	                             state_snapshot, files_modified, in that order) and print it
//	                             as lines: step, timestamp, reason, tool_calls, one file each
func TestScripts(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(e *testscript.Env) error {
			e.Setenv("HOME", filepath.Join(e.WorkDir, "home"))
			e.Setenv("CULLY_HOME", filepath.Join(e.WorkDir, "state"))
			e.Setenv("CULLY_CONFIG", filepath.Join(e.WorkDir, "config.toml"))
			e.Setenv("CLAUDE_PROJECT_DIR", e.WorkDir)
			e.Setenv("CULLY_NOW", "2026-11-30T12:00:00Z")
			e.Setenv("SESSION", "s1")
			e.Setenv("CULLYBIN", testBin)
			// Recovery snapshots are background processes: a script that
			// wants them turns them on (env CULLY_SNAPSHOTS=on) and waits
			// for them (cully snapshot --wait) before it ends.
			e.Setenv("CULLY_SNAPSHOTS", "off")
			e.Setenv("CULLY_MARK_TIMEOUT", markTimeout)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"claude":   scriptClaude,
			"calls":    scriptCalls,
			"mkfile":   scriptMkfile,
			"mklines":  scriptMklines,
			"mkfifo":   scriptMkfifo,
			"touch":    scriptTouch,
			"snapshot": scriptSnapshot,
		},
	})
}

var scriptEvents = map[string]string{
	"start": "SessionStart", "prompt": "UserPromptSubmit", "pre": "PreToolUse", "post": "PostToolUse",
	"fail": "PostToolUseFailure", "batch": "PostToolBatch", "compact": "PreCompact", "stop": "Stop",
}

func scriptClaude(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 || scriptEvents[args[0]] == "" {
		ts.Fatalf("usage: claude start|prompt|pre|post|fail|batch|compact|stop [KEY=VALUE...]")
	}
	out := sendClaude(ts, args[0], args[1:])
	ts.Stdout().Write(out)
}

// scriptCalls runs N whole tool calls (pre, then post or fail when an
// error= is given) and writes what the pre-tool answers said. do='SCRIPT'
// is what the call does: run by sh in $WORK between its pre and its post,
// as the host runs a tool between its hooks (cully's marks tell the
// agent's changes by that).
func scriptCalls(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 {
		ts.Fatalf("usage: calls N [KEY=VALUE...]")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	post := "post"
	for _, a := range args[1:] {
		if strings.HasPrefix(a, "error=") {
			post = "fail"
		}
	}
	for i := 0; i < n; i++ {
		var call []string
		do := ""
		for _, a := range args[1:] {
			a = strings.ReplaceAll(a, "{i}", strconv.Itoa(i))
			if v, ok := strings.CutPrefix(a, "do="); ok {
				do = v
				continue
			}
			call = append(call, a)
		}
		call = append(call, fmt.Sprintf("tool_use_id=toolu_%d", time.Now().UnixNano()))
		ts.Stdout().Write(sendClaude(ts, "pre", call))
		if do != "" {
			c := exec.Command("sh", "-c", do)
			c.Dir = ts.Getenv("WORK")
			if out, err := c.CombinedOutput(); err != nil {
				ts.Fatalf("do %q: %v\n%s", do, err, out)
			}
		}
		sendClaude(ts, post, call)
	}
}

func sendClaude(ts *testscript.TestScript, event string, args []string) []byte {
	p := map[string]any{
		"session_id": ts.Getenv("SESSION"), "cwd": ts.Getenv("WORK"), "hook_event_name": scriptEvents[event],
		"transcript_path": filepath.Join(ts.Getenv("WORK"), "t.jsonl"), "permission_mode": "bypassPermissions",
	}
	input := map[string]any{}
	tool := "Bash"
	for _, kv := range args {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			ts.Fatalf("bad argument %q", kv)
		}
		v = strings.NewReplacer(`\n`, "\n", `\e`, "\x1b", `\a`, "\a").Replace(v)
		switch k {
		case "TOOL":
			tool = v
		case "error":
			if event == "fail" {
				p["error"] = v
				if p["is_interrupt"] == nil {
					p["is_interrupt"] = false
				}
			}
		case "interrupt":
			p["is_interrupt"] = true
		case "source", "prompt", "trigger", "last_assistant_message":
			p[k] = v
		case "tool_use_id":
			p[k] = v
		default:
			if n, err := strconv.Atoi(v); err == nil {
				input[k] = n
			} else {
				input[k] = v
			}
		}
	}
	switch event {
	case "pre", "post", "fail":
		p["tool_name"], p["tool_input"] = tool, input
		if p["tool_use_id"] == nil {
			p["tool_use_id"] = fmt.Sprintf("toolu_%d", time.Now().UnixNano())
		}
		if event == "post" {
			p["tool_response"] = map[string]any{"stdout": "", "stderr": "", "interrupted": false}
		}
	}
	body, _ := json.Marshal(p)
	now, err := time.Parse(time.RFC3339, ts.Getenv("CULLY_NOW"))
	ts.Check(err)
	ts.Setenv("CULLY_NOW", now.Add(time.Second).Format(time.RFC3339))
	// A hook that hangs (on a FIFO, say) fails the script instead of the whole run.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "cully-hook")
	for _, k := range []string{"PATH", "HOME", "CULLY_HOME", "CULLY_CONFIG", "CLAUDE_PROJECT_DIR", "CULLY_GUARD", "CLAUDE_CODE_SESSION_ATTENDED", "CULLY_LOCK_TIMEOUT", "CULLY_SNAPSHOTS", "CULLY_ADVISOR_WORKER", "CULLY_DISCOVERY"} {
		if v := ts.Getenv(k); v != "" {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	cmd.Env = append(cmd.Env, "CULLY_NOW="+now.Format(time.RFC3339))
	cmd.Dir = ts.Getenv("WORK")
	cmd.Stdin = bytes.NewReader(body)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, ts.Stderr()
	if err := cmd.Run(); err != nil {
		ts.Fatalf("cully-hook must always exit 0: %v", err)
	}
	return out.Bytes()
}

func scriptMkfile(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: mkfile FILE BYTES")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	p := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(filepath.Dir(p), 0o755))
	ts.Check(os.WriteFile(p, bytes.Repeat([]byte("x"), n), 0o644))
	old := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ts.Check(os.Chtimes(p, old, old))
}

func scriptMklines(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: mklines FILE N LINE")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		b.WriteString(strings.ReplaceAll(args[2], "{i}", strconv.Itoa(i)))
		b.WriteByte('\n')
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), b.Bytes(), 0o644))
}

var uuidShape = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func scriptSnapshot(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: snapshot STEP")
	}
	step, err := strconv.Atoi(args[0])
	ts.Check(err)
	h := store.Home{Dir: ts.Getenv("CULLY_HOME")}
	st, err := h.ReadState(ts.Getenv("SESSION"), nil)
	ts.Check(err)
	if st.Run == nil {
		ts.Fatalf("session %s has no run", st.Session)
	}
	b, err := os.ReadFile(filepath.Join(h.RunDir(st.Run.ID), fmt.Sprintf("snapshot-%06d.json", step)))
	if neg {
		if err == nil {
			ts.Fatalf("snapshot %d exists", step)
		}
		return
	}
	ts.Check(err)
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var keys []string
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		ts.Fatalf("not a JSON object: %s", b)
	}
	vals := map[string]any{}
	for dec.More() {
		k, err := dec.Token()
		ts.Check(err)
		var v any
		ts.Check(dec.Decode(&v))
		keys = append(keys, k.(string))
		vals[k.(string)] = v
	}
	if want := []string{"run_id", "step", "timestamp", "state_snapshot", "files_modified"}; !slices.Equal(keys, want) {
		ts.Fatalf("members %q, want exactly %q", keys, want)
	}
	id, _ := vals["run_id"].(string)
	n, _ := vals["step"].(json.Number)
	stamp, _ := vals["timestamp"].(string)
	state, _ := vals["state_snapshot"].(string)
	files, ok := vals["files_modified"].([]any)
	if !uuidShape.MatchString(id) || id != st.Run.ID || n.String() != strconv.Itoa(step) || !ok {
		ts.Fatalf("run_id %q (run %s), step %v, files_modified %v", id, st.Run.ID, vals["step"], vals["files_modified"])
	}
	if _, err := time.Parse(time.RFC3339, stamp); err != nil {
		ts.Fatalf("timestamp %q is not ISO 8601: %v", stamp, err)
	}
	var ss struct {
		Reason    string `json:"reason"`
		ToolCalls int    `json:"tool_calls"`
		Tree      string `json:"tree"`
	}
	if err := json.Unmarshal([]byte(state), &ss); err != nil || ss.Tree == "" {
		ts.Fatalf("state_snapshot %q is not the serialized state: %v", state, err)
	}
	fmt.Fprintf(ts.Stdout(), "step %d\ntimestamp %s\nreason %s\ntool_calls %d\n", step, stamp, ss.Reason, ss.ToolCalls)
	for _, f := range files {
		fmt.Fprintf(ts.Stdout(), "file %s\n", f)
	}
	fmt.Fprintf(ts.Stdout(), "files %d\n", len(files))
}

func scriptTouch(ts *testscript.TestScript, neg bool, args []string) {
	for _, a := range args {
		p := ts.MkAbs(a)
		fi, err := os.Stat(p)
		ts.Check(err)
		t := fi.ModTime().Add(time.Hour)
		ts.Check(os.Chtimes(p, t, t))
	}
}

// The hook binary must not link the TUI or CLI stack (Bubble Tea, lipgloss,
// Cobra, Fang), regexp, cgo's os/user, or the crypto packages (the FIPS
// module's initialisation): each adds start-up work to every tool call of
// every agent (docs/performance.md).
func TestHookBinaryLinksNoTUI(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", "../cully-hook").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "charm.land/") || strings.Contains(dep, "charmbracelet") || strings.HasPrefix(dep, "github.com/spf13/") ||
			dep == "regexp" || dep == "os/user" || dep == "runtime/cgo" || dep == "cully/tui" || dep == "crypto" || strings.HasPrefix(dep, "crypto/") {
			t.Errorf("cully-hook links %s", dep)
		}
	}
}

// The secret scanner that judges redaction (gitleaks, with viper, archive
// readers and a wasm runtime behind it) lives in a module of its own,
// tools/secretscan, run from .ci/run: cully's go.mod does not name it, so
// neither binary nor the default test build (go test ./...) links it.
func TestJudgeNotLinked(t *testing.T) {
	t.Parallel()
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "list", "-deps", "../cully-hook", ".").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, dep := range append(strings.Fields(string(mod)), strings.Fields(string(out))...) {
		if strings.HasPrefix(dep, "github.com/zricethezav/gitleaks") || strings.HasPrefix(dep, "github.com/spf13/viper") ||
			strings.HasPrefix(dep, "github.com/wasilibs/") || strings.HasPrefix(dep, "github.com/tetratelabs/wazero") {
			t.Errorf("cully's module or a binary names %s: it belongs in tools/secretscan", dep)
		}
	}
}

// cully-hook started by hand in a terminal says what it is for and exits,
// instead of waiting for a payload that never comes.
func TestHookBinaryOnATerminal(t *testing.T) {
	t.Parallel()
	script, err := exec.LookPath("script")
	if err != nil {
		t.Skip("needs script(1) to give the hook a terminal")
	}
	hook, err := exec.LookPath("cully-hook")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(script, "-qec", hook, "/dev/null")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "CULLY_HOME=" + t.TempDir()}
	// script's stdin stays open and silent, as a person's terminal is
	// before they type: at the end of a stdin (the null device) script
	// types an end-of-file on the hook's terminal, which the hook then
	// reads as an empty payload if it gets there first.
	quiet, typist, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer typist.Close()
	cmd.Stdin = quiet
	done := make(chan struct{})
	var out []byte
	go func() { out, err = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("cully-hook waited on a terminal instead of exiting")
	}
	quiet.Close()
	if err != nil || !strings.Contains(string(out), "reads one hook payload") {
		t.Fatalf("err %v, output %q", err, out)
	}
}
