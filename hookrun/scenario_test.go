package hookrun

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// pending lists the scenarios that today's rules get wrong, each with why.
// The test does not assert them, but it fails as soon as one of them passes,
// so the list cannot go stale: remove the name once the rule is fixed.
var pending = map[string]string{}

// TestScenarios plays every testdata/scenarios/*.scenario file through Run
// as Claude Code's hook payloads and checks when the first nudge reaches the
// agent: at the expected step for "fire", never for "none". The format is
// described in testdata/scenarios/README.md.
func TestScenarios(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "scenarios", "*.scenario"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	seen := map[string]bool{}
	var pos, posOK, neg, negOK, pend int
	for _, f := range files {
		sc, err := parseScenario(f)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		seen[sc.name] = true
		var ok bool
		var verdict string
		t.Run(sc.name, func(t *testing.T) {
			nudges, err := sc.play(t)
			if err != nil {
				t.Fatalf("harness: %v", err)
			}
			ok, verdict = sc.judge(nudges)
			reason, isPending := pending[sc.name]
			switch {
			case isPending && ok:
				t.Errorf("%s now passes (%s): remove it from pending (%q)", sc.name, verdict, reason)
			case isPending:
				t.Skipf("pending: %s\ntoday: %s", reason, verdict)
			case !ok:
				t.Errorf("%s\n%s\n%s", sc.file, sc.header(), verdict)
			default:
				t.Log(verdict)
			}
		})
		if _, isPending := pending[sc.name]; isPending {
			pend++
		}
		if sc.fireLo > 0 {
			pos++
			if ok {
				posOK++
			}
		} else {
			neg++
			if ok {
				negOK++
			}
		}
	}
	for name := range pending {
		if !seen[name] {
			t.Errorf("pending lists %q, but no scenario has that name", name)
		}
	}
	t.Logf("scenarios: %d/%d positives fire at their step, %d/%d negatives stay quiet, %d pending", posOK, pos, negOK, neg, pend)
}

// A scenario is one parsed .scenario file.
type scenario struct {
	name, file string
	desc       string
	sources    []string
	// fireLo..fireHi is the window of steps whose PreToolUse must carry the
	// first nudge; both 0 means no nudge at all.
	fireLo, fireHi int
	sizes          map[string]int64 // file PATH BYTES lines
	config         []string         // "# config: key = value" lines: the user's [rules], for this scenario
	lines          []line
	calls          int
}

type line struct {
	no     int
	kind   string // prompt, call, batch
	prompt string
	call   *call
	step   int // the call's number, from 1
}

// call is one `call {json}` line.
type call struct {
	Tool       string         `json:"tool"`
	Input      map[string]any `json:"input"`
	Fail       *string        `json:"fail"`
	Refused    *string        `json:"refused"`
	Stdout     string         `json:"stdout"`
	Stderr     string         `json:"stderr"`
	Subagent   string         `json:"subagent"`
	Background bool           `json:"background"`
}

func (sc *scenario) header() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n", sc.desc)
	for _, s := range sc.sources {
		fmt.Fprintf(&b, "# source: %s\n", s)
	}
	return strings.TrimRight(b.String(), "\n")
}

func parseScenario(path string) (*scenario, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	sc := &scenario{
		name:  strings.TrimSuffix(filepath.Base(path), ".scenario"),
		file:  path,
		sizes: map[string]int64{},
	}
	expect := false
	refusedOpen := 0 // line of a refused call no batch has reported yet
	sr := bufio.NewScanner(bytes.NewReader(raw))
	sr.Buffer(make([]byte, 0, 64<<10), 4<<20)
	no := 0
	for sr.Scan() {
		no++
		text := strings.TrimSpace(sr.Text())
		switch {
		case text == "":
		case strings.HasPrefix(text, "#"):
			c := strings.TrimSpace(strings.TrimPrefix(text, "#"))
			switch {
			case strings.HasPrefix(c, "config:"):
				sc.config = append(sc.config, strings.TrimSpace(strings.TrimPrefix(c, "config:")))
			case strings.HasPrefix(c, "source:"):
				sc.sources = append(sc.sources, strings.TrimSpace(strings.TrimPrefix(c, "source:")))
			case strings.HasPrefix(c, "expect:"):
				if expect {
					return nil, fmt.Errorf("line %d: a second expect", no)
				}
				expect = true
				if err := sc.parseExpect(strings.TrimSpace(strings.TrimPrefix(c, "expect:"))); err != nil {
					return nil, fmt.Errorf("line %d: %v", no, err)
				}
			case sc.desc == "":
				sc.desc = c
			}
		case text == "prompt" || strings.HasPrefix(text, "prompt "):
			if refusedOpen > 0 {
				return nil, fmt.Errorf("line %d: the refused call on line %d needs a batch line before the next prompt", no, refusedOpen)
			}
			sc.lines = append(sc.lines, line{no: no, kind: "prompt", prompt: strings.TrimSpace(strings.TrimPrefix(text, "prompt"))})
		case text == "batch":
			refusedOpen = 0
			sc.lines = append(sc.lines, line{no: no, kind: "batch"})
		case strings.HasPrefix(text, "file "):
			f := strings.Fields(text)
			if len(f) != 3 {
				return nil, fmt.Errorf("line %d: want `file PATH BYTES`", no)
			}
			n, err := strconv.ParseInt(f[2], 10, 64)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("line %d: bad size %q", no, f[2])
			}
			sc.sizes[f[1]] = n
		case strings.HasPrefix(text, "call "):
			var c call
			dec := json.NewDecoder(strings.NewReader(strings.TrimPrefix(text, "call ")))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&c); err != nil {
				return nil, fmt.Errorf("line %d: %v", no, err)
			}
			if dec.More() {
				return nil, fmt.Errorf("line %d: text after the call's JSON", no)
			}
			switch {
			case c.Tool == "":
				return nil, fmt.Errorf("line %d: a call needs a tool", no)
			case c.Fail != nil && c.Refused != nil:
				return nil, fmt.Errorf("line %d: fail and refused exclude each other", no)
			case c.Refused != nil && (c.Stdout != "" || c.Stderr != ""):
				return nil, fmt.Errorf("line %d: a refused call never ran, so it has no output", no)
			}
			if c.Input == nil {
				c.Input = map[string]any{}
			}
			if c.Refused != nil && refusedOpen == 0 {
				refusedOpen = no
			}
			sc.calls++
			sc.lines = append(sc.lines, line{no: no, kind: "call", call: &c, step: sc.calls})
		default:
			return nil, fmt.Errorf("line %d: unknown line %q", no, text)
		}
	}
	if err := sr.Err(); err != nil {
		return nil, err
	}
	switch {
	case sc.desc == "":
		return nil, fmt.Errorf("no description line")
	case len(sc.sources) == 0:
		return nil, fmt.Errorf("no source line")
	case !expect:
		return nil, fmt.Errorf("no expect line")
	case refusedOpen > 0:
		return nil, fmt.Errorf("the refused call on line %d needs a batch line after it", refusedOpen)
	case sc.fireHi > sc.calls:
		return nil, fmt.Errorf("expects a nudge at step %d of %d", sc.fireHi, sc.calls)
	}
	for _, l := range sc.lines {
		if l.kind == "call" && l.call.Refused != nil && l.step >= sc.fireLo && l.step <= sc.fireHi {
			return nil, fmt.Errorf("step %d is a refused call, which no hook sees before it: it cannot carry the nudge", l.step)
		}
	}
	return sc, nil
}

func (sc *scenario) parseExpect(v string) error {
	if v == "none" {
		return nil
	}
	f := strings.Fields(v)
	if len(f) != 2 || f[0] != "fire" {
		return fmt.Errorf("want `expect: none`, `expect: fire N` or `expect: fire N-M`, got %q", v)
	}
	lo, hi, isRange := strings.Cut(f[1], "-")
	var err1, err2 error
	sc.fireLo, err1 = strconv.Atoi(lo)
	sc.fireHi = sc.fireLo
	if isRange {
		sc.fireHi, err2 = strconv.Atoi(hi)
	}
	if err1 != nil || err2 != nil || sc.fireLo < 1 || sc.fireHi < sc.fireLo {
		return fmt.Errorf("bad step window %q", f[1])
	}
	return nil
}

// A nudge is a non-empty answer of the hook.
type nudge struct {
	step int    // the call it came on (or the last call before it)
	hook string // the hook event it answered
	tool string
	text string
}

func (n nudge) String() string {
	return fmt.Sprintf("step %d (%s %s): %s", n.step, n.hook, n.tool, n.text)
}

// judge compares the nudges a scenario got with what it expects.
func (sc *scenario) judge(nudges []nudge) (bool, string) {
	all := func() string {
		var b strings.Builder
		for _, n := range nudges {
			fmt.Fprintf(&b, "\n  %s", n)
		}
		return b.String()
	}
	if sc.fireLo == 0 {
		if len(nudges) == 0 {
			return true, "no nudge, as expected"
		}
		return false, fmt.Sprintf("expected no nudge, got %d:%s", len(nudges), all())
	}
	want := fmt.Sprintf("step %d", sc.fireLo)
	if sc.fireHi > sc.fireLo {
		want = fmt.Sprintf("steps %d-%d", sc.fireLo, sc.fireHi)
	}
	if len(nudges) == 0 {
		return false, fmt.Sprintf("expected the first nudge at %s, got none in %d steps", want, sc.calls)
	}
	first := nudges[0]
	if first.hook == "PreToolUse" && first.step >= sc.fireLo && first.step <= sc.fireHi {
		return true, fmt.Sprintf("first nudge at %s", first)
	}
	return false, fmt.Sprintf("expected the first nudge at %s, got:%s", want, all())
}

// player turns a scenario into Claude Code hook payloads and runs each
// through Run, as the captured fixtures are run in fixtures_test.go.
type player struct {
	sc       *scenario
	home     string
	project  string
	env      map[string]string
	base     time.Time
	tick     int
	session  string
	promptID string
	nudges   []nudge
	step     int
	batch    []batched
	bgTasks  int
}

type batched struct {
	c    *call
	id   string
	bgID string // the background task a run_in_background call started
}

func (sc *scenario) play(t *testing.T) ([]nudge, error) {
	p := &player{
		sc:      sc,
		home:    t.TempDir(),
		project: t.TempDir(),
		base:    time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC),
	}
	h := fnv.New64a()
	h.Write([]byte(sc.name))
	sum := h.Sum64()
	p.session = fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", uint32(sum>>32), uint16(sum>>16), sum&0xfff, (sum>>12)&0xfff, sum&0xffffffffffff)
	p.env = map[string]string{
		"CULLY_HOME":         p.home,
		"CULLY_CONFIG":       filepath.Join(p.home, "none.toml"),
		"CLAUDE_PROJECT_DIR": p.project,
	}
	if len(sc.config) > 0 {
		cfg := "[rules]\n" + strings.Join(sc.config, "\n") + "\n"
		if err := os.WriteFile(p.env["CULLY_CONFIG"], []byte(cfg), 0o600); err != nil {
			return nil, err
		}
	}
	if err := p.setupFiles(); err != nil {
		return nil, err
	}
	if err := p.send(p.common("SessionStart", nil, map[string]any{"source": "startup"})); err != nil {
		return nil, err
	}
	for _, l := range sc.lines {
		var err error
		switch l.kind {
		case "prompt":
			err = p.prompt(l.prompt)
		case "call":
			p.step = l.step
			err = p.call(l.call)
		case "batch":
			err = p.flush()
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", l.no, err)
		}
	}
	if log, err := os.ReadFile(filepath.Join(p.home, "errors.log")); err == nil {
		return nil, fmt.Errorf("the hook logged errors:\n%s", log)
	}
	return p.nudges, nil
}

var fileTools = map[string]bool{"Read": true, "Edit": true, "MultiEdit": true, "Write": true, "NotebookEdit": true}

func pathOf(c *call) string {
	for _, k := range []string{"file_path", "notebook_path"} {
		if s, ok := c.Input[k].(string); ok {
			return s
		}
	}
	return ""
}

// setupFiles creates the project's files before the session: those a `file`
// line sizes, and every file a Read or an edit other than Write touches
// without failing (it existed, so it must stat), at a small default size
// under the re-read guard's minimum.
func (p *player) setupFiles() error {
	const defaultSize = 1200
	want := map[string]int64{}
	for path, n := range p.sc.sizes {
		want[path] = n
	}
	for _, l := range p.sc.lines {
		if l.kind != "call" || !fileTools[l.call.Tool] || l.call.Tool == "Write" || l.call.Fail != nil {
			continue
		}
		if path := pathOf(l.call); path != "" && !filepath.IsAbs(path) {
			if _, ok := want[path]; !ok {
				want[path] = defaultSize
			}
		}
	}
	old := p.base.Add(-time.Hour)
	for path, n := range want {
		abs := filepath.Join(p.project, path)
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(abs, filler(n), 0o644); err != nil {
			return err
		}
		if err := os.Chtimes(abs, old, old); err != nil {
			return err
		}
	}
	return nil
}

func filler(n int64) []byte {
	b := bytes.Repeat([]byte("// scenario file content, one line of it\n"), int(n/41)+1)
	return b[:n]
}

func (p *player) now() time.Time { return p.base.Add(time.Duration(p.tick) * time.Second) }

// common is the part of a payload every hook event carries.
func (p *player) common(hook string, c *call, extra map[string]any) map[string]any {
	m := map[string]any{
		"session_id":      p.session,
		"transcript_path": filepath.Join(p.home, ".claude", "projects", "-scenario", p.session+".jsonl"),
		"cwd":             p.project,
		"hook_event_name": hook,
	}
	if hook != "SessionStart" {
		m["prompt_id"] = p.promptID
		m["permission_mode"] = "bypassPermissions"
		m["effort"] = map[string]any{"level": "medium"}
	}
	if c != nil && c.Subagent != "" {
		m["agent_id"] = c.Subagent
		m["agent_type"] = "general-purpose"
	}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

func (p *player) prompt(text string) error {
	p.promptID = fmt.Sprintf("%08x-0000-4000-8000-%012x", p.tick, p.tick)
	if text == "" {
		text = "carry on with the task"
	}
	return p.send(p.common("UserPromptSubmit", nil, map[string]any{"prompt": text}))
}

// input is the call's tool_input with project-relative paths made absolute,
// as Claude Code sends them.
func (p *player) input(c *call) map[string]any {
	in := make(map[string]any, len(c.Input)+1)
	for k, v := range c.Input {
		if s, ok := v.(string); ok && (k == "file_path" || k == "notebook_path" || k == "path") && s != "" && !filepath.IsAbs(s) {
			v = filepath.Join(p.project, s)
		}
		in[k] = v
	}
	if c.Background {
		in["run_in_background"] = true
	}
	return in
}

func (p *player) call(c *call) error {
	b := batched{c: c, id: fmt.Sprintf("toolu_scn%04d_%s", p.step, p.session[:6])}
	if c.Background && c.Refused == nil {
		p.bgTasks++
		b.bgID = fmt.Sprintf("bash_%d", p.bgTasks)
	}
	p.batch = append(p.batch, b)
	id := b.id
	if c.Refused != nil {
		return nil // refused in validation: only the batch shows it
	}
	in := p.input(c)
	if err := p.send(p.common("PreToolUse", c, map[string]any{"tool_name": c.Tool, "tool_input": in, "tool_use_id": id})); err != nil {
		return err
	}
	if c.Fail != nil {
		return p.send(p.common("PostToolUseFailure", c, map[string]any{
			"tool_name": c.Tool, "tool_input": in, "tool_use_id": id,
			"error": *c.Fail, "is_interrupt": false, "duration_ms": 40,
		}))
	}
	if err := p.touch(c); err != nil {
		return err
	}
	return p.send(p.common("PostToolUse", c, map[string]any{
		"tool_name": c.Tool, "tool_input": in, "tool_use_id": id,
		"tool_response": p.response(c, b.bgID), "duration_ms": 40,
	}))
}

// touch changes the file a successful edit wrote, so its size and
// modification time move as they would.
func (p *player) touch(c *call) error {
	if !fileTools[c.Tool] || c.Tool == "Read" {
		return nil
	}
	path := pathOf(c)
	if path == "" {
		return nil
	}
	abs := p.absPath(c)
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(abs, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "// edited at step %d\n", p.step)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Chtimes(abs, p.now(), p.now())
}

// response is the PostToolUse tool_response in the shape Claude Code gives
// each tool (hookbridge/claude/testdata/capture-sequence).
func (p *player) response(c *call, bgID string) any {
	abs := p.absPath(c)
	lines := func(s string) []string {
		if s == "" {
			return []string{}
		}
		return strings.Split(strings.TrimRight(s, "\n"), "\n")
	}
	switch c.Tool {
	case "Bash":
		r := map[string]any{"stdout": c.Stdout, "stderr": c.Stderr, "interrupted": false, "isImage": false, "noOutputExpected": false}
		if bgID != "" {
			r["backgroundTaskId"] = bgID
		}
		return r
	case "Read":
		content := readContent(c)
		n := len(lines(content))
		return map[string]any{"type": "text", "file": map[string]any{"filePath": abs, "content": content, "numLines": n, "startLine": 1, "totalLines": n}}
	case "Edit", "MultiEdit":
		return map[string]any{"filePath": abs, "oldString": c.Input["old_string"], "newString": c.Input["new_string"],
			"originalFile": "", "structuredPatch": []any{}, "userModified": false, "replaceAll": false}
	case "Write":
		return map[string]any{"type": "update", "filePath": abs, "content": c.Input["content"], "structuredPatch": []any{}, "originalFile": nil, "userModified": false}
	case "Grep":
		return map[string]any{"mode": "content", "numFiles": 0, "filenames": []any{}, "content": c.Stdout, "numLines": len(lines(c.Stdout))}
	case "Glob":
		names := lines(c.Stdout)
		return map[string]any{"filenames": names, "durationMs": 12, "numFiles": len(names), "truncated": false}
	case "BashOutput":
		return map[string]any{"shellId": c.Input["bash_id"], "command": "", "status": "running", "exitCode": nil, "stdout": c.Stdout, "stderr": c.Stderr, "stdoutLines": len(lines(c.Stdout)), "stderrLines": len(lines(c.Stderr)), "timestamp": p.now().Format(time.RFC3339)}
	}
	return map[string]any{"output": c.Stdout}
}

// readContent is what a Read shows: the call's stdout, else a stand-in.
func readContent(c *call) string {
	if c.Stdout != "" {
		return c.Stdout
	}
	return "// contents of " + pathOf(c)
}

// absPath is the call's file as Claude Code sends it: absolute.
func (p *player) absPath(c *call) string {
	path := pathOf(c)
	if path == "" || filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(p.project, path)
}

// batchText is the string a PostToolBatch carries for one call.
func (p *player) batchText(b batched) string {
	c := b.c
	switch {
	case c.Refused != nil:
		return "<tool_use_error>" + *c.Refused + "</tool_use_error>"
	case c.Fail != nil:
		return *c.Fail
	}
	switch c.Tool {
	case "Read":
		var b strings.Builder
		for i, l := range strings.Split(strings.TrimRight(readContent(c), "\n"), "\n") {
			fmt.Fprintf(&b, "%d\t%s\n", i+1, l)
		}
		return strings.TrimRight(b.String(), "\n")
	case "Edit", "MultiEdit", "Write":
		return fmt.Sprintf("The file %s has been updated successfully.", p.absPath(c))
	case "Bash":
		out := c.Stdout
		if c.Stderr != "" {
			out = strings.TrimRight(out+"\n"+c.Stderr, "\n")
		}
		if b.bgID != "" {
			out = "Command running in background with ID: " + b.bgID
		}
		return out
	}
	return c.Stdout
}

// flush sends the PostToolBatch of the calls since the last one: one batch
// per agent, the main agent's first, as each agent's turn ends.
func (p *player) flush() error {
	groups := map[string][]map[string]any{}
	for _, b := range p.batch {
		groups[b.c.Subagent] = append(groups[b.c.Subagent], map[string]any{
			"tool_name": b.c.Tool, "tool_input": p.input(b.c), "tool_use_id": b.id, "tool_response": p.batchText(b),
		})
	}
	p.batch = nil
	agents := make([]string, 0, len(groups))
	for a := range groups {
		agents = append(agents, a)
	}
	sort.Strings(agents)
	for _, a := range agents {
		if err := p.send(p.common("PostToolBatch", &call{Subagent: a}, map[string]any{"tool_calls": groups[a]})); err != nil {
			return err
		}
	}
	return nil
}

// send runs one payload through the hook's whole path, one second after the
// previous one, and keeps its answer if it has one.
func (p *player) send(payload map[string]any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // Claude Code writes <tool_use_error> as is
	if err := enc.Encode(payload); err != nil {
		return err
	}
	raw := bytes.TrimRight(buf.Bytes(), "\n")
	p.env["CULLY_NOW"] = p.now().Format(time.RFC3339)
	p.tick++
	var stdout, stderr bytes.Buffer
	Run(IO{Stdin: bytes.NewReader(raw), Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string { return p.env[k] }}, "claude")
	if stderr.Len() > 0 {
		return fmt.Errorf("hook stderr: %s", stderr.String())
	}
	if stdout.Len() == 0 {
		return nil
	}
	var ans struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &ans); err != nil {
		return fmt.Errorf("answer is not JSON: %v: %s", err, stdout.String())
	}
	tool, _ := payload["tool_name"].(string)
	p.nudges = append(p.nudges, nudge{step: p.step, hook: payload["hook_event_name"].(string), tool: tool, text: ans.HookSpecificOutput.AdditionalContext})
	return nil
}
