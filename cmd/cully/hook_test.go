package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"cully/engine"
	"cully/hookbridge/agents"
	"cully/store"
)

const fixtures = "../../hookbridge/claude/testdata"

// Every captured Claude Code payload through the real binary: exit 0, a
// valid answer, exactly one journal record with the right class and outcome.
func TestHookEveryCapturedFixture(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	files, _ := filepath.Glob(filepath.Join(fixtures, "capture-sequence", "*.json"))
	more, _ := filepath.Glob(filepath.Join(fixtures, "hooks", "*.json"))
	sort.Strings(files)
	files = append(files, more...)
	if len(files) < 100 {
		t.Fatalf("fixtures missing: %d", len(files))
	}
	for i, f := range files {
		raw, _ := os.ReadFile(f)
		r := cully(t, env, raw, "hook")
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", f, r.code, r.stderr)
		}
		if r.stderr != "" {
			t.Errorf("%s: stderr %q", f, r.stderr)
		}
		if out := strings.TrimSpace(r.stdout); out != "" {
			var ans map[string]map[string]string
			if err := json.Unmarshal([]byte(out), &ans); err != nil || ans["hookSpecificOutput"]["additionalContext"] == "" {
				t.Errorf("%s: answer is not a context object: %q", f, out)
			}
		}
		evs := journal(t, env["CULLY_HOME"])
		if len(evs) != i+1 {
			t.Fatalf("%s: journal has %d records after %d calls", f, len(evs), i+1)
		}
		last := evs[len(evs)-1]
		var payload map[string]any
		json.Unmarshal(raw, &payload)
		if last.Hook != payload["hook_event_name"] || last.Session != payload["session_id"] {
			t.Errorf("%s: recorded %s/%s", f, last.Hook, last.Session)
		}
		switch last.Hook {
		case "PostToolUseFailure":
			if last.Outcome != engine.OutcomeFailed && last.Outcome != engine.OutcomeUnknown {
				t.Errorf("%s: outcome %s", f, last.Outcome)
			}
			if last.Tool == "Bash" && last.Exit == nil {
				t.Errorf("%s: a failing Bash needs its exit code", f)
			}
		case "PostToolUse":
			if last.Outcome == "" || last.Class == "" {
				t.Errorf("%s: outcome %q class %q", f, last.Outcome, last.Class)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(env["CULLY_HOME"], "errors.log")); err == nil {
		b, _ := os.ReadFile(filepath.Join(env["CULLY_HOME"], "errors.log"))
		t.Errorf("no errors expected, got: %s", b)
	}
	for _, p := range []string{env["CULLY_HOME"], filepath.Join(env["CULLY_HOME"], "sessions")} {
		if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o700 {
			t.Errorf("%s mode %v, want 0700", p, fi.Mode().Perm())
		}
	}
	if fi, _ := os.Stat(filepath.Join(env["CULLY_HOME"], "journal.jsonl")); fi.Mode().Perm() != 0o600 {
		t.Errorf("journal mode %v, want 0600", fi.Mode().Perm())
	}
}

// 16 concurrent writers × 12 hook processes (cully-hook, the binary
// install wires in): exactly 192 valid lines, status agrees, and no
// clock went backwards. Every call of the 16 queues on the same locks
// from its first to its last; .ci/run sets CULLY_LONG_TESTS=1 for 500
// calls each (8,000 processes, 130 s of CPU on a loaded 2-core machine:
// 40% of this package's), the volume that showed hooks starved past their
// lock and stdin waits under load.
func TestHookConcurrentWriters(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("spawns 192 processes")
	}
	const workers = 16
	calls := 12
	if longTests() {
		calls = 500
	}
	env := testEnv(t)
	// The test is about many writers, not lock deadlines: on a loaded
	// 2-core machine under the race detector, 16 writers can queue past the
	// default 2 s, and a hook that gives up keeps its event in errors.log.
	env["CULLY_LOCK_TIMEOUT"] = "60s"
	env["CULLY_STDIN_TIMEOUT"] = "60s" // the same for a starved hook's wait on its stdin
	var wg sync.WaitGroup
	errs := make(chan string, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < calls; i++ {
				p := fmt.Sprintf(`{"session_id":"conc","cwd":"/home/dev/project","hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":"/home/dev/project/f%d-%d.go"},"tool_response":{},"tool_use_id":"t%d-%d"}`, w, i, w, i)
				if r := runBin(t, "cully-hook", env, []byte(p)); r.code != 0 || r.stdout != "" || r.stderr != "" {
					errs <- fmt.Sprintf("worker %d call %d: %+v", w, i, r)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	evs := journal(t, env["CULLY_HOME"])
	if len(evs) != workers*calls {
		logged, _ := os.ReadFile(filepath.Join(env["CULLY_HOME"], "errors.log"))
		t.Fatalf("journal has %d records, want %d; errors.log:\n%s", len(evs), workers*calls, logged)
	}
	r := cully(t, env, nil, "status", "--json")
	var rep statusReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("status --json: %v\n%s", err, r.stdout)
	}
	if rep.Counts.ToolCalls != workers*calls || rep.Counts.ByClass[engine.ClassRead] != workers*calls ||
		rep.Counts.FilesRead != workers*calls || rep.Journal.Lines != workers*calls || rep.Journal.Corrupt != 0 {
		t.Fatalf("status counts %+v journal %+v", rep.Counts, rep.Journal)
	}
	// Each call reads the clock under the session lock: parallel calls of
	// one session never look like the clock going backwards.
	if rep.ClockSkews != 0 {
		t.Errorf("%d false clock skews from parallel calls", rep.ClockSkews)
	}
}

func TestStatusReportsCorruptAndTornLines(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	raw, _ := os.ReadFile(filepath.Join(fixtures, "capture-sequence", "005-PreToolUse-Read.json"))
	for i := 0; i < 3; i++ {
		cully(t, env, raw, "hook")
	}
	f, _ := os.OpenFile(filepath.Join(env["CULLY_HOME"], "journal.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("not json\n{\"v\":1}\n\x00\x01garbage\n{\"v\":1,\"kind\":\"pre_tool\",\"sess")
	f.Close()
	r := cully(t, env, nil, "status", "--json")
	if r.code != 0 {
		t.Fatalf("status: %d %s", r.code, r.stderr)
	}
	var rep statusReport
	json.Unmarshal([]byte(r.stdout), &rep)
	if rep.Journal.Lines != 3 || rep.Journal.Corrupt != 3 || rep.Journal.Torn != 1 {
		t.Fatalf("journal %+v", rep.Journal)
	}
	text := cully(t, env, nil, "status")
	if !strings.Contains(text.stdout, "3 corrupt · 1 torn") {
		t.Errorf("text status should report the damage:\n%s", text.stdout)
	}
	// A later hook call closes the torn line and goes on.
	if r := cully(t, env, raw, "hook"); r.code != 0 {
		t.Fatal(r)
	}
	r = cully(t, env, nil, "status", "--json", "--rebuild")
	json.Unmarshal([]byte(r.stdout), &rep)
	if rep.Journal.Lines != 4 || rep.Journal.Corrupt != 4 || rep.Journal.Torn != 0 {
		t.Fatalf("after another hook: %+v", rep.Journal)
	}
}

// Hostile input: the hook exits 0, prints nothing, records the error, and
// creates nothing outside CULLY_HOME.
func TestHookHostileInputs(t *testing.T) {
	t.Parallel()
	big := make([]byte, 50<<20)
	copy(big, `{"session_id":"big","hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{"content":"`)
	for i := 100; i < len(big); i++ {
		big[i] = 'x'
	}
	cases := []struct {
		name    string
		payload []byte
		env     map[string]string
		record  bool // a journal record is still written
	}{
		{"empty", nil, nil, false},
		{"malformed", []byte("{this is not json"), nil, false},
		{"binary", []byte{0xff, 0xfe, 0, 1, 2}, nil, false},
		{"50MB", big, nil, true},
		{"hostile session id", []byte(`{"session_id":"../../../escape","hook_event_name":"Stop"}`), nil, true},
		{"absolute session id", []byte(`{"session_id":"/tmp/cully-escape","hook_event_name":"Stop"}`), nil, true},
		{"panic", []byte(`{"session_id":"p","hook_event_name":"Stop"}`), map[string]string{"CULLY_FAULT": "panic"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			env := testEnv(t)
			for k, v := range c.env {
				env[k] = v
			}
			r := cully(t, env, c.payload, "hook")
			if r.code != 0 || r.stdout != "" {
				t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
			}
			if c.name != "hostile session id" && c.name != "absolute session id" {
				b, err := os.ReadFile(filepath.Join(env["CULLY_HOME"], "errors.log"))
				if err != nil || len(b) == 0 {
					t.Fatalf("no error record: %v", err)
				}
			}
			if got := len(journal(t, env["CULLY_HOME"])); (got == 1) != c.record {
				t.Errorf("journal records: %d", got)
			}
			assertOnlyState(t, env)
		})
	}
}

// assertOnlyState checks that the test dir holds nothing but the state dir.
func assertOnlyState(t *testing.T, env map[string]string) {
	t.Helper()
	ents, _ := os.ReadDir(env["PWD"])
	for _, e := range ents {
		if e.Name() != "state" {
			t.Errorf("created outside CULLY_HOME: %s", e.Name())
		}
	}
	if _, err := os.Stat("/tmp/cully-escape"); err == nil {
		t.Error("a session id escaped to /tmp")
	}
}

func TestHookStateDirMissingOrUnwritable(t *testing.T) {
	t.Parallel()
	raw, _ := os.ReadFile(filepath.Join(fixtures, "capture-sequence", "010-PreToolUse-Bash.json"))
	t.Run("missing", func(t *testing.T) {
		env := testEnv(t)
		env["CULLY_HOME"] = filepath.Join(env["PWD"], "state", "deep", "er")
		if r := cully(t, env, raw, "hook"); r.code != 0 || r.stdout != "" {
			t.Fatal(r)
		}
		if len(journal(t, env["CULLY_HOME"])) != 1 {
			t.Fatal("a missing state dir should be created")
		}
	})
	t.Run("unwritable", func(t *testing.T) {
		env := testEnv(t)
		blocker := filepath.Join(env["PWD"], "state")
		os.WriteFile(blocker, []byte("a file where the state dir should be"), 0o600)
		env["CULLY_HOME"] = filepath.Join(blocker, "home")
		r := cully(t, env, raw, "hook")
		if r.code != 0 || r.stdout != "" {
			t.Fatal(r)
		}
		if !strings.Contains(r.stderr, "cully hook:") {
			t.Errorf("with nowhere to log, the error goes to stderr: %q", r.stderr)
		}
	})
}

// A session lock held past CULLY_LOCK_TIMEOUT, even by a process cully
// takes for its own (this test's binary is named cully.test), loses
// nothing: after the whole wait the call is recorded without the lock,
// and the session's next call replays its state (store/unlocked.go).
func TestHookLockTimeout(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	env["CULLY_LOCK_TIMEOUT"] = "150ms"
	h := store.Home{Dir: env["CULLY_HOME"]}
	h.Ensure()
	lk, err := store.Acquire(h.StatePath("0e9b095a-15ce-4954-9bab-4ee72ac1d24e"), time.Second) // the fixtures' session
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(filepath.Join(fixtures, "capture-sequence", "026-PostToolUse-Edit.json"))
	if r := cully(t, env, raw, "hook"); r.code != 0 || r.stderr != "" {
		t.Fatal(r)
	}
	if b, err := os.ReadFile(h.ErrorsLog()); err == nil {
		t.Errorf("errors.log: %s", b)
	}
	evs := journal(t, env["CULLY_HOME"])
	if len(evs) != 1 || evs[0].Tool != "Edit" {
		t.Fatalf("journal: %+v", evs)
	}
	lk.Unlock()
	if st, err := h.ReadState(evs[0].Session, nil); err != nil || st.Events != 1 {
		t.Errorf("the state read once the lock is free: %+v %v", st, err)
	}
}

// `echo '{}' | cully-hook`, the troubleshooting tip (docs/claude-code.md),
// checks that the hook command runs: for every agent it exits 0 with no
// answer, no record and no line in errors.log. A payload that is not JSON
// is logged with the line and column where it goes wrong.
func TestHookEmptyObjectIsANoOp(t *testing.T) {
	t.Parallel()
	for _, ag := range agents.All() {
		for _, payload := range []string{"{}\n", " { \n } "} {
			env := testEnv(t)
			r := runBin(t, "cully-hook", env, []byte(payload), "--agent", ag.Name())
			if r.code != 0 || r.stdout != "" || r.stderr != "" {
				t.Errorf("%s: %q: exit %d, stdout %q, stderr %q", ag.Name(), payload, r.code, r.stdout, r.stderr)
			}
			if b, err := os.ReadFile(filepath.Join(env["CULLY_HOME"], "errors.log")); err == nil {
				t.Errorf("%s: %q: errors.log: %s", ag.Name(), payload, b)
			}
			if n := len(journal(t, env["CULLY_HOME"])); n != 0 {
				t.Errorf("%s: %q: %d journal records", ag.Name(), payload, n)
			}
		}
	}
	env := testEnv(t)
	r := runBin(t, "cully-hook", env, []byte("{\"session_id\": \"s1\",\n \"hook_event_name\": oops}"))
	b, _ := os.ReadFile(filepath.Join(env["CULLY_HOME"], "errors.log"))
	if r.code != 0 || !strings.Contains(string(b), "decode Claude Code payload: line 2, column 21: invalid character 'o' looking for beginning of value") {
		t.Errorf("invalid JSON: exit %d, errors.log %s", r.code, b)
	}
}
