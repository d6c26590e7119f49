//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// hostileCase is one input the hook must survive: exit 0, at most one
// short stderr line, something recorded (a journal record or an error
// record), nothing written outside the state dir, and no more than 1 GiB
// of address space.
type hostileCase struct {
	name    string
	payload []byte
	env     map[string]string
	args    []string // cully-hook's arguments: --agent NAME for hosts but Claude Code
	// setup, when set, damages or holds the state dir before the call
	// (state: its path, not yet made); it may return a release, run after.
	setup func(t *testing.T, root, state string) func()
	// limits are shell ulimit arguments beside the address-space bound
	// ("-f 0": a file size limit of nothing, as a full disk answers).
	limits string
	// stdin, when set, is a file the hook reads instead of payload.
	stdin string
	// stateAt is where the state dir is, below the case's folder, when
	// the environment moves it from home/state.
	stateAt string
}

// hostileCases are the static payloads of testdata/hostile plus the large
// ones, made here rather than stored: deep nesting an MCP tool's output can
// carry, a payload over the hook's 16 MiB cap, megabyte strings in every
// field a host fills.
func hostileCases(t *testing.T) []hostileCase {
	files, err := filepath.Glob("testdata/hostile/*.json")
	if err != nil || len(files) < 50 {
		t.Fatalf("want the hostile payloads, found %d: %v", len(files), err)
	}
	var cs []hostileCase
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, hostileCase{name: strings.TrimSuffix(filepath.Base(f), ".json"), payload: b})
	}
	base := func(extra string) []byte {
		return []byte(`{"session_id":"big","hook_event_name":"PostToolUse","tool_name":"Bash","cwd":"/p","tool_input":{"command":"go test ./... | tail"}` + extra + `}`)
	}
	str := func(n int, c string) string { b, _ := json.Marshal(strings.Repeat(c, n)); return string(b) }
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	obj := func(n int) string { return strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n) }
	keys := func(n int) string {
		var b strings.Builder
		b.WriteString(`{`)
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"k%d":%d`, i, i)
		}
		b.WriteString(`}`)
		return b.String()
	}
	gen := map[string][]byte{
		"deep-array-4.5M-levels":    base(`,"tool_response":` + deep(4_500_000)),
		"deep-object-1M-levels":     base(`,"tool_response":` + obj(1_000_000)),
		"deep-input-600-levels":     []byte(`{"session_id":"d","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":` + deep(600) + `}`),
		"over-cap-20MiB":            base(`,"tool_response":{"stdout":` + str(20<<20, "o") + `}`),
		"response-6MB":              base(`,"tool_response":{"stdout":` + str(3<<20, "o") + `,"stderr":` + str(3<<20, "e") + `}`),
		"prompt-5MB":                []byte(`{"session_id":"p","hook_event_name":"UserPromptSubmit","prompt":` + str(5<<20, "p") + `}`),
		"command-2MB":               []byte(`{"session_id":"c","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":` + str(2<<20, "x") + `}}`),
		"command-50k-pipes":         []byte(`{"session_id":"c","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"` + strings.Repeat("cat|", 50000) + `cat"}}`),
		"command-20k-subshells":     []byte(`{"session_id":"c","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"` + strings.Repeat("(", 20000) + "true" + strings.Repeat(")", 20000) + `"}}`),
		"heredoc-10k-lines":         []byte(`{"session_id":"c","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"cat <<EOF > x` + strings.Repeat(`\nline`, 10000) + `"}}`),
		"session-id-100KB":          []byte(`{"session_id":` + str(100000, "s") + `,"hook_event_name":"PreToolUse","tool_name":"Bash"}`),
		"tool-name-100KB":           []byte(`{"session_id":"t","hook_event_name":"PreToolUse","tool_name":` + str(100000, "T") + `}`),
		"path-50k-components":       []byte(`{"session_id":"r","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/` + strings.Repeat("a/", 50000) + `"}}`),
		"cwd-100KB":                 []byte(`{"session_id":"w","hook_event_name":"PreToolUse","tool_name":"Read","cwd":` + str(100000, "c") + `,"tool_input":{"file_path":"x"}}`),
		"50k-top-level-keys":        []byte(keys(50000)[:len(keys(50000))-1] + `,"session_id":"k","hook_event_name":"PreToolUse"}`),
		"batch-5000-refusals":       []byte(`{"session_id":"b","hook_event_name":"PostToolBatch","tool_calls":[` + strings.TrimSuffix(strings.Repeat(`{"tool_name":"Edit","tool_input":{"file_path":"a"},"tool_response":"<tool_use_error>nope</tool_use_error>"},`, 5000), ",") + `]}`),
		"check-output-with-escapes": base(`,"tool_response":{"stdout":` + str(5000, "ok \u001b[2J\n") + `,"stderr":""}`),
		"binary-garbage":            bytes.Repeat([]byte{0xff, 0x00, 0x1b, '{', '"'}, 100000),
	}
	names := make([]string, 0, len(gen))
	for n := range gen {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		cs = append(cs, hostileCase{name: n, payload: gen[n]})
	}
	cs = append(cs, adapterCases(t)...)
	cs = append(cs, faultCases(t)...)
	// Hostile environments around a good payload.
	good, _ := os.ReadFile(filepath.Join(fixtures, "capture-sequence", "010-PreToolUse-Bash.json"))
	for name, env := range map[string]map[string]string{
		"env-lock-timeout-garbage":  {"CULLY_LOCK_TIMEOUT": "abc"},
		"env-lock-timeout-negative": {"CULLY_LOCK_TIMEOUT": "-5s"},
		"env-now-garbage":           {"CULLY_NOW": "garbage"},
		"env-now-year-10000":        {"CULLY_NOW": "10000-01-01T00:00:00Z"},
		"env-project-dir-missing":   {"CLAUDE_PROJECT_DIR": "/nonexistent/project"},
		"env-config-is-a-dir":       {"CULLY_CONFIG": "/"},
		"env-config-dev-zero":       {"CULLY_CONFIG": "/dev/zero"},
		"env-guard-garbage":         {"CULLY_GUARD": "\x1b[2J"},
		"env-attended-garbage":      {"CLAUDE_CODE_SESSION_ATTENDED": "maybe"},
	} {
		cs = append(cs, hostileCase{name: name, payload: good, env: env})
	}
	return cs
}

// hostileGaps are cases the hook does not survive yet, each with why.
var hostileGaps = map[string]string{}

func TestHookHostileSuite(t *testing.T) {
	t.Parallel()
	cases := hostileCases(t)
	if n := len(cases) + len(daemonForgeries(strings.Repeat("t", 43))); n < 200 {
		t.Fatalf("the hostile suite holds %d cases (with the daemon's forgeries), want at least 200", n)
	}
	times := hostileTimes(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if why, ok := hostileGaps[c.name]; ok {
				t.Skip(why)
			}
			root := t.TempDir()
			home, state := filepath.Join(root, "home"), filepath.Join(root, "home", "state")
			if err := os.MkdirAll(home, 0o700); err != nil {
				t.Fatal(err)
			}
			env := map[string]string{"HOME": home, "CULLY_HOME": state, "CLAUDE_PROJECT_DIR": root, "TMPDIR": filepath.Join(root, "tmp"), "CULLY_SNAPSHOTS": "off"}
			for k, v := range c.env {
				env[k] = strings.ReplaceAll(v, "{root}", root)
			}
			if c.stateAt != "" {
				state = filepath.Join(root, c.stateAt)
			}
			os.MkdirAll(filepath.Join(root, "tmp"), 0o700)
			if c.setup != nil {
				if release := c.setup(t, root, state); release != nil {
					defer release()
				}
			}
			// The refused-state-dir notes live beside the state dir, in
			// $TMPDIR/cully-UID (store.NoticeDir), by design.
			notes := filepath.Join(root, "tmp", fmt.Sprintf("cully-%d", os.Getuid()))
			before := tree(t, root, state, notes)
			// Memory is bounded by a limit the hook must live under (1 GiB of
			// address space), not read back: a child's peak RSS as wait4
			// reports it includes the parent's at the moment it was spawned.
			script := "ulimit -v 1048576 && "
			if c.limits != "" {
				script += "ulimit " + c.limits + " && "
			}
			cmd := exec.Command("sh", append([]string{"-c", script + `exec cully-hook "$@"`, "cully-hook"}, c.args...)...)
			cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
			for k, v := range env {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
			cmd.Dir = root
			cmd.Stdin = bytes.NewReader(c.payload)
			if c.stdin != "" {
				f, err := os.Open(c.stdin)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				cmd.Stdin = f
			}
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			start := time.Now()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				times.add(c.name, time.Since(start), len(c.payload))
				if err != nil {
					t.Fatalf("exit: %v; stderr %q", err, clip(errb.String()))
				}
			case <-time.After(60 * time.Second): // a hang bound, not a timing
				cmd.Process.Kill()
				t.Fatal("cully-hook hung")
			}
			if s := errb.String(); strings.Count(s, "\n") > 1 || len(s) > 300 {
				t.Errorf("stderr holds more than one short line: %q", clip(s))
			}
			if out.Len() > 0 && !json.Valid(out.Bytes()) {
				t.Errorf("stdout is not one JSON answer: %q", clip(out.String()))
			}
			// What the host shows the agent or the user holds no raw
			// control character, decoded or not.
			if rc := rawControls(out.String() + errb.String()); len(rc) > 0 {
				t.Errorf("the answer holds raw %v: %q", rc, clip(out.String()+errb.String()))
			}
			var answer any
			if json.Unmarshal(out.Bytes(), &answer) == nil {
				for _, s := range appendStrings(nil, answer) {
					if rc := rawControls(s); len(rc) > 0 {
						t.Errorf("the answer's text holds %v once decoded: %q", rc, clip(s))
					}
				}
			}
			journalB, errorsB := readRegular(filepath.Join(state, "journal.jsonl")), readRegular(filepath.Join(state, "errors.log"))
			pending, _ := os.ReadDir(filepath.Join(state, "pending"))
			if len(journalB) == 0 && len(errorsB) == 0 && len(pending) == 0 && errb.Len() == 0 {
				t.Error("nothing recorded: no journal record, none waiting in pending/, no error record")
			}
			if after := tree(t, root, state, notes); after != before {
				t.Errorf("files outside the state dir changed:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

// tree lists the files below root, outside skip, with their sizes.
func tree(t *testing.T, root string, skip ...string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || slices.Contains(skip, p) {
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if info, err := d.Info(); err == nil && !d.IsDir() {
			fmt.Fprintf(&b, "%s:%d ", strings.TrimPrefix(p, root), info.Size())
		}
		return nil
	})
	return b.String()
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

// readRegular reads path if it is a regular file (a planted FIFO would
// block the reader), else nothing.
func readRegular(path string) []byte {
	if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	b, _ := os.ReadFile(path)
	return b
}
