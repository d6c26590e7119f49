package main

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	collogs "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"

	"cully/internal/testbin"
	"cully/redact"
	"cully/redact/secretcorpus"
)

// corpusFile is redaction's regression corpus: every secret shape ever
// found, by family.
const corpusFile = "../../redact/testdata/secrets.txt"

// surfaceText collects, per surface, everything the real binaries showed
// or stored while the corpus went through them.
type surfaceText map[string]*strings.Builder

func (s surfaceText) add(name, text string) {
	b := s[name]
	if b == nil {
		b = new(strings.Builder)
		s[name] = b
	}
	b.WriteString(text)
	if !strings.HasSuffix(text, "\n") {
		b.WriteByte('\n')
	}
}

// TestSecretCorpusEverySurface sends the corpus's cases (every one with
// CULLY_LONG_TESTS=1, an eighth of each family by default) through the
// real binaries as an agent would (a prompt, the command run and failing
// three times with the command in its error, the file read) and reads
// every surface back: the journal, the session state and every other file
// in the state dir, the hook's answers (the nudge), status and its JSON,
// the panel, replay of a transcript holding them, the ledger, the
// advisor's prompt, the OTLP payload cully export sends, and the path
// lists of snapshots and rollback. No surface may hold a corpus secret
// (the value, or any word of it of 8 bytes or more), and cully's own
// redaction run over each surface must find nothing left to redact.
//
// With CULLY_SURFACES_DIR set it also writes each surface there, one file
// each, for tools/secretscan's independent detector to judge.
func TestSecretCorpusEverySurface(t *testing.T) {
	t.Parallel()
	cases, err := secretcorpus.Load(corpusFile)
	if err != nil {
		t.Fatal(err)
	}
	env := testEnv(t)
	dir := env["PWD"]
	prompts := filepath.Join(dir, "prompts")
	os.MkdirAll(prompts, 0o700)
	worker := filepath.Join(dir, "worker.sh")
	os.WriteFile(worker, []byte("#!/bin/sh\ncat > \"$(mktemp \""+prompts+"/p.XXXXXX\")\"\necho 'run the failing command alone'\n"), 0o700)
	cfg := filepath.Join(dir, "config.toml")
	os.WriteFile(cfg, []byte(fmt.Sprintf("[advisor]\ncommand = [%q]\n", worker)), 0o600)
	env["CULLY_CONFIG"] = cfg
	hookEnv := map[string]string{"CULLY_ADVISOR_WORKER": "1"} // the hooks start no advisor of their own
	for k, v := range env {
		hookEnv[k] = v
	}
	out := surfaceText{}
	hook := func(p map[string]any) string {
		t.Helper()
		p["cwd"], p["transcript_path"] = dir, filepath.Join(dir, "t.jsonl")
		body, _ := json.Marshal(p)
		r := runBin(t, "cully-hook", hookEnv, body)
		if r.code != 0 {
			t.Fatalf("cully-hook: %+v", r)
		}
		return r.stdout
	}
	run := func(surface string, args ...string) {
		t.Helper()
		r := cully(t, env, nil, args...)
		if r.code != 0 {
			t.Fatalf("cully %s: exit %d: %s", strings.Join(args, " "), r.code, r.stderr)
		}
		out.add(surface, r.stdout+r.stderr)
	}

	var transcript bytes.Buffer
	line := func(m map[string]any) { b, _ := json.Marshal(m); transcript.Write(b); transcript.WriteByte('\n') }
	ts := func(n int) string { return fmt.Sprintf("2026-11-30T%02d:%02d:%02d.000Z", 10+n/3600, n/60%60, n%60) }
	calls := 0
	var paths []secretcorpus.Case
	var sessions []string
	// Every case with CULLY_LONG_TESTS=1 (CI) and for tools/secretscan
	// (CULLY_SURFACES_DIR); by default every eighth case of each family,
	// its first included: each family through every surface, at an eighth
	// of the 760 hook processes. Every case's secret is still looked for
	// in every surface.
	every := 8
	if longTests() || os.Getenv("CULLY_SURFACES_DIR") != "" {
		every = 1
	}
	inFamily := map[string]int{}
	n := 0
	for _, c := range cases {
		if !c.Secret() {
			continue
		}
		if c.Path() {
			paths = append(paths, c)
			continue
		}
		k := inFamily[c.Family]
		inFamily[c.Family]++
		if k%every != 0 {
			continue
		}
		// Sessions of groupSize cases, each case a task of its own: the
		// panel keeps 100 rows a session, status lists every checkpoint.
		id := fmt.Sprintf("sec-%02d", n/groupSize)
		if n%groupSize == 0 {
			sessions = append(sessions, id)
		}
		n++
		hook(map[string]any{"session_id": id, "hook_event_name": "UserPromptSubmit", "prompt": "run this: " + c.In})
		// Two failures, then the third attempt: its pre-tool answer is
		// the nudge quoting the command, its failure opens a checkpoint.
		for i, ev := range []string{"PostToolUseFailure", "PostToolUseFailure", "PreToolUse", "PostToolUseFailure"} {
			use := fmt.Sprintf("toolu_%d_%d", c.Line, min(i, 2))
			in := map[string]any{"command": c.In}
			out.add("nudge", hook(map[string]any{"session_id": id, "hook_event_name": ev, "tool_name": "Bash", "tool_input": in,
				"tool_use_id": use, "error": "Exit code 1\nfailed: " + c.In, "is_interrupt": false}))
			if ev == "PreToolUse" {
				continue
			}
			calls++
			line(map[string]any{"type": "assistant", "sessionId": "replay-secrets", "cwd": dir, "timestamp": ts(2 * calls),
				"message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": use, "name": "Bash", "input": in}}}})
			line(map[string]any{"type": "user", "sessionId": "replay-secrets", "cwd": dir, "timestamp": ts(2*calls + 1),
				"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": use, "is_error": true, "content": "Exit code 1\nfailed: " + c.In}}}})
		}
		if n%2 == 0 {
			run("advise", "advise", "--session", id, "--yes") // its prompt lists the last 8 calls: these two cases'
		}
	}
	run("advise", "advise", "--session", sessions[len(sessions)-1], "--yes")
	for _, id := range sessions {
		run("status", "status", "--session", id)
		run("status --json", "status", "--json", "--session", id)
		out.add("panel", panelScreen(t, env, id))
	}
	for i, c := range paths {
		use := fmt.Sprintf("toolu_path_%d", i)
		in := map[string]any{"file_path": c.In}
		hook(map[string]any{"session_id": "sec-paths", "hook_event_name": "PreToolUse", "tool_name": "Read", "tool_input": in, "tool_use_id": use})
		hook(map[string]any{"session_id": "sec-paths", "hook_event_name": "PostToolUse", "tool_name": "Read", "tool_input": in, "tool_use_id": use,
			"tool_response": map[string]any{"type": "text", "file": map[string]any{"filePath": c.In, "content": "x"}}})
		calls++
		line(map[string]any{"type": "assistant", "sessionId": "replay-secrets", "cwd": dir, "timestamp": ts(2 * calls),
			"message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": use, "name": "Read", "input": in}}}})
	}
	run("status", "status", "--session", "sec-paths")
	run("status --json", "status", "--json", "--session", "sec-paths")
	run("status --rebuild", "status", "--rebuild")
	run("ledger", "ledger")
	run("ledger --json", "ledger", "--json")
	tr := filepath.Join(dir, "transcript.jsonl")
	os.WriteFile(tr, transcript.Bytes(), 0o600)
	run("replay", "replay", tr)
	run("replay --json", "replay", "--json", tr)
	out.add("otlp", otlpPayload(t, env))
	snapshotLists(t, cases, out)

	// Every file cully wrote in its state dir: the journal, session
	// state, the advisor's budget and ledger, errors.log.
	stateFiles(t, env["CULLY_HOME"], out)
	files, _ := filepath.Glob(filepath.Join(prompts, "p.*"))
	if len(files) == 0 {
		t.Fatal("the advisor's worker got no prompt")
	}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		out.add("advisor prompt", string(b))
	}

	want := []string{"journal", "state", "state-dir", "nudge", "status", "status --json", "status --rebuild", "panel", "replay",
		"replay --json", "ledger", "ledger --json", "advise", "advisor prompt", "otlp", "snapshots", "rollback --dry-run --json"}
	checkSurfaces(t, cases, out, want)
	if d := os.Getenv("CULLY_SURFACES_DIR"); d != "" {
		for name, b := range out {
			if err := os.WriteFile(filepath.Join(d, strings.NewReplacer(" ", "_", "-", "").Replace(name)+".txt"), []byte(b.String()), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// checkSurfaces fails for every corpus secret a surface holds and for
// every line of a surface cully's own redaction would still change.
func checkSurfaces(t *testing.T, cases []secretcorpus.Case, out surfaceText, want []string) {
	t.Helper()
	for _, name := range want {
		if out[name] == nil || strings.TrimSpace(out[name].String()) == "" {
			t.Errorf("surface %s: nothing read", name)
		}
	}
	names := make([]string, 0, len(out))
	for n := range out {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		text := out[name].String()
		for _, c := range cases {
			for _, leak := range c.Leaks(text) {
				t.Errorf("%s holds %q, a secret of secrets.txt:%d (%s)", name, leak, c.Line, c.Family)
			}
		}
		for _, ln := range textStrings(text) {
			if found := redactionFinds(ln); len(found) > 0 {
				t.Errorf("%s: cully's redaction still finds %q in %q", name, found, clip(ln))
			}
		}
	}
}

// redactionFinds returns what cully's redaction would still take out of a
// line a surface shows: each piece Redact replaces, less the markers
// already in it, when it has 6 letters or digits or more. A marker's
// neighbour taken with it (a path's /data.csv after token=[REDACTED],
// read as a command) is no finding.
func redactionFinds(ln string) []string {
	r := redact.Text(ln)
	if r == ln {
		return nil
	}
	segs := strings.Split(r, secretcorpus.Marker)
	var found []string
	at := len(segs[0])
	for _, seg := range segs[1:] {
		k := strings.Index(ln[at:], seg)
		if seg == "" {
			k = len(ln) - at
		}
		if k < 0 {
			return []string{ln[at:]}
		}
		piece := ln[at : at+k]
		after := strings.HasPrefix(piece, secretcorpus.Marker)
		piece = strings.ReplaceAll(piece, secretcorpus.Marker, "")
		if after && strings.HasPrefix(piece, "/") {
			piece = ""
		}
		n := 0
		for i := 0; i < len(piece); i++ {
			if c := piece[i]; c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
				n++
			}
		}
		if n >= 6 {
			found = append(found, piece)
		}
		at += k + len(seg)
	}
	return found
}

// textStrings returns what a surface says as text: the string values of
// JSON (a document or JSON lines, unescaped as a reader sees them), else
// its lines.
func textStrings(text string) []string {
	var out []string
	dec := json.NewDecoder(strings.NewReader(text))
	for {
		var v any
		if err := dec.Decode(&v); err == io.EOF {
			return out
		} else if err != nil {
			break
		}
		out = appendStrings(out, v)
	}
	// Text, or a binary file (session state: JSON in a framed file): the
	// JSON objects in it, and the printable runs between them.
	out = out[:0]
	rest := text
	for {
		k := strings.Index(rest, `{"`)
		if k < 0 {
			break
		}
		dec := json.NewDecoder(strings.NewReader(rest[k:]))
		var v map[string]any
		if dec.Decode(&v) != nil {
			out = append(out, printable(rest[:k+2])...)
			rest = rest[k+2:]
			continue
		}
		out = append(out, printable(rest[:k])...)
		out = appendStrings(out, v)
		rest = rest[k+int(dec.InputOffset()):]
	}
	return append(out, printable(rest)...)
}

func printable(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r < 0x20 && r != '\t' || r == 0x7f || r == utf8.RuneError })
}

func appendStrings(out []string, v any) []string {
	switch v := v.(type) {
	case string:
		return append(out, strings.Split(v, "\n")...)
	case []any:
		for _, x := range v {
			out = appendStrings(out, x)
		}
	case map[string]any:
		for k, x := range v {
			out = append(out, k)
			out = appendStrings(out, x)
		}
	}
	return out
}

var exportOnce sync.Once

// otlpHexIDs writes the trace and span ids of an OTLP JSON payload in hex,
// as OTLP/JSON does (protojson writes bytes in base64).
func otlpHexIDs(j []byte) []byte {
	var v any
	if json.Unmarshal(j, &v) != nil {
		return j
	}
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && (k == "traceId" || k == "spanId" || k == "parentSpanId") {
					if b, err := base64.StdEncoding.DecodeString(s); err == nil {
						v[k] = hex.EncodeToString(b)
					}
					continue
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(v)
	out, _ := json.Marshal(v)
	return out
}

// otlpPayload runs cully export --once against a loopback OTLP/HTTP
// receiver and returns what it was sent, as JSON.
func otlpPayload(t *testing.T, env map[string]string) string {
	t.Helper()
	exportOnce.Do(func() {
		if err := testbin.Build(testBin, "../cully-export"); err != nil {
			t.Fatalf("build cully-export: %v", err)
		}
	})
	var mu sync.Mutex
	var got strings.Builder
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			z, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), 400)
				return
			}
			body = z
		}
		b, _ := io.ReadAll(body)
		var msg proto.Message
		switch r.URL.Path {
		case "/v1/logs":
			msg = &collogs.ExportLogsServiceRequest{}
		case "/v1/traces":
			msg = &coltrace.ExportTraceServiceRequest{}
		default:
			http.NotFound(w, r)
			return
		}
		if err := proto.Unmarshal(b, msg); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		j, _ := protojson.Marshal(msg)
		j = otlpHexIDs(j)
		mu.Lock()
		got.Write(j)
		got.WriteByte('\n')
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(200)
	}))
	defer srv.Close()
	e := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL, "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"}
	for k, v := range env {
		e[k] = v
	}
	if r := cully(t, e, nil, "export", "--once", "--from", "start"); r.code != 0 {
		t.Fatalf("cully export: %+v", r)
	}
	mu.Lock()
	defer mu.Unlock()
	if got.Len() == 0 {
		t.Fatal("cully export sent nothing")
	}
	return got.String()
}

// groupSize is how many corpus cases share a session: 3 calls each stay
// within the 100 rows the panel keeps a session.
const groupSize = 30

// panelScreen shows a session in the real panel, in a terminal wide
// enough for a whole preview.
func panelScreen(t *testing.T, env map[string]string, id string) string {
	t.Helper()
	p := newTmux(t, 250, 120, env, "panel", "--session", id)
	p.waitFor("Recent", 20*time.Second)
	start := time.Now()
	for time.Since(start) < 20*time.Second { // a hang bound, not a timing
		if sc := p.screen(); !strings.Contains(sc, "no tool calls in the journal read yet") {
			return sc
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the panel never showed session %s's calls:\n%s", id, p.screen())
	return ""
}

// snapshotLists runs a session whose calls write files named by the
// corpus's paths inside a repository with snapshots on, and reads the path
// lists of snapshots and a rollback's dry run.
func snapshotLists(t *testing.T, cases []secretcorpus.Case, out surfaceText) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	env := testEnv(t)
	repo := filepath.Join(env["PWD"], "repo")
	env["CLAUDE_PROJECT_DIR"], env["PWD"], env["CULLY_SNAPSHOTS"] = repo, repo, "on"
	git := func(args ...string) {
		t.Helper()
		c := exec.Command("git", append([]string{"-C", repo, "-c", "user.email=t@example.com", "-c", "user.name=t", "-c", "maintenance.auto=false"}, args...)...)
		if b, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, b)
		}
	}
	os.MkdirAll(repo, 0o755)
	git("init", "-q")
	os.WriteFile(filepath.Join(repo, "README"), []byte("x\n"), 0o644)
	git("add", "-A")
	git("commit", "-qm", "init")
	hook := func(p map[string]any) {
		t.Helper()
		p["session_id"], p["cwd"], p["transcript_path"] = "sec-snap", repo, filepath.Join(repo, "t.jsonl")
		body, _ := json.Marshal(p)
		if r := runBin(t, "cully-hook", env, body); r.code != 0 {
			t.Fatalf("cully-hook: %+v", r)
		}
	}
	wait := func() {
		t.Helper()
		if r := cully(t, env, nil, "snapshot", "--wait"); r.code != 0 {
			t.Fatalf("cully snapshot --wait: %+v", r)
		}
	}
	hook(map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "write the files"})
	wait()
	n := 0
	for _, c := range cases {
		if c.Kind != "path" {
			continue
		}
		rel := strings.TrimLeft(c.In, "/")
		in := map[string]any{"command": "touch " + rel}
		use := fmt.Sprintf("toolu_snap_%d", n)
		n++
		hook(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": in, "tool_use_id": use})
		wait()
		f := filepath.Join(repo, rel)
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(f, []byte("x\n"), 0o644)
		hook(map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": in, "tool_use_id": use,
			"tool_response": map[string]any{"stdout": "", "stderr": "", "interrupted": false}})
		wait()
	}
	for _, args := range [][]string{{"snapshots"}, {"rollback", "--dry-run", "--json"}} {
		r := cully(t, env, nil, args...)
		out.add(strings.Join(args, " "), r.stdout+r.stderr)
	}
	stateFiles(t, env["CULLY_HOME"], out)
}

// stateFiles reads every file of a state dir but the content store's git
// (stores/, and each run's git index): they are the copy of the
// repository a rollback puts back, file names and all; secret files
// themselves are never copied (rc_secrets.txtar).
func stateFiles(t *testing.T, home string, out surfaceText) {
	t.Helper()
	filepath.WalkDir(home, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if d.Name() == "stores" {
				return filepath.SkipDir
			}
			return nil
		}
		if rel, _ := filepath.Rel(home, p); strings.HasPrefix(rel, "runs"+string(filepath.Separator)) && (d.Name() == "index" || d.Name() == "index.seed") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		name := "state-dir"
		switch {
		case d.Name() == "journal.jsonl":
			name = "journal"
		case strings.HasSuffix(p, ".state"):
			name = "state"
		}
		out.add(name, "# "+d.Name()+"\n"+string(b))
		return nil
	})
}
