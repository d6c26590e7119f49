package claude

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"cully/engine"
	"cully/hookbridge"
)

// referenceReplay is Replay as it was before its fast path: every line
// through encoding/json into a struct, hook payloads built as maps,
// marshalled and handed to the hook's own decoder. It stays here as the
// reference the fast path is checked against (TestReplayMatchesReference).
func referenceReplay(a Agent, r io.Reader, cfg *engine.Config, fn func(ev *engine.Event) error) (hookbridge.ReplayStats, error) {
	var st hookbridge.ReplayStats
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	pending := map[string]map[string]any{} // tool_use_id → pre payload
	var lastAt time.Time
	var turn map[string]any // the Stop of the turn a prompt opened
	emit := func(p map[string]any, at time.Time) error {
		lastAt = at
		raw, _ := json.Marshal(p)
		ev, err := a.Decode(raw, hookbridge.Env{Now: at, Getenv: func(string) string { return "" }, Config: cfg})
		if err != nil {
			return err
		}
		return fn(ev)
	}
	for sc.Scan() {
		st.Lines++
		var rec refRecord
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			st.Corrupt++
			continue
		}
		base := func(event string) map[string]any {
			p := map[string]any{"session_id": rec.SessionID, "cwd": rec.Cwd, "hook_event_name": event}
			if rec.IsSidechain && rec.AgentID != "" {
				p["agent_id"] = rec.AgentID
			}
			return p
		}
		switch {
		case rec.Type == "system" && rec.Subtype == "compact_boundary":
			p := base("PreCompact")
			p["trigger"] = "replay"
			if err := emit(p, rec.Timestamp); err != nil {
				return st, err
			}
		case rec.Type == "assistant":
			var blocks []refBlock
			if json.Unmarshal(rec.Message.Content, &blocks) != nil {
				continue
			}
			for _, b := range blocks {
				if b.Type != "tool_use" {
					continue
				}
				p := base("PreToolUse")
				var input any
				_ = json.Unmarshal(b.Input, &input)
				p["tool_name"], p["tool_input"], p["tool_use_id"] = b.Name, input, b.ID
				pending[b.ID] = p
				if err := emit(p, rec.Timestamp); err != nil {
					return st, err
				}
			}
		case rec.Type == "user":
			var text string
			if json.Unmarshal(rec.Message.Content, &text) == nil {
				if rec.IsMeta || rec.IsCompactSummary || rec.RepeatsCompactSummary || rec.IsSidechain {
					continue
				}
				if turn != nil {
					if err := emit(turn, lastAt); err != nil {
						return st, err
					}
				}
				turn = base("Stop")
				p := base("UserPromptSubmit")
				p["prompt"] = text
				if err := emit(p, rec.Timestamp); err != nil {
					return st, err
				}
				continue
			}
			var blocks []refBlock
			if json.Unmarshal(rec.Message.Content, &blocks) != nil {
				st.Skipped++
				continue
			}
			for _, b := range blocks {
				if b.Type != "tool_result" {
					continue
				}
				pre := pending[b.ToolUseID]
				if pre == nil {
					st.Skipped++
					continue
				}
				delete(pending, b.ToolUseID)
				p := map[string]any{}
				for k, v := range pre {
					p[k] = v
				}
				if b.IsError {
					p["hook_event_name"] = "PostToolUseFailure"
					p["error"], p["is_interrupt"] = refBlockText(b.Content), false
				} else {
					p["hook_event_name"] = "PostToolUse"
					var resp any
					_ = json.Unmarshal(rec.ToolUseResult, &resp)
					p["tool_response"] = resp
				}
				if err := emit(p, rec.Timestamp); err != nil {
					return st, err
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return st, fmt.Errorf("read transcript: %w", err)
	}
	if turn != nil {
		if err := emit(turn, lastAt); err != nil {
			return st, err
		}
	}
	return st, nil
}

// blockText flattens a tool_result's content (a string or text blocks).
func refBlockText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []refBlock
	if json.Unmarshal(raw, &blocks) == nil {
		var parts []string
		for _, b := range blocks {
			if b.Text != "" {
				parts = append(parts, b.Text)
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}

type refRecord struct {
	Type                  string          `json:"type"`
	Subtype               string          `json:"subtype"`
	Timestamp             time.Time       `json:"timestamp"`
	SessionID             string          `json:"sessionId"`
	Cwd                   string          `json:"cwd"`
	IsSidechain           bool            `json:"isSidechain"`
	AgentID               string          `json:"agentId"`
	IsMeta                bool            `json:"isMeta"`
	IsCompactSummary      bool            `json:"isCompactSummary"`
	RepeatsCompactSummary bool            `json:"repeatsCompactSummary"`
	ToolUseResult         json.RawMessage `json:"toolUseResult"`
	Message               struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

type refBlock struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
	Content   json.RawMessage `json:"content"`
	Text      string          `json:"text"`
}
