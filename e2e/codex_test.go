//go:build e2e

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"cully/install"
)

// codexVersion is the pinned Codex CLI, the one the captured payloads in
// hookbridge/codex/testdata came from.
const codexVersion = "0.171.0"

var (
	codexOnce sync.Once
	codexBin  string
	codexErr  error
)

// needCodex returns the pinned codex binary, installing @openai/codex from
// npm into the cache on first use ($CULLY_E2E_CODEX names one to use
// instead).
func needCodex(t *testing.T) string {
	codexOnce.Do(func() { codexBin, codexErr = ensureCodex() })
	if codexErr != nil {
		t.Fatalf("cannot get the Codex client: %v", codexErr)
	}
	return codexBin
}

func ensureCodex() (string, error) {
	if p := os.Getenv("CULLY_E2E_CODEX"); p != "" {
		return p, nil
	}
	cache := os.Getenv("CULLY_E2E_CACHE")
	if cache == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		cache = filepath.Join(home, ".cache", "cully-e2e")
	}
	dir := filepath.Join(cache, "codex-"+codexVersion)
	find := func() string {
		m, _ := filepath.Glob(filepath.Join(dir, "node_modules", "@openai", "codex-*", "vendor", "*", "bin", "codex"))
		if len(m) == 0 {
			return ""
		}
		return m[0]
	}
	if bin := find(); bin != "" {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	cmd := exec.Command("npm", "install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", dir, "@openai/codex@"+codexVersion)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm install: %v\n%s", err, out)
	}
	bin := find()
	if bin == "" {
		return "", fmt.Errorf("installed, but no codex binary for this platform under %s", dir)
	}
	return bin, nil
}

// responsesAPI serves a scripted OpenAI Responses API on 127.0.0.1:
// streaming SSE, one exec_command call per model turn from the script,
// then a closing message. Every request body is logged.
type responsesAPI struct {
	t      *testing.T
	script []string // shell commands, one per turn
	url    string

	mu       sync.Mutex
	rebase   bool // then: the next request's turn is the new script's first
	base     int
	requests []map[string]any
	issued   []string
}

// then gives the mock a new script for a resumed session (mockAPI.then).
func (m *responsesAPI) then(script []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.script, m.rebase = script, true
}

func newResponsesAPI(t *testing.T, script []string) *responsesAPI {
	m := &responsesAPI{t: t, script: script}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m.url = "http://" + ln.Addr().String() + "/v1"
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/responses", m.responses)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		http.NotFound(w, r)
	})
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return m
}

func (m *responsesAPI) responses(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	// The turn is the number of call outputs so far: one call per turn.
	turn := 0
	input, _ := body["input"].([]any)
	for _, x := range input {
		if it, _ := x.(map[string]any); it["type"] == "function_call_output" || it["type"] == "custom_tool_call_output" {
			turn++
		}
	}
	m.mu.Lock()
	if m.rebase {
		m.base, m.rebase = turn, false
	}
	turn -= m.base
	m.requests = append(m.requests, body)
	n := len(m.requests)
	var cmd, id string
	if turn < len(m.script) {
		cmd, id = m.script[turn], fmt.Sprintf("call_e2e_%02d_%d", turn, n)
		m.issued = append(m.issued, id)
	}
	m.mu.Unlock()

	w.Header().Set("Content-Type", "text/event-stream")
	fl, _ := w.(http.Flusher)
	send := func(data map[string]any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", data["type"], b)
		if fl != nil {
			fl.Flush()
		}
	}
	respID := fmt.Sprintf("resp_e2e_%d", n)
	send(map[string]any{"type": "response.created", "response": map[string]any{"id": respID}})
	var item map[string]any
	if id != "" {
		args, _ := json.Marshal(map[string]any{"cmd": cmd})
		item = map[string]any{"type": "function_call", "id": "fc_" + id, "call_id": id, "name": "exec_command", "arguments": string(args)}
	} else {
		item = map[string]any{"type": "message", "id": fmt.Sprintf("msg_e2e_%d", n), "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": "Done.", "annotations": []any{}}}}
	}
	send(map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	send(map[string]any{"type": "response.completed", "response": map[string]any{"id": respID,
		"usage": map[string]any{"input_tokens": 1000 + n, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": 10, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 1010 + n}}})
}

// developerTexts are the developer messages of a request's input: where
// Codex puts a hook's additionalContext.
func developerTexts(req map[string]any) []string {
	var out []string
	input, _ := req["input"].([]any)
	for _, x := range input {
		it, _ := x.(map[string]any)
		if it["type"] != "message" || it["role"] != "developer" {
			continue
		}
		content, _ := it["content"].([]any)
		for _, c := range content {
			if cm, _ := c.(map[string]any); cm != nil {
				if s, ok := cm["text"].(string); ok {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// allTexts is every text of a request's input, whatever its role.
func allTexts(req map[string]any) string {
	b, _ := json.Marshal(req["input"])
	return string(b)
}

func (m *responsesAPI) firstWith(sub string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, r := range m.requests {
		for _, s := range developerTexts(r) {
			if strings.Contains(s, sub) {
				return i
			}
		}
	}
	return -1
}

// countIn counts the developer messages of the last request that carry sub.
func (m *responsesAPI) countIn(sub string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.requests) == 0 {
		return 0
	}
	n := 0
	for _, s := range developerTexts(m.requests[len(m.requests)-1]) {
		n += strings.Count(s, sub)
	}
	return n
}

// codexSession is one `codex exec` run with cully installed into a
// throwaway CODEX_HOME by `cully install --agent codex`.
type codexSession struct {
	t                        *testing.T
	home, codexHome, project string
	state                    string
	env                      []string
	api                      *responsesAPI
	out                      string
	elapsed                  time.Duration
}

func newCodexSession(t *testing.T, script []string) *codexSession {
	bin := needCodex(t)
	dir := t.TempDir()
	s := &codexSession{t: t, home: filepath.Join(dir, "home"), project: filepath.Join(dir, "project"), state: filepath.Join(dir, "state")}
	s.codexHome = filepath.Join(s.home, ".codex")
	for _, d := range []string{s.home, s.codexHome, s.project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s.api = newResponsesAPI(t, script)
	// model: a slug of the bundled catalog, so Codex offers its usual tools.
	config := fmt.Sprintf(`model = "gpt-5.5"
model_provider = "mock"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[model_providers.mock]
name = "mock"
base_url = %q
wire_api = "responses"
env_key = "MOCK_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[features]
hooks = true
plugins = false
apps = false
remote_plugin = false

[analytics]
enabled = false
`, s.api.url)
	if err := os.WriteFile(filepath.Join(s.codexHome, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	s.env = []string{
		"HOME=" + s.home, "CODEX_HOME=" + s.codexHome, "CULLY_HOME=" + s.state, "CULLY_SNAPSHOTS=off", "MOCK_API_KEY=sk-e2e-not-real",
		// codex on PATH, so cully install can ask it to trust the hooks.
		"PATH=" + filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH"),
		// The user's terminal's shell. Codex runs hook commands through
		// a shell of its own choosing (the login shell, from the password
		// database), not this one: TestCodexRunsHooksWhateverSHELLSays.
		"SHELL=" + bashPath(t),
	}
	return s
}

func (s *codexSession) install() {
	cmd := exec.Command(filepath.Join(binDir, "cully"), "install", "--agent", "codex", "--command", filepath.Join(binDir, "cully-hook"))
	cmd.Env = s.env
	cmd.Dir = s.project
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.t.Fatalf("cully install --agent codex: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "codex: trusted cully's 9 hook entries") {
		s.t.Fatalf("cully install did not have Codex trust its hooks:\n%s", out)
	}
	// The hook's environment goes before the command (this user's login
	// shell is not PowerShell), which Codex's shell then runs: what the
	// tests then find in the journal and in the model's requests shows that
	// every call ran.
	want := `"command": "` + install.HookEnv + " " + filepath.Join(binDir, "cully-hook") + ` --agent codex"`
	b, err := os.ReadFile(filepath.Join(s.codexHome, "hooks.json"))
	if err != nil || bytes.Count(b, []byte(want)) != 9 {
		s.t.Fatalf("the installed hook commands are not %s: %v\n%s", want, err, b)
	}
}

// bashPath is bash's path, which Codex is given as the user's shell.
func bashPath(t *testing.T) string {
	p, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash here")
	}
	return p
}

// run runs `codex exec` to the end of the script, without any flag that
// bypasses hook trust: the hooks run because Codex trusts them.
func (s *codexSession) run() {
	cmd := exec.Command(needCodex(s.t), "exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "Do the scripted steps.")
	cmd.Env = s.env
	cmd.Dir = s.project
	cmd.Stdin = nil
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		s.elapsed = time.Since(start)
		if err != nil {
			s.t.Fatalf("codex exec: %v\nstderr: %s\nstdout: %s", err, tail(errb.String(), 3000), tail(out.String(), 3000))
		}
	case <-time.After(4 * time.Minute):
		cmd.Process.Kill()
		s.t.Fatalf("codex exec did not finish\nstderr: %s", tail(errb.String(), 3000))
	}
	s.out = out.String()
	if !strings.Contains(s.out, `"type":"turn.completed"`) {
		s.t.Fatalf("codex exec did not complete its turn:\n%s\nstderr: %s", tail(s.out, 3000), tail(errb.String(), 3000))
	}
}

func (s *codexSession) journal() []map[string]any {
	b, err := os.ReadFile(filepath.Join(s.state, "journal.jsonl"))
	if err != nil {
		s.t.Fatalf("no journal: %v", err)
	}
	var out []map[string]any
	for _, l := range bytes.Split(bytes.TrimSpace(b), []byte{'\n'}) {
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			s.t.Fatalf("journal line: %v", err)
		}
		out = append(out, m)
	}
	return out
}

// In the real Codex client, with cully installed and trusted by `cully
// install --agent codex`: the exit codes come from the rollout (no hook
// payload has them), so the blind-retry guard reaches the model before the
// third identical failing command, and the failure-loop checkpoint after
// it; each arrives as a developer message of its own, exactly once.
func TestCodexGuardAndCheckpointReachModelOnce(t *testing.T) {
	const cmd = "ls /nonexistent-cully-e2e-dir"
	s := newCodexSession(t, []string{cmd, cmd, cmd, "echo done"})
	s.install()
	s.run()

	const guard = "failed on its last 2 runs"
	const checkpoint = "cully checkpoint c1 (failure-loop)"
	if got := s.api.firstWith(guard); got != 3 {
		t.Errorf("guard first reached the model in request %d, want 3 (before the third run's output)", got)
	}
	if n := s.api.countIn(guard); n != 1 {
		t.Errorf("guard shown %d times in the last request, want exactly 1", n)
	}
	if got := s.api.firstWith(checkpoint); got != 4 {
		t.Errorf("checkpoint first reached the model in request %d, want 4 (before the fourth call's output)", got)
	}
	if n := s.api.countIn(checkpoint); n != 1 {
		t.Errorf("checkpoint shown %d times in the last request, want exactly 1", n)
	}
	// Nothing of cully's reaches the model any other way.
	last := s.api.requests[len(s.api.requests)-1]
	if got, want := strings.Count(allTexts(last), guard), 1; got != want {
		t.Errorf("the guard's text is %d times in the last request, want %d (as its developer message only)", got, want)
	}

	posts, pres := map[string]map[string]any{}, map[string]int{}
	var usage map[string]any
	for _, r := range s.journal() {
		if r["agent"] != "codex" {
			t.Errorf("record of agent %v", r["agent"])
		}
		id, _ := r["tool_use_id"].(string)
		switch r["hook"] {
		case "PostToolUse":
			posts[id] = r
		case "PreToolUse":
			pres[id]++
		}
		if u, ok := r["usage"].(map[string]any); ok {
			usage = u
		}
	}
	if len(s.api.issued) != 4 || len(posts) != 4 || len(pres) != 4 {
		t.Fatalf("issued %d calls, journal has %d post and %d pre records", len(s.api.issued), len(posts), len(pres))
	}
	for i, id := range s.api.issued {
		p := posts[id]
		want := 2.0 // ls of a missing folder
		if i == 3 {
			want = 0
		}
		if p["exit"] != want {
			t.Errorf("call %s: exit %v (outcome %v, note %v), want %v from the rollout", id, p["exit"], p["outcome"], p["note"], want)
		}
	}
	if usage == nil || usage["input_tokens"] == nil || usage["context_window"] == nil || usage["model"] != "gpt-5.5" {
		t.Errorf("the token counts from the rollout are not in the journal: %v", usage)
	}
	t.Logf("4 tool calls in %v with cully; usage %v", s.elapsed, usage)
}

// Codex 0.171 runs hook commands with its session's shell (the login shell
// when Codex knows it as bash, zsh or sh, else bash), not $SHELL: with $SHELL
// naming tcsh (which refuses -lc), every hook still runs, with
// the hook's environment before its command, as install writes it for a
// user whose login shell is of the sh family.
func TestCodexRunsHooksWhateverSHELLSays(t *testing.T) {
	s := newCodexSession(t, []string{"ls /nonexistent-cully-e2e-dir", "echo done"})
	for i, kv := range s.env {
		if strings.HasPrefix(kv, "SHELL=") {
			s.env[i] = "SHELL=/usr/bin/tcsh"
		}
	}
	s.install()
	s.run()
	pre, post := 0, 0
	for _, r := range s.journal() {
		switch r["hook"] {
		case "PreToolUse":
			pre++
		case "PostToolUse":
			post++
		}
	}
	if pre != 2 || post != 2 {
		t.Fatalf("journal has %d pre and %d post records for 2 calls under SHELL=/usr/bin/tcsh", pre, post)
	}
}
