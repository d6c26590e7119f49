//go:build e2e

package e2e

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
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

	collogs "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/protobuf/proto"
)

// ensureCollector builds the e2e Collector (e2e/otelcol: the Collector's
// own OTLP receiver, batch processor and OTLP/HTTP exporter) into the cache,
// keyed by its sources, on first use.
func ensureCollector(t *testing.T) string {
	t.Helper()
	sum := sha256.New()
	for _, f := range []string{"main.go", "go.mod", "go.sum"} {
		b, err := os.ReadFile(filepath.Join("otelcol", f))
		if err != nil {
			t.Fatal(err)
		}
		sum.Write(b)
	}
	cache := os.Getenv("CULLY_E2E_CACHE")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache", "cully-e2e")
	}
	bin := filepath.Join(cache, "otelcol-"+hex.EncodeToString(sum.Sum(nil))[:12], "otelcol")
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = "otelcol"
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the e2e collector: %v\n%s", err, out)
	}
	return bin
}

// backend receives what the Collector forwards (OTLP/HTTP, protobuf).
type backend struct {
	mu     sync.Mutex
	logs   []*collogs.ExportLogsServiceRequest
	traces []*coltrace.ExportTraceServiceRequest
	url    string
}

func newBackend(t *testing.T) *backend {
	b := &backend{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b.url = "http://" + ln.Addr().String()
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/logs", func(w http.ResponseWriter, r *http.Request) {
		var req collogs.ExportLogsServiceRequest
		if err := b.read(r, &req); err != nil {
			t.Errorf("backend logs: %v", err)
		}
		b.mu.Lock()
		b.logs = append(b.logs, &req)
		b.mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
		out, _ := proto.Marshal(&collogs.ExportLogsServiceResponse{})
		w.Write(out)
	})
	mux.HandleFunc("/v1/traces", func(w http.ResponseWriter, r *http.Request) {
		var req coltrace.ExportTraceServiceRequest
		if err := b.read(r, &req); err != nil {
			t.Errorf("backend traces: %v", err)
		}
		b.mu.Lock()
		b.traces = append(b.traces, &req)
		b.mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
		out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
		w.Write(out)
	})
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return b
}

func (b *backend) read(r *http.Request, m proto.Message) error {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return err
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/x-protobuf" {
		return fmt.Errorf("content type %q", ct)
	}
	return proto.Unmarshal(body, m)
}

func (b *backend) reset() {
	b.mu.Lock()
	b.logs, b.traces = nil, nil
	b.mu.Unlock()
}

// logRec and span are what the assertions read, flattened.
type logRec struct {
	event, severity, body string
	attrs, resource       map[string]string
	traceID, spanID       string
}

type span struct {
	name, traceID, id, parent string
	status                    int32
	attrs, resource           map[string]string
	events                    []string
}

func attrMap(kvs []*commonpb.KeyValue) map[string]string {
	m := map[string]string{}
	for _, kv := range kvs {
		v := kv.GetValue()
		switch {
		case v.GetStringValue() != "":
			m[kv.GetKey()] = v.GetStringValue()
		default:
			m[kv.GetKey()] = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(v.String(), "int_value:"), "bool_value:"))
		}
	}
	return m
}

func (b *backend) records() ([]logRec, []span) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var ls []logRec
	for _, req := range b.logs {
		for _, rl := range req.GetResourceLogs() {
			res := attrMap(rl.GetResource().GetAttributes())
			for _, sl := range rl.GetScopeLogs() {
				for _, r := range sl.GetLogRecords() {
					ls = append(ls, logRec{event: r.GetEventName(), severity: r.GetSeverityText(), body: r.GetBody().GetStringValue(),
						attrs: attrMap(r.GetAttributes()), resource: res, traceID: hex.EncodeToString(r.GetTraceId()), spanID: hex.EncodeToString(r.GetSpanId())})
				}
			}
		}
	}
	var ss []span
	for _, req := range b.traces {
		for _, rs := range req.GetResourceSpans() {
			res := attrMap(rs.GetResource().GetAttributes())
			for _, sc := range rs.GetScopeSpans() {
				for _, s := range sc.GetSpans() {
					sp := span{name: s.GetName(), traceID: hex.EncodeToString(s.GetTraceId()), id: hex.EncodeToString(s.GetSpanId()),
						parent: hex.EncodeToString(s.GetParentSpanId()), status: int32(s.GetStatus().GetCode()), attrs: attrMap(s.GetAttributes()), resource: res}
					for _, e := range s.GetEvents() {
						sp.events = append(sp.events, e.GetName()+" "+attrMap(e.GetAttributes())["cully.reason"])
					}
					ss = append(ss, sp)
				}
			}
		}
	}
	return ls, ss
}

func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startCollector runs the Collector with an OTLP receiver (gRPC and HTTP)
// on loopback, forwarding logs and traces to the backend.
func startCollector(t *testing.T, backendURL string) (grpcAddr, httpAddr string) {
	return startCollectorAt(t, backendURL, fmt.Sprintf("127.0.0.1:%d", freePort(t)), fmt.Sprintf("127.0.0.1:%d", freePort(t)))
}

// startCollectorAt is startCollector on the given receiver addresses.
func startCollectorAt(t *testing.T, backendURL, grpcAddr, httpAddr string) (string, string) {
	bin := ensureCollector(t)
	cfg := fmt.Sprintf(`receivers:
  otlp:
    protocols:
      grpc:
        endpoint: %s
      http:
        endpoint: %s
processors:
  batch:
    timeout: 100ms
exporters:
  otlp_http:
    endpoint: %s
    compression: none
    encoding: proto
service:
  telemetry:
    metrics:
      level: none
  pipelines:
    logs:
      receivers: [otlp]
      processors: [batch]
      exporters: [otlp_http]
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [otlp_http]
`, grpcAddr, httpAddr, backendURL)
	path := filepath.Join(t.TempDir(), "otelcol.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd := exec.Command(bin, "--config", "file:"+path)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("collector output:\n%s", tail(out.String(), 4000))
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for _, addr := range []string{grpcAddr, httpAddr} {
		for {
			c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
			if err == nil {
				c.Close()
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the collector did not listen on %s:\n%s", addr, out.String())
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return grpcAddr, httpAddr
}

// cully export, end to end: a real Claude Code session (its own session,
// prompt and tool_use ids) and a hook call carrying a host's TRACEPARENT
// are sent by `cully export` over OTLP (HTTP, then gRPC) to a real
// OpenTelemetry Collector on loopback, which forwards them to a backend
// that decodes what arrives.
func TestExportToCollector(t *testing.T) {
	be := newBackend(t)
	grpcAddr, httpAddr := startCollector(t, be.url)

	const failing = "ls /nonexistent-cully-e2e-export"
	s := newSession(t, []toolCall{bash("echo hello"), bash(failing), bash(failing), bash(failing)})
	s.install()
	s.run()

	// A host that passes its trace context to hooks (W3C TRACEPARENT).
	const traceID, parentID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	for _, p := range []string{
		`{"session_id":"traced-1","hook_event_name":"UserPromptSubmit","prompt":"go","prompt_id":"p-traced","cwd":"/tmp"}`,
		`{"session_id":"traced-1","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/tmp/x"},"tool_use_id":"toolu_traced","prompt_id":"p-traced","cwd":"/tmp"}`,
		`{"session_id":"traced-1","hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":"/tmp/x"},"tool_response":{"type":"text"},"tool_use_id":"toolu_traced","prompt_id":"p-traced","cwd":"/tmp"}`,
		`{"session_id":"traced-1","hook_event_name":"Stop","prompt_id":"p-traced","cwd":"/tmp"}`,
	} {
		hook := exec.Command(filepath.Join(binDir, "cully-hook"))
		hook.Env = append(s.env, "TRACEPARENT=00-"+traceID+"-"+parentID+"-01")
		hook.Stdin = strings.NewReader(p)
		if out, err := hook.CombinedOutput(); err != nil {
			t.Fatalf("cully-hook: %v\n%s", err, out)
		}
	}
	var sessionID, promptID string
	for _, r := range s.journal() {
		if r["kind"] == "prompt" && r["session"] != "traced-1" {
			sessionID, _ = r["session"].(string)
			promptID, _ = r["prompt_id"].(string)
		}
	}
	if sessionID == "" || promptID == "" {
		t.Fatalf("no prompt record with the host's ids in the journal")
	}

	for _, proto := range []struct{ name, endpoint string }{{"http/protobuf", "http://" + httpAddr}, {"grpc", "http://" + grpcAddr}} {
		t.Run(proto.name, func(t *testing.T) {
			be.reset()
			exp := exec.Command(filepath.Join(binDir, "cully"), "export", "--from", "start", "--once")
			exp.Env = append(s.env, "OTEL_EXPORTER_OTLP_PROTOCOL="+proto.name, "OTEL_EXPORTER_OTLP_ENDPOINT="+proto.endpoint,
				"OTEL_RESOURCE_ATTRIBUTES=team=e2e", "USER=e2e-user")
			out, err := exp.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "exported ") {
				t.Fatalf("cully export: %v\n%s", err, out)
			}
			var logs []logRec
			var spans []span
			// The Collector batches for 100 ms: wait until every span is in
			// and nothing more arrived for half a second.
			stable := 0
			for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && stable < 5; time.Sleep(100 * time.Millisecond) {
				l, sp := be.records()
				if len(l) == len(logs) && len(sp) == len(spans) && countSpans(sp, "tool Bash") >= 4 && countSpans(sp, "tool Read") >= 1 && len(l) > 0 {
					stable++
				} else {
					stable = 0
				}
				logs, spans = l, sp
			}
			checkExport(t, logs, spans, sessionID, promptID, s.api.issued, traceID, parentID)
		})
	}
}

func countSpans(ss []span, name string) int {
	n := 0
	for _, s := range ss {
		if s.name == name {
			n++
		}
	}
	return n
}

func checkExport(t *testing.T, logs []logRec, spans []span, sessionID, promptID string, issued []string, traceID, parentID string) {
	t.Helper()
	t.Logf("%d log records, %d spans arrived", len(logs), len(spans))
	// Resource: what a fleet groups by.
	for _, l := range logs[:min(1, len(logs))] {
		for k, want := range map[string]string{"service.name": "cully", "user.name": "e2e-user", "team": "e2e"} {
			if l.resource[k] != want {
				t.Errorf("resource %s = %q, want %q (resource %v)", k, l.resource[k], want, l.resource)
			}
		}
		if l.resource["host.name"] == "" {
			t.Errorf("no host.name in the resource %v", l.resource)
		}
	}
	// A log record per journal record, keyed with the host's ids.
	pre := map[string]logRec{}
	var checkpoint *logRec
	for i, l := range logs {
		if l.attrs["session.id"] != sessionID {
			continue
		}
		if l.event == "cully.pre_tool" {
			pre[l.attrs["gen_ai.tool.call.id"]] = l
			if l.attrs["prompt.id"] != promptID {
				t.Errorf("pre_tool record prompt.id %q, want the host's %q", l.attrs["prompt.id"], promptID)
			}
		}
		if l.event == "cully.signal.checkpoint" && l.attrs["cully.reason"] == "failure-loop" {
			checkpoint = &logs[i]
		}
	}
	for _, id := range issued {
		l, ok := pre[id]
		if !ok {
			t.Errorf("no pre_tool log record for the host's tool_use_id %s", id)
			continue
		}
		if l.attrs["gen_ai.tool.name"] != "Bash" || l.traceID == "" || l.spanID == "" {
			t.Errorf("pre_tool record for %s: %+v", id, l)
		}
	}
	if checkpoint == nil {
		t.Errorf("no WARN log record for the failure-loop checkpoint")
	} else if checkpoint.severity != "WARN" {
		t.Errorf("checkpoint record severity %q", checkpoint.severity)
	}
	// A span per tool call, inside its task's span, failures marked.
	var task *span
	calls := map[string]span{}
	for i, s := range spans {
		if s.attrs["session.id"] != sessionID {
			continue
		}
		switch s.name {
		case "task 1":
			task = &spans[i]
		case "tool Bash":
			calls[s.attrs["gen_ai.tool.call.id"]] = s
		}
	}
	if task == nil {
		t.Fatalf("no task span for the session")
	}
	failed := 0
	for _, id := range issued {
		c, ok := calls[id]
		if !ok {
			t.Errorf("no span for tool call %s", id)
			continue
		}
		if c.parent != task.id || c.traceID != task.traceID {
			t.Errorf("call %s: parent %s trace %s, want the task span %s in trace %s", id, c.parent, c.traceID, task.id, task.traceID)
		}
		if c.status == 2 { // STATUS_CODE_ERROR
			failed++
		}
		if l := pre[id]; l.spanID != c.id {
			t.Errorf("call %s: its pre_tool record is on span %s, the call's span is %s", id, l.spanID, c.id)
		}
	}
	if failed != 3 {
		t.Errorf("%d call spans marked failed, want the 3 failing commands", failed)
	}
	foundEvent := false
	for _, c := range calls {
		for _, e := range c.events {
			if e == "cully.checkpoint failure-loop" {
				foundEvent = true
			}
		}
	}
	if !foundEvent {
		t.Errorf("the failure-loop checkpoint is no event on any call span")
	}
	// The traced session joins the host's trace.
	joined := false
	for _, s := range spans {
		if s.attrs["session.id"] == "traced-1" && s.name == "task 1" {
			joined = s.traceID == traceID && s.parent == parentID
			if !joined {
				t.Errorf("traced task span: trace %s parent %s, want the host's %s and %s", s.traceID, s.parent, traceID, parentID)
			}
		}
	}
	if !joined {
		t.Errorf("no task span for the session whose hook had a TRACEPARENT")
	}
}

// Following, `cully export` keeps the journal's records while the
// collector is down and sends them once it is up: started before any
// collector listens, it retries; a Collector started later gets every
// record, those written before it came up and after; SIGINT flushes and
// exits 0.
func TestExportFollowsThroughADownCollector(t *testing.T) {
	be := newBackend(t)
	s := newSession(t, nil)
	httpAddr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	hook := func(id string) {
		t.Helper()
		for _, ev := range []string{"PreToolUse", "PostToolUse"} {
			p := fmt.Sprintf(`{"session_id":"follow-1","hook_event_name":%q,"tool_name":"Read","tool_input":{"file_path":"/tmp/%s"},"tool_response":{"type":"text"},"tool_use_id":%q,"cwd":"/tmp"}`, ev, id, id)
			c := exec.Command(filepath.Join(binDir, "cully-hook"))
			c.Env, c.Stdin = s.env, strings.NewReader(p)
			if out, err := c.CombinedOutput(); err != nil {
				t.Fatalf("cully-hook: %v\n%s", err, out)
			}
		}
	}
	hook("before-start")
	exp := exec.Command(filepath.Join(binDir, "cully"), "export", "--from", "start")
	exp.Env = append(s.env, "OTEL_EXPORTER_OTLP_ENDPOINT=http://"+httpAddr, "OTEL_EXPORTER_OTLP_TIMEOUT=1000")
	var out bytes.Buffer
	exp.Stdout, exp.Stderr = &out, &out
	if err := exp.Start(); err != nil {
		t.Fatal(err)
	}
	defer exp.Process.Kill()
	time.Sleep(2 * time.Second) // it tries, fails and waits to try again
	hook("while-down")
	startCollectorAt(t, be.url, fmt.Sprintf("127.0.0.1:%d", freePort(t)), httpAddr)
	hook("after-up")
	want := map[string]bool{"before-start": false, "while-down": false, "after-up": false}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		_, spans := be.records()
		for _, sp := range spans {
			if id := sp.attrs["gen_ai.tool.call.id"]; sp.name == "tool Read" {
				want[id] = true
			}
		}
		if want["before-start"] && want["while-down"] && want["after-up"] {
			break
		}
	}
	for id, ok := range want {
		if !ok {
			t.Errorf("call %s never arrived", id)
		}
	}
	exp.Process.Signal(os.Interrupt)
	if err := exp.Wait(); err != nil {
		t.Errorf("cully export on SIGINT: %v", err)
	}
	if !strings.Contains(out.String(), "(retrying)") || !strings.Contains(out.String(), "exported ") {
		t.Errorf("cully export said:\n%s", out.String())
	}
}
