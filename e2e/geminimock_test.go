//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// geminiMock serves a scripted Gemini API (generativelanguage v1beta) on
// 127.0.0.1: streamGenerateContent answers, as SSE, with one function call
// per model turn from the script, then a closing text; generateContent
// (the client's model router and its other side questions) answers with a
// small JSON text. Every streamed request body is logged.
type geminiMock struct {
	t      *testing.T
	script []toolCall
	url    string

	mu       sync.Mutex
	rebase   bool // then: the next request's turn is the new script's first
	base     int
	requests []map[string]any // streamGenerateContent bodies, in order
	other    []string         // other requests, by path
}

func newGeminiMock(t *testing.T, script []toolCall) *geminiMock {
	m := &geminiMock{t: t, script: script}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m.url = "http://" + ln.Addr().String()
	srv := &http.Server{Handler: http.HandlerFunc(m.serve)}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return m
}

func (m *geminiMock) serve(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	usage := map[string]any{"promptTokenCount": 1000, "candidatesTokenCount": 10, "totalTokenCount": 1010}
	if !strings.HasSuffix(r.URL.Path, ":streamGenerateContent") {
		m.mu.Lock()
		m.other = append(m.other, r.URL.Path)
		m.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"candidates": []any{map[string]any{"index": 0, "finishReason": "STOP",
			"content": map[string]any{"role": "model", "parts": []any{map[string]any{"text": `{"reasoning":"scripted","model_choice":"pro","next_speaker":"user"}`}}}}},
			"usageMetadata": usage})
		return
	}
	contents, _ := body["contents"].([]any)
	turn := 0 // the model turns so far: one function call per turn
	for _, c := range contents {
		if cm, _ := c.(map[string]any); cm["role"] == "model" {
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
	part := map[string]any{"text": "Done."}
	if turn < len(m.script) {
		part = map[string]any{"functionCall": map[string]any{"name": m.script[turn].Name, "args": m.script[turn].Input}}
	}
	m.mu.Unlock()
	usage["promptTokenCount"] = 1000 + n
	b, _ := json.Marshal(map[string]any{"candidates": []any{map[string]any{"index": 0, "finishReason": "STOP",
		"content": map[string]any{"role": "model", "parts": []any{part}}}}, "usageMetadata": usage, "modelVersion": "gemini-e2e"})
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprintf(w, "data: %s\r\n\r\n", b)
}

// then gives the mock a new script for a resumed session (mockAPI.then).
func (m *geminiMock) then(script []toolCall) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.script, m.rebase = script, true
}

// geminiTexts returns every text a request shows the model: text parts
// and function results.
func geminiTexts(req map[string]any) []string {
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, y := range x {
				if s, ok := y.(string); ok && (k == "text" || k == "output" || k == "error") {
					out = append(out, s)
				} else {
					walk(y)
				}
			}
		case []any:
			for _, y := range x {
				walk(y)
			}
		}
	}
	walk(req["contents"])
	walk(req["systemInstruction"])
	return out
}

func (m *geminiMock) count(i int, sub string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if i < 0 {
		i += len(m.requests)
	}
	if i < 0 || i >= len(m.requests) {
		return 0
	}
	n := 0
	for _, s := range geminiTexts(m.requests[i]) {
		n += strings.Count(s, sub)
	}
	return n
}

// firstWith returns the index of the first streamed request that shows
// sub, or -1.
func (m *geminiMock) firstWith(sub string) int {
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
