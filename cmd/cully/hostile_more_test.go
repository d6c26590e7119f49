//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"cully/store"
)

// hostileControls is a string with every kind of character a terminal or
// a JSON reader may act on: NUL, an escape sequence, an OSC 52 clipboard
// write, C1 CSI and OSC, the right-to-left override and an isolate.
const hostileControls = "a\x00b\x1b[2J\x1b]52;c;Y3VsbHk=\x07\u009b31m\u009d0;x\u202e\u2066z"

// adapterPayloads are captured calls of each host (a tool call before and
// after it runs), with the arguments its hook entry passes and the
// environment it sets.
func adapterPayloads(t *testing.T) []hostileCase {
	t.Helper()
	read := func(path string) []byte {
		b, err := os.ReadFile(filepath.Join("../../hookbridge", path))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	agent := func(name string) []string { return []string{"--agent", name} }
	copilot := func(event string) map[string]string {
		return map[string]string{"CULLY_HOOK_EVENT": event, "COPILOT_CLI": "1"}
	}
	opencode := func(event, extra string) []byte {
		return []byte(`{"hook_event_name":"` + event + `","session_id":"ses_1","cwd":"/w/p","tool_name":"bash","tool_use_id":"c1","tool_input":{"command":"go test ./..."}` + extra + `}`)
	}
	return []hostileCase{
		{name: "claude-pre", payload: read("claude/testdata/capture-sequence/010-PreToolUse-Bash.json")},
		{name: "claude-post", payload: read("claude/testdata/capture-sequence/012-PostToolUseFailure-Bash.json")},
		{name: "codex-pre", payload: read("codex/testdata/block/1796013122372086203-PreToolUse.json"), args: agent("codex")},
		{name: "codex-post", payload: read("codex/testdata/block/1796013122520003136-PostToolUse.json"), args: agent("codex")},
		{name: "gemini-pre", payload: read("gemini/testdata/capture/003-BeforeTool-run_shell_command.json"), args: agent("gemini")},
		{name: "gemini-post", payload: read("gemini/testdata/capture/004-AfterTool-run_shell_command.json"), args: agent("gemini")},
		{name: "copilot-pre", payload: read("copilot/testdata/capture-sequence/007-preToolUse-bash.json"), args: agent("copilot"), env: copilot("preToolUse")},
		{name: "copilot-post", payload: read("copilot/testdata/capture-sequence/008-postToolUse-bash.json"), args: agent("copilot"), env: copilot("postToolUse")},
		{name: "cursor-pre", payload: read("cursor/testdata/hooks/beforeShellExecution-run.json"), args: agent("cursor")},
		{name: "cursor-post", payload: read("cursor/testdata/hooks/afterShellExecution-check-fail.json"), args: agent("cursor")},
		{name: "opencode-pre", payload: opencode("tool.execute.before", ""), args: agent("opencode")},
		{name: "opencode-post", payload: opencode("tool.execute.after", `,"tool_response":{"output":"FAIL\n","metadata":{"exit":1}}`), args: agent("opencode")},
	}
}

// adapterCases mutate each host's captured calls (the README's test command
// runs every ninth field mutation, counted across the fields;
// CULLY_LONG_TESTS=1, as CI sets it, runs them all): in the call after a
// tool ran (the one with the most fields), every top-level field made an
// object, a string of control characters, or left out, and every field
// of the tool's input made control characters; both calls as a whole cut
// in half, empty, a JSON null, behind a byte-order mark, with a field
// given twice, and with a NaN.
func adapterCases(t *testing.T) []hostileCase {
	t.Helper()
	var out []hostileCase
	for _, base := range adapterPayloads(t) {
		var doc map[string]any
		if err := json.Unmarshal(base.payload, &doc); err != nil {
			t.Fatalf("%s: %v", base.name, err)
		}
		n := 0
		with := func(name string, payload []byte) {
			c := base
			c.name, c.payload = base.name+"-"+name, payload
			out = append(out, c)
		}
		mutated := func(name string, payload []byte) {
			if n++; longTests() || n%9 == 0 {
				with(name, payload)
			}
		}
		with("as-captured", base.payload)
		keys := make([]string, 0, len(doc))
		for k := range doc {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if !strings.HasSuffix(base.name, "-post") {
			keys = nil
		}
		for _, k := range keys {
			for _, m := range []struct {
				name string
				v    any
			}{{"object", map[string]any{"a": []any{1e308, nil}}}, {"controls", hostileControls}} {
				d := clone(doc)
				d[k] = m.v
				mutated(k+"-"+m.name, marshal(t, d))
			}
			d := clone(doc)
			delete(d, k)
			mutated(k+"-missing", marshal(t, d))
		}
		// The tool's input, under whichever name this host gives it.
		for _, in := range []string{"tool_input", "toolArgs"} {
			args, ok := doc[in].(map[string]any)
			if !ok || keys == nil {
				continue
			}
			names := make([]string, 0, len(args))
			for k := range args {
				names = append(names, k)
			}
			sort.Strings(names)
			for _, k := range names {
				for _, m := range []struct {
					name string
					v    any
				}{{"controls", hostileControls}} {
					d := clone(doc)
					a := clone(args)
					a[k] = m.v
					d[in] = a
					mutated(in+"."+k+"-"+m.name, marshal(t, d))
				}
			}
		}
		compact := marshal(t, doc)
		with("cut-in-half", compact[:len(compact)/2])
		with("empty", nil)
		with("json-null", []byte("null"))
		with("byte-order-mark", append([]byte("\xef\xbb\xbf"), compact...))
		with("field-twice", append([]byte(`{"hook_event_name":"Stop",`), compact[1:]...))
		with("nan", append(append([]byte{}, compact[:len(compact)-1]...), []byte(`,"x":NaN}`)...))
	}
	return out
}

func clone(m map[string]any) map[string]any {
	c := make(map[string]any, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

func marshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// faultPayload is the call every state-dir, lock and environment fault
// is tried with.
var faultPayload = []byte(`{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"go test ./..."},"tool_use_id":"t1","cwd":"/p"}`)

// faultCases damage the state dir, hold its locks, bound the process and
// garble its environment; the hook survives each as it survives a bad
// payload.
func faultCases(t *testing.T) []hostileCase {
	t.Helper()
	mkdir := func(state string) {
		if err := os.MkdirAll(filepath.Join(state, "sessions"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	fifo := func(path string) {
		if err := syscall.Mkfifo(path, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write := func(path string, b []byte) {
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	victim := func(root string) string {
		p := filepath.Join(root, "victim.txt")
		write(p, []byte("the user's file\n"))
		return p
	}
	// A lock is held as a repository command holds it, by flock(1)
	// (lockheld_test.go): a holder cully takes for its own (this test's
	// binary, cully.test) would be waited for, as cully's own writers are.
	hold := func(t *testing.T, path string) func() {
		_, release := holdFileLock(t, path)
		return release
	}
	setups := map[string]func(t *testing.T, root, state string) func(){
		"state-dir-is-a-file":      func(t *testing.T, root, state string) func() { write(state, []byte("x")); return nil },
		"state-dir-is-a-fifo":      func(t *testing.T, root, state string) func() { fifo(state); return nil },
		"state-dir-group-writable": func(t *testing.T, root, state string) func() { mkdir(state); os.Chmod(state, 0o770); return nil },
		"state-dir-symlink-outside": func(t *testing.T, root, state string) func() {
			os.Mkdir(filepath.Join(root, "elsewhere"), 0o700)
			os.Symlink(filepath.Join(root, "elsewhere"), state)
			return nil
		},
		"journal-is-a-fifo": func(t *testing.T, root, state string) func() {
			mkdir(state)
			fifo(filepath.Join(state, "journal.jsonl"))
			return nil
		},
		"journal-is-a-dir": func(t *testing.T, root, state string) func() {
			mkdir(state)
			os.Mkdir(filepath.Join(state, "journal.jsonl"), 0o700)
			return nil
		},
		"journal-symlink-to-users-file": func(t *testing.T, root, state string) func() {
			mkdir(state)
			os.Symlink(victim(root), filepath.Join(state, "journal.jsonl"))
			return nil
		},
		"journal-torn-10MB-line": func(t *testing.T, root, state string) func() {
			mkdir(state)
			write(filepath.Join(state, "journal.jsonl"), []byte(`{"v":1,"session":"s1","x":"`+strings.Repeat("x", 10<<20)))
			return nil
		},
		"journal-lock-is-a-fifo": func(t *testing.T, root, state string) func() {
			mkdir(state)
			fifo(filepath.Join(state, "journal.lock"))
			return nil
		},
		"journal-lock-is-a-dir": func(t *testing.T, root, state string) func() {
			mkdir(state)
			os.Mkdir(filepath.Join(state, "journal.lock"), 0o700)
			return nil
		},
		"sessions-is-a-file": func(t *testing.T, root, state string) func() {
			os.MkdirAll(state, 0o700)
			write(filepath.Join(state, "sessions"), nil)
			return nil
		},
		"session-state-is-a-fifo": func(t *testing.T, root, state string) func() {
			mkdir(state)
			fifo(filepath.Join(state, "sessions", "s1.state"))
			return nil
		},
		"session-state-symlink-to-users-file": func(t *testing.T, root, state string) func() {
			mkdir(state)
			os.Symlink(victim(root), filepath.Join(state, "sessions", "s1.state"))
			return nil
		},
		"session-state-garbage": func(t *testing.T, root, state string) func() {
			mkdir(state)
			write(filepath.Join(state, "sessions", "s1.state"), []byte("cully-s1!"+strings.Repeat("\xff", 4000)))
			return nil
		},
		"session-state-sparse-100MB": func(t *testing.T, root, state string) func() {
			mkdir(state)
			p := filepath.Join(state, "sessions", "s1.state")
			write(p, []byte("cully-s1."))
			os.Truncate(p, 100<<20)
			return nil
		},
		"pending-is-a-file": func(t *testing.T, root, state string) func() {
			mkdir(state)
			write(filepath.Join(state, "pending"), nil)
			return nil
		},
		"errors-log-symlink-to-users-file": func(t *testing.T, root, state string) func() {
			mkdir(state)
			os.Symlink(victim(root), filepath.Join(state, "errors.log"))
			return nil
		},
		"recording-counter-is-a-fifo": func(t *testing.T, root, state string) func() {
			mkdir(state)
			fifo(filepath.Join(state, store.RecordingName))
			return nil
		},
		"journal-lock-held": func(t *testing.T, root, state string) func() {
			mkdir(state)
			return hold(t, filepath.Join(state, "journal.lock"))
		},
		"session-lock-held": func(t *testing.T, root, state string) func() {
			mkdir(state)
			return hold(t, filepath.Join(state, "sessions", "s1.state"))
		},
		"journal-and-session-locks-held": func(t *testing.T, root, state string) func() {
			mkdir(state)
			a, b := hold(t, filepath.Join(state, "journal.lock")), hold(t, filepath.Join(state, "sessions", "s1.state"))
			return func() { a(); b() }
		},
		"recording-counter-lock-held": func(t *testing.T, root, state string) func() {
			mkdir(state)
			return hold(t, filepath.Join(state, store.RecordingName))
		},
		"config-is-a-fifo": func(t *testing.T, root, state string) func() {
			fifo(filepath.Join(root, "config.toml"))
			return nil
		},
	}
	if os.Getuid() == 0 {
		setups["state-dir-owned-by-another-user"] = func(t *testing.T, root, state string) func() {
			mkdir(state)
			os.Chown(state, 65534, 65534)
			return nil
		}
	}
	var out []hostileCase
	for name, setup := range setups {
		c := hostileCase{name: "fault-" + name, payload: faultPayload, setup: setup}
		if name == "config-is-a-fifo" {
			c.env = map[string]string{"CULLY_CONFIG": "{root}/config.toml"}
		}
		out = append(out, c)
	}
	for name, env := range map[string]map[string]string{
		"cully-home-relative":       {"CULLY_HOME": "rel/state"},
		"cully-home-dev-null":       {"CULLY_HOME": "/dev/null"},
		"cully-home-4000-chars":     {"CULLY_HOME": "{root}/" + strings.Repeat("d", 4000)},
		"home-unset-cully-home-too": {"CULLY_HOME": "", "HOME": ""},
		"tmpdir-missing":            {"TMPDIR": "/nonexistent/tmp"},
		"lock-timeout-huge":         {"CULLY_LOCK_TIMEOUT": "1e308s"},
		"lock-timeout-zero":         {"CULLY_LOCK_TIMEOUT": "0"},
		"lock-timeout-hours":        {"CULLY_LOCK_TIMEOUT": "3h"},
		"mark-timeout-garbage":      {"CULLY_MARK_TIMEOUT": "soon"},
		"durable-garbage":           {"CULLY_DURABLE": "\x1b[2J"},
		"gomaxprocs-garbage":        {"GOMAXPROCS": "-3"},
		"traceparent-garbage":       {"TRACEPARENT": strings.Repeat("00-", 10000)},
		"config-missing":            {"CULLY_CONFIG": "/nonexistent/config.toml"},
		"copilot-event-garbage":     {"CULLY_HOOK_EVENT": strings.ReplaceAll(hostileControls, "\x00", "")},
	} {
		out = append(out, hostileCase{name: "env-" + name, payload: faultPayload, env: env})
	}
	out = append(out,
		hostileCase{name: "env-cully-home-empty", payload: faultPayload, env: map[string]string{"CULLY_HOME": ""}, stateAt: "home/.local/state/cully"},
		hostileCase{name: "env-cully-home-controls", payload: faultPayload, env: map[string]string{"CULLY_HOME": "{root}/\x1b[2J\u202e"}, stateAt: "\x1b[2J\u202e"},
		hostileCase{name: "limit-file-size-zero", payload: faultPayload, limits: "-f 0"},
		hostileCase{name: "limit-open-files-8", payload: faultPayload, limits: "-n 8"},
		hostileCase{name: "stdin-endless-zeros", stdin: "/dev/zero"},
		hostileCase{name: "stdin-endless-zeros-codex", stdin: "/dev/zero", args: []string{"--agent", "codex"}},
		hostileCase{name: "args-unknown-agent", payload: faultPayload, args: []string{"--agent", "nosuch"}},
		hostileCase{name: "args-garbage", payload: faultPayload, args: []string{"--\x1b[2J", strings.Repeat("x", 100000)}},
	)
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// daemonForgery is one request the daemon must refuse, recording nothing.
type daemonForgery struct {
	name   string
	method string
	path   string
	host   string // replaces the URL's Host when set; "{port}" is the bound port
	hdr    map[string]string
	status int
}

// daemonForgeries are requests from a web page, a rebound host name, a
// local process without the install's secret, and requests of the wrong
// shape, each refused with its status.
func daemonForgeries(tok string) []daemonForgery {
	with := func(kv ...string) map[string]string {
		h := map[string]string{"Content-Type": "application/json", "Authorization": "Bearer " + tok}
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == "" {
				delete(h, kv[i])
			} else {
				h[kv[i]] = kv[i+1]
			}
		}
		return h
	}
	noAuth := func(kv ...string) map[string]string { return with(append([]string{"Authorization", ""}, kv...)...) }
	fs := []daemonForgery{
		{name: "no secret (another local user's curl)", hdr: noAuth(), status: 401},
		{name: "a wrong secret", hdr: with("Authorization", "Bearer "+strings.Repeat("x", 43)), status: 401},
		{name: "the secret without its scheme", hdr: with("Authorization", tok), status: 401},
		{name: "the secret cut short", hdr: with("Authorization", "Bearer "+tok[:len(tok)/2]), status: 401},
		{name: "the secret with a byte more", hdr: with("Authorization", "Bearer "+tok+"x"), status: 401},
		{name: "the secret as Basic", hdr: with("Authorization", "Basic "+tok), status: 401},
		{name: "an empty bearer", hdr: with("Authorization", "Bearer "), status: 401},
		{name: "the secret in the query", path: "/hook/claude?token=" + tok, hdr: noAuth(), status: 401},
		{name: "text/plain with the secret", hdr: with("Content-Type", "text/plain"), status: 415},
		{name: "a form with the secret", hdr: with("Content-Type", "application/x-www-form-urlencoded"), status: 415},
		{name: "multipart with the secret", hdr: with("Content-Type", "multipart/form-data; boundary=x"), status: 415},
		{name: "no content type", hdr: with("Content-Type", ""), status: 415},
		{name: "a DNS-rebound host name", host: "rebound.example:{port}", hdr: with(), status: 403},
		{name: "localhost when 127.0.0.1 was bound", host: "localhost:{port}", hdr: with(), status: 403},
		{name: "another loopback address", host: "127.0.0.2:{port}", hdr: with(), status: 403},
		{name: "the bound address on another port", host: "127.0.0.1:1", hdr: with(), status: 403},
		{name: "an IPv6 loopback host", host: "[::1]:{port}", hdr: with(), status: 403},
		{name: "a host with a trailing dot", host: "127.0.0.1.:{port}", hdr: with(), status: 403},
	}
	for _, origin := range []string{"http://evil.example", "null", "file://", "http://127.0.0.1:1", "chrome-extension://abc", "http://localhost"} {
		fs = append(fs,
			daemonForgery{name: "a web page at " + origin + " posting text/plain", hdr: noAuth("Content-Type", "text/plain", "Origin", origin), status: 403},
			daemonForgery{name: "a web page at " + origin + ", even with the secret", hdr: with("Origin", origin), status: 403},
		)
	}
	for _, site := range []string{"cross-site", "same-site"} {
		fs = append(fs, daemonForgery{name: "a browser's " + site + " fetch", hdr: with("Sec-Fetch-Site", site), status: 403})
	}
	for i := range fs {
		if fs[i].method == "" {
			fs[i].method = "POST"
		}
		if fs[i].path == "" {
			fs[i].path = "/hook/claude"
		}
	}
	return fs
}

// Every forgery is refused with its status, none is recorded, and the
// secret shows nowhere.
func TestDaemonForgeries(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	r := cully(t, env, nil, "daemon", "--token")
	tok := strings.TrimSpace(r.stdout)
	if r.code != 0 || len(tok) != 43 {
		t.Fatalf("daemon --token: %+v", r)
	}
	addr := freeAddr(t)
	port := addr[strings.LastIndex(addr, ":")+1:]
	url := "http://" + addr
	stop, errb := startDaemon(t, env, []string{"cully", "daemon", "--listen", addr}, http.DefaultClient, url, map[string]string{"Authorization": "Bearer " + tok})
	defer stop()
	payload := `{"session_id":"t1","hook_event_name":"UserPromptSubmit","prompt":"fix","cwd":"/w"}`
	for _, f := range daemonForgeries(tok) {
		code, body := post(t, http.DefaultClient, url+f.path, strings.ReplaceAll(f.host, "{port}", port), f.hdr, payload)
		if code != f.status || !strings.Contains(body, "refused") {
			t.Errorf("%s: %d %s, want %d", f.name, code, body, f.status)
		}
	}
	if evs := journal(t, env["CULLY_HOME"]); len(evs) != 0 {
		t.Fatalf("forged requests were recorded: %+v", evs)
	}
	if strings.Contains(errb.String(), tok) {
		t.Errorf("the daemon's log shows the secret")
	}
}

// hostileRun is the hook's wall time on one case.
type hostileRun struct {
	name  string
	took  time.Duration
	bytes int
}

type hostileClock struct {
	mu   sync.Mutex
	runs []hostileRun
}

func (c *hostileClock) add(name string, d time.Duration, n int) {
	c.mu.Lock()
	c.runs = append(c.runs, hostileRun{name, d, n})
	c.mu.Unlock()
}

// hostileTimes collects each case's wall time and, when
// CULLY_HOSTILE_TIMES names a file, writes them there as a table once the
// suite is done (bench/hostile.sh reads it). Timings are a figure to
// report, not an assertion.
func hostileTimes(t *testing.T) *hostileClock {
	c := &hostileClock{}
	out := os.Getenv("CULLY_HOSTILE_TIMES")
	if out == "" {
		return c
	}
	t.Cleanup(func() {
		var b strings.Builder
		sort.Slice(c.runs, func(i, j int) bool { return c.runs[i].took > c.runs[j].took })
		for _, r := range c.runs {
			fmt.Fprintf(&b, "%d\t%d\t%s\n", r.took.Microseconds(), r.bytes, r.name)
		}
		os.WriteFile(out, []byte(b.String()), 0o644)
	})
	return c
}
