package main

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"cully/internal/testbin"
)

// bin is the folder of the binaries TestMain built: cully-export, and
// cully-hook to write a journal as the hook does.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "cully-export-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := testbin.Build(dir, ".", "../cully-hook"); err != nil {
		fmt.Fprintln(os.Stderr, "build cully-export and cully-hook:", err)
		os.Exit(1)
	}
	bin = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// collector is a plain-HTTP OTLP receiver that counts the requests of
// each signal and accepts them all.
type collector struct {
	mu    sync.Mutex
	posts map[string]int
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	c.posts[r.URL.Path]++
	c.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.WriteHeader(http.StatusOK)
}

func (c *collector) count(path string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.posts[path]
}

type result struct {
	stdout, stderr string
	code           int
}

// run runs one of the built binaries with only the environment given.
func run(t *testing.T, env []string, stdin string, name string, args ...string) result {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, name), args...)
	cmd.Env = env
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{out.String(), errb.String(), code}
}

// stateWithCalls is a state dir whose journal holds what the hook records
// for a prompt and a tool call, and the environment that points at it.
func stateWithCalls(t *testing.T) []string {
	t.Helper()
	dir := t.TempDir()
	env := []string{"HOME=" + filepath.Join(dir, "home"), "CULLY_HOME=" + filepath.Join(dir, "state"), "CULLY_SNAPSHOTS=off", "PATH=" + os.Getenv("PATH")}
	for _, p := range []string{
		`{"session_id":"x1","hook_event_name":"UserPromptSubmit","prompt":"go","cwd":"/tmp"}`,
		`{"session_id":"x1","hook_event_name":"PreToolUse","tool_name":"Read","tool_use_id":"t1","tool_input":{"file_path":"/tmp/a.go"},"cwd":"/tmp"}`,
		`{"session_id":"x1","hook_event_name":"PostToolUse","tool_name":"Read","tool_use_id":"t1","tool_input":{"file_path":"/tmp/a.go"},"tool_response":{},"cwd":"/tmp"}`,
	} {
		if r := run(t, env, p, "cully-hook"); r.code != 0 {
			t.Fatalf("cully-hook: %+v", r)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "state", "journal.jsonl")); err != nil || bytes.Count(b, []byte("\n")) != 3 {
		t.Fatalf("journal: %v\n%s", err, b)
	}
	return env
}

// With no endpoint set, cully export sends to the local collector it names,
// http://localhost:4318, in plain HTTP as the name says (the OTLP
// exporters' own default is TLS, which a plain collector refuses).
func TestExportDefaultEndpointIsPlainHTTP(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:4318")
	if err != nil {
		t.Skipf("port 4318 is taken here (%v): the default endpoint cannot be tried", err)
	}
	c := &collector{posts: map[string]int{}}
	srv := httptest.NewUnstartedServer(c)
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	defer srv.Close()

	env := stateWithCalls(t)
	r := run(t, env, "", "cully-export", "--from", "start", "--once")
	if r.code != 0 || !strings.Contains(r.stderr, "cully export: to http://localhost:4318 (http/protobuf)") ||
		!strings.Contains(r.stdout, "exported 3 record(s) to http://localhost:4318 (http/protobuf)") {
		t.Fatalf("cully export --once: %+v", r)
	}
	if c.count("/v1/logs") == 0 || c.count("/v1/traces") == 0 {
		t.Errorf("the collector got %v", c.posts)
	}
}

// The first --once sends what the journal holds; the next says there is
// nothing new and succeeds; with no journal at all it fails and says why;
// --from end --once, which could send nothing, is refused.
func TestExportOnce(t *testing.T) {
	c := &collector{posts: map[string]int{}}
	srv := httptest.NewServer(c)
	defer srv.Close()
	env := append(stateWithCalls(t), "OTEL_EXPORTER_OTLP_ENDPOINT="+srv.URL)

	r := run(t, env, "", "cully-export", "--once")
	if r.code != 0 || !strings.Contains(r.stdout, "exported 3 record(s) to "+srv.URL) || !strings.Contains(r.stderr, "from the journal's start (the first export here)") {
		t.Fatalf("first --once: %+v", r)
	}
	if c.count("/v1/logs") == 0 {
		t.Errorf("the collector got %v", c.posts)
	}
	r = run(t, env, "", "cully-export", "--once")
	if r.code != 0 || !strings.Contains(r.stdout, "exported 0 records to "+srv.URL+" (http/protobuf): nothing new in the journal since the last export") {
		t.Errorf("second --once: %+v", r)
	}

	empty := t.TempDir()
	r = run(t, []string{"HOME=" + empty, "CULLY_HOME=" + filepath.Join(empty, "state"), "OTEL_EXPORTER_OTLP_ENDPOINT=" + srv.URL}, "", "cully-export", "--once")
	if r.code != 1 || !strings.Contains(r.stderr, "cully export: no journal in "+filepath.Join(empty, "state")+": no hook call has been recorded there, so nothing was sent") {
		t.Errorf("--once with no journal: %+v", r)
	}

	r = run(t, env, "", "cully-export", "--from", "end", "--once")
	if r.code != 2 || !strings.Contains(r.stderr, "--from end --once would send nothing") {
		t.Errorf("--from end --once: %+v", r)
	}
}
