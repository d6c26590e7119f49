//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// toolCall is one tool_use block the mock model emits.
type toolCall struct {
	Name  string
	Input map[string]any
}

// mockAPI serves a scripted Anthropic Messages API on 127.0.0.1: streaming
// SSE, one tool call per model turn from the script, then a closing text.
// Every request body is logged.
type mockAPI struct {
	t      *testing.T
	script []toolCall
	srv    *http.Server
	url    string

	// worker, when set, answers the requests of an advisor worker (a
	// second client against the same mock): a request whose first user
	// text holds workerMark gets this text and no tool call, and is kept
	// in workerRequests instead of requests.
	worker string
	// gate, when set, runs before the agent's request at each turn is
	// answered (the agent waits, as it would for a slow model).
	gate func(turn int)

	mu             sync.Mutex
	rebase         bool             // then: the next request's turn is the new script's first
	base           int              // the turn the script starts at
	requests       []map[string]any // /v1/messages bodies, in order
	issued         []string         // tool_use ids handed out, in order
	workerRequests []map[string]any
	// arrived[i] is when the agent's request i came, answered[i] when the
	// answer to it was written out: arrived[i+1]-answered[i] is the time
	// the client took over tool call i (the tool, its hooks, its own work).
	arrived, answered []time.Time
}

// workerMark opens every advisor prompt cully sends (docs/advisor.md).
const workerMark = "You are advising on a coding agent's session"

func newMockAPI(t *testing.T, script []toolCall) *mockAPI {
	m := &mockAPI{t: t, script: script}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m.url = "http://" + ln.Addr().String()
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/messages/count_tokens", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"input_tokens":1000}`)
	})
	mux.HandleFunc("/v1/messages", m.messages)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Logf("mock: unexpected %s %s", r.Method, r.URL)
		http.NotFound(w, r)
	})
	m.srv = &http.Server{Handler: mux}
	go m.srv.Serve(ln)
	t.Cleanup(func() { m.srv.Close() })
	return m
}

func (m *mockAPI) messages(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	msgs, _ := body["messages"].([]any)
	if m.worker != "" && len(msgs) > 0 && count(map[string]any{"messages": msgs[:1]}, workerMark) > 0 {
		m.mu.Lock()
		m.workerRequests = append(m.workerRequests, body)
		k := len(m.workerRequests)
		m.mu.Unlock()
		m.stream(w, k, fmt.Sprintf("msg_e2e_worker_%d", k), nil, "", m.worker)
		return
	}
	// The turn is the number of assistant messages so far: one tool call per turn.
	turn := 0
	for _, x := range msgs {
		if mm, _ := x.(map[string]any); mm["role"] == "assistant" {
			turn++
		}
	}
	m.mu.Lock()
	if m.rebase {
		m.base, m.rebase = turn, false
	}
	turn -= m.base
	m.requests = append(m.requests, body)
	m.arrived = append(m.arrived, time.Now())
	n := len(m.requests)
	var call *toolCall
	var id string
	if turn < len(m.script) {
		call = &m.script[turn]
		id = fmt.Sprintf("toolu_e2e%04d_%d", turn, n)
		m.issued = append(m.issued, id)
	}
	m.mu.Unlock()
	if m.gate != nil {
		m.gate(turn)
	}
	m.stream(w, n, fmt.Sprintf("msg_e2e_%d", n), call, id, "Done.")
	m.mu.Lock()
	m.answered = append(m.answered, time.Now())
	m.mu.Unlock()
}

// then gives the mock a new script for a session resumed with a new
// prompt: its first call answers the next request, whatever the history
// before it holds.
func (m *mockAPI) then(script []toolCall) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.script, m.rebase = script, true
}

// callGaps are the client's times over each tool call (see arrived).
func (m *mockAPI) callGaps() []time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []time.Duration
	for i := 0; i+1 < len(m.arrived) && i < len(m.answered) && i < len(m.script); i++ {
		out = append(out, m.arrived[i+1].Sub(m.answered[i]))
	}
	return out
}

// stream writes one streamed model message: the tool call when there is
// one, else the text.
func (m *mockAPI) stream(w http.ResponseWriter, n int, msgID string, call *toolCall, id, text string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	fl, _ := w.(http.Flusher)
	send := func(event string, data any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
		if fl != nil {
			fl.Flush()
		}
	}
	usage := map[string]any{"input_tokens": 100 + n, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	send("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": msgID, "type": "message", "role": "assistant", "model": "claude-opus-5-5",
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": usage}})
	stop := "end_turn"
	if call != nil {
		stop = "tool_use"
		input, _ := json.Marshal(call.Input)
		send("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "tool_use", "id": id, "name": call.Name, "input": map[string]any{}}})
		send("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}})
	} else {
		send("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "text", "text": ""}})
		send("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": text}})
	}
	send("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	send("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 12}})
	send("message_stop", map[string]any{"type": "message_stop"})
}

// texts returns every text the model was shown in a request, with the
// message role: system messages, text blocks and tool results.
func texts(req map[string]any) []string {
	var out []string
	msgs, _ := req["messages"].([]any)
	for _, x := range msgs {
		mm, _ := x.(map[string]any)
		switch c := mm["content"].(type) {
		case string:
			out = append(out, c)
		case []any:
			for _, b := range c {
				blk, _ := b.(map[string]any)
				if s, ok := blk["text"].(string); ok {
					out = append(out, s)
				}
				switch rc := blk["content"].(type) {
				case string:
					out = append(out, rc)
				case []any:
					for _, rb := range rc {
						if rbm, _ := rb.(map[string]any); rbm != nil {
							if s, ok := rbm["text"].(string); ok {
								out = append(out, s)
							}
						}
					}
				}
			}
		}
	}
	if sys, ok := req["system"].([]any); ok {
		for _, b := range sys {
			if bm, _ := b.(map[string]any); bm != nil {
				if s, ok := bm["text"].(string); ok {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// count returns how many shown texts of a request contain sub.
func count(req map[string]any, sub string) int {
	n := 0
	for _, s := range texts(req) {
		n += strings.Count(s, sub)
	}
	return n
}

// firstWith returns the index of the first request whose shown texts
// contain sub, or -1.
func (m *mockAPI) firstWith(sub string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, r := range m.requests {
		if count(r, sub) > 0 {
			return i
		}
	}
	return -1
}

func (m *mockAPI) last() map[string]any {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.requests) == 0 {
		return nil
	}
	return m.requests[len(m.requests)-1]
}
