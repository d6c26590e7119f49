package claude

import (
	"encoding/json"
	"fmt"

	"cully/engine"
	"cully/jsonlite"
)

// statusInput is the part of Claude Code's status-line JSON cully reads.
type statusInput struct {
	SessionID string `json:"session_id"`
	Model     struct {
		ID          string `json:"id"`
		DisplayName string `json:"display_name"`
	} `json:"model"`
	Cost struct {
		TotalCostUSD *float64 `json:"total_cost_usd"`
	} `json:"cost"`
	ContextWindow struct {
		TotalInputTokens  *int64 `json:"total_input_tokens"`
		TotalOutputTokens *int64 `json:"total_output_tokens"`
		ContextWindowSize *int64 `json:"context_window_size"`
		CurrentUsage      *struct {
			InputTokens              int64 `json:"input_tokens"`
			CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
			CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
		} `json:"current_usage"`
	} `json:"context_window"`
}

// StatusLine reads Claude Code's status-line input: the session, and the
// host's own cost and context figures (nil where it gave none).
func (Agent) StatusLine(raw []byte) (string, *engine.HostUsage, error) {
	var in statusInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return "", nil, fmt.Errorf("decode status-line input: %w", jsonlite.Where(raw, err))
	}
	u := &engine.HostUsage{CostUSD: in.Cost.TotalCostUSD, InputTokens: in.ContextWindow.TotalInputTokens,
		OutputTokens: in.ContextWindow.TotalOutputTokens, ContextWindow: in.ContextWindow.ContextWindowSize, Model: in.Model.ID}
	if cu := in.ContextWindow.CurrentUsage; cu != nil {
		n := cu.InputTokens + cu.CacheCreationInputTokens + cu.CacheReadInputTokens
		u.ContextTokens = &n
	}
	return in.SessionID, u, nil
}
