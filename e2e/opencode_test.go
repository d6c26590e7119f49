//go:build e2e

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// opencodeVersion is the pinned opencode, the one the plugin was measured
// in (npm ships its binary in a platform package).
const opencodeVersion = "1.18.33"

var opencodeOnce struct {
	sync.Once
	path string
	err  error
}

// opencodeBin returns the pinned opencode binary, installing it from npm
// into the cache on first use ($CULLY_E2E_OPENCODE names one instead).
func opencodeBin(t *testing.T) string {
	opencodeOnce.Do(func() {
		if p := os.Getenv("CULLY_E2E_OPENCODE"); p != "" {
			opencodeOnce.path = p
			return
		}
		opencodeOnce.path, opencodeOnce.err = npmInstall("opencode-"+opencodeVersion, "opencode-ai@"+opencodeVersion,
			filepath.Join("node_modules", "opencode-ai", "bin", "opencode.exe"))
	})
	if opencodeOnce.err != nil {
		t.Fatalf("cannot get opencode %s: %v", opencodeVersion, opencodeOnce.err)
	}
	return opencodeOnce.path
}

// openaiMock serves a scripted OpenAI-compatible chat completions API on
// 127.0.0.1 (streaming): one tool call per assistant turn from the
// script, then a closing text; a request without tools (opencode's title
// generator) gets a title.
type openaiMock struct {
	script []toolCall
	url    string

	mu       sync.Mutex
	rebase   bool // then: the next request's turn is the new script's first
	base     int
	requests []map[string]any // requests with tools, in order
}

// then gives the mock a new script for a resumed session (mockAPI.then).
func (m *openaiMock) then(script []toolCall) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.script, m.rebase = script, true
}

func newOpenAIMock(t *testing.T, script []toolCall) *openaiMock {
	m := &openaiMock{script: script}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m.url = "http://" + ln.Addr().String() + "/v1"
	srv := &http.Server{Handler: http.HandlerFunc(m.serve)}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return m
}

func (m *openaiMock) serve(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	msgs, _ := body["messages"].([]any)
	turn := 0
	for _, x := range msgs {
		if mm, _ := x.(map[string]any); mm["role"] == "assistant" {
			turn++
		}
	}
	_, tools := body["tools"]
	m.mu.Lock()
	if tools && m.rebase {
		m.base, m.rebase = turn, false
	}
	turn -= m.base
	if tools {
		m.requests = append(m.requests, body)
	}
	n := len(m.requests)
	script := m.script
	m.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	send := func(delta map[string]any, finish any) {
		chunk := map[string]any{"id": fmt.Sprintf("chatcmpl-%d", n), "object": "chat.completion.chunk", "model": "mock-model",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
		if finish != nil {
			chunk["usage"] = map[string]any{"prompt_tokens": 1000 + n, "completion_tokens": 10, "total_tokens": 1010 + n}
		}
		b, _ := json.Marshal(chunk)
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	switch {
	case !tools:
		send(map[string]any{"role": "assistant", "content": "Scripted run"}, nil)
		send(map[string]any{}, "stop")
	case turn < len(script):
		args, _ := json.Marshal(script[turn].Input)
		send(map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"index": 0, "id": fmt.Sprintf("call_%d", n), "type": "function",
			"function": map[string]any{"name": script[turn].Name, "arguments": string(args)}}}}, nil)
		send(map[string]any{}, "tool_calls")
	default:
		send(map[string]any{"role": "assistant", "content": "Done."}, nil)
		send(map[string]any{}, "stop")
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// toolResults are the tool messages of a request: what the model is shown
// of each call's result.
func (m *openaiMock) count(i int, sub string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if i < 0 {
		i += len(m.requests)
	}
	if i < 0 || i >= len(m.requests) {
		return 0
	}
	n := 0
	msgs, _ := m.requests[i]["messages"].([]any)
	for _, x := range msgs {
		mm, _ := x.(map[string]any)
		if mm["role"] != "tool" {
			continue
		}
		b, _ := json.Marshal(mm["content"])
		var s string
		if json.Unmarshal(b, &s) != nil {
			s = string(b)
		}
		n += strings.Count(s, sub)
	}
	return n
}

func (m *openaiMock) firstWith(sub string) int {
	m.mu.Lock()
	n := len(m.requests)
	m.mu.Unlock()
	for i := 0; i < n; i++ {
		if m.count(i, sub) > 0 {
			return i
		}
	}
	return -1
}

// opencodeSession is one `opencode run` with cully's plugin installed by
// `cully install --agent opencode`, and an OpenAI-compatible provider
// pointed at the mock.
type opencodeSession struct {
	t                    *testing.T
	home, project, state string
	env                  []string
	api                  *openaiMock
}

func newOpencodeSession(t *testing.T, script []toolCall, extraEnv ...string) *opencodeSession {
	dir := t.TempDir()
	s := &opencodeSession{t: t, home: filepath.Join(dir, "home"), project: filepath.Join(dir, "project"), state: filepath.Join(dir, "state")}
	for _, d := range []string{s.home, s.project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s.api = newOpenAIMock(t, script)
	cfg := map[string]any{
		"provider": map[string]any{"mock": map[string]any{"npm": "@ai-sdk/openai-compatible", "name": "Mock",
			"options": map[string]any{"baseURL": s.api.url, "apiKey": "e2e-test-key-not-real"},
			"models":  map[string]any{"mock-model": map[string]any{"name": "Mock model", "tool_call": true}}}},
		"model":      "mock/mock-model",
		"permission": map[string]any{"bash": "allow", "edit": "allow", "external_directory": "allow"},
	}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	if err := os.WriteFile(filepath.Join(s.project, "opencode.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	s.env = append([]string{"HOME=" + s.home, "PATH=" + os.Getenv("PATH"), "CULLY_HOME=" + s.state, "CULLY_SNAPSHOTS=off",
		"OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_SHARE=1"}, extraEnv...)
	return s
}

func (s *opencodeSession) install() {
	cmd := exec.Command(filepath.Join(binDir, "cully"), "install", "--agent", "opencode", "--command", filepath.Join(binDir, "cully-hook"))
	cmd.Env, cmd.Dir = s.env, s.project
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "plugins/cully.js: created") {
		s.t.Fatalf("cully install --agent opencode: %v\n%s", err, out)
	}
}

func (s *opencodeSession) run() {
	cmd := exec.Command(opencodeBin(s.t), "run", "Do the scripted steps.")
	cmd.Env, cmd.Dir, cmd.Stdin = s.env, s.project, nil
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil || !strings.Contains(out.String(), "Done.") {
			s.t.Fatalf("opencode: %v\nstderr: %s\nstdout: %s", err, tail(errb.String(), 3000), tail(out.String(), 2000))
		}
	case <-time.After(4 * time.Minute):
		cmd.Process.Kill()
		s.t.Fatalf("opencode did not finish\nstderr: %s", tail(errb.String(), 3000))
	}
}

func (s *opencodeSession) journal() []map[string]any {
	b, err := os.ReadFile(filepath.Join(s.state, "journal.jsonl"))
	if err != nil {
		s.t.Fatalf("no journal: %v", err)
	}
	var out []map[string]any
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			s.t.Fatalf("journal line: %v", err)
		}
		out = append(out, m)
	}
	return out
}

// In the real opencode, the plugin install wrote forwards every call: the
// blind-retry guard raised before the third identical failing command
// reaches the model exactly once, appended to that call's result (the
// plugin cannot speak before a call), with the failure-loop checkpoint the
// third failure raised. A read that throws (a missing file) is recorded
// as a failed call from the session's events, since opencode runs no
// tool.execute.after for it.
func TestOpencodeThirdAttemptGuard(t *testing.T) {
	const cmd = "ls /nonexistent-cully-e2e-dir"
	const marker = "failed on its last 2 runs"
	bash := toolCall{"bash", map[string]any{"command": cmd, "description": "e2e step"}}
	s := newOpencodeSession(t, nil)
	s.api.script = []toolCall{bash, bash, bash, {"read", map[string]any{"filePath": filepath.Join(s.project, "missing.txt")}}}
	s.install()
	s.run()
	if got := s.api.firstWith(marker); got != 3 {
		t.Errorf("guard first reached the model in request %d, want 3 (after the third call)", got)
	}
	if n := s.api.count(-1, "cully: `"+cmd+"` "+marker); n != 1 {
		t.Errorf("guard shown %d times in the last request, want exactly 1", n)
	}
	if n := s.api.count(-1, "cully checkpoint c1 (failure-loop)"); n != 1 {
		t.Errorf("failure-loop checkpoint shown %d times, want 1", n)
	}
	seen := map[string]int{}
	for _, r := range s.journal() {
		h, _ := r["hook"].(string)
		seen[h]++
		switch {
		case h == "tool.execute.after" && (r["outcome"] != "failed" || r["exit"] != float64(2)):
			t.Errorf("the failing ls is recorded as %v (exit %v)", r["outcome"], r["exit"])
		case h == "tool.error" && (r["outcome"] != "failed" || r["tool"] != "read"):
			t.Errorf("the thrown read is recorded as %v", r)
		}
	}
	if seen["tool.execute.before"] != 4 || seen["tool.execute.after"] != 3 || seen["tool.error"] != 1 || seen["chat.message"] != 1 || seen["session.idle"] < 1 {
		t.Errorf("journal records by event: %v", seen)
	}
}
