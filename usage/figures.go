package usage

import "cully/engine"

// Cache is what the reader keeps between reads of one session's record
// (the store writes it under the state dir): which files it read and how
// far, and the Tally so far.
type Cache struct {
	Files []File `json:"files,omitempty"` // the main record first
	Tally Tally  `json:"tally"`
	// Searched is when a search for the record last found none (Unix
	// seconds): the next one waits a while.
	Searched int64 `json:"searched,omitempty"`
	// Behind: more was written than one read takes; the next read goes on.
	Behind bool `json:"behind,omitempty"`
}

// File is one file of a session's record and the bytes read of it, up to
// the end of a whole line.
type File struct {
	Path string `json:"path"`
	Off  int64  `json:"off"`
}

// Figures are a session's cost, tokens and context as cully shows them:
// the host's own figures (a status line, or what the hooks read) where it
// gave them, the record's elsewhere. Nil is unknown.
type Figures struct {
	CostUSD *float64 `json:"cost_usd"`
	// Estimated: CostUSD is the table's price of the record's tokens
	// (PricesAsOf), not a figure the host reported.
	Estimated  bool        `json:"cost_estimated"`
	PricesAsOf string      `json:"prices_as_of,omitempty"`
	Unpriced   []string    `json:"unpriced_models,omitempty"` // models the table has no price for: no estimate
	Input      *int64      `json:"input_tokens"`
	Output     *int64      `json:"output_tokens"`
	CacheRead  *int64      `json:"cache_read_tokens"`
	CacheWrite *int64      `json:"cache_write_tokens"`
	Context    *int64      `json:"context_tokens"`
	Window     *int64      `json:"context_window"`
	Model      string      `json:"model,omitempty"`
	Limits     []RateLimit `json:"rate_limits,omitempty"`
	// Behind: the record is still being read (a long one, the first time).
	Behind bool `json:"behind,omitempty"`
}

// Merge puts the host's figures (nil: none) over the record's (nil: not
// read). A status line's cost wins over the estimate; the hooks' token
// totals over the record's (they are the same record, and the budgets
// count them).
func Merge(host *engine.HostUsage, rec *Cache) Figures {
	var f Figures
	if rec != nil && len(rec.Tally.Models) > 0 {
		t := &rec.Tally
		s := t.Sum()
		in, out, cr, cw := s.Input, s.Output+s.Thoughts, s.CacheRead, s.CacheWrite+s.CacheWrite1h
		f.Input, f.Output, f.CacheRead, f.CacheWrite = &in, &out, &cr, &cw
		if cost, unpriced, ok := t.Cost(); ok {
			f.CostUSD, f.Estimated, f.PricesAsOf = &cost, true, PricesAsOf
		} else {
			f.Unpriced = unpriced
		}
		f.Model, f.Limits, f.Behind = t.Model, t.Limits, rec.Behind
		if t.Context > 0 {
			c := t.Context
			f.Context = &c
		}
		w := t.Window
		if p, ok := Lookup(t.Model); ok && w == 0 {
			w = p.Window
		}
		if w > 0 && (f.Context == nil || *f.Context <= w) {
			f.Window = &w
		}
	}
	if host == nil {
		return f
	}
	if host.CostUSD != nil {
		f.CostUSD, f.Estimated, f.PricesAsOf, f.Unpriced = host.CostUSD, false, "", nil
	}
	if host.InputTokens != nil {
		f.Input, f.Output, f.CacheRead, f.CacheWrite = host.InputTokens, host.OutputTokens, host.CacheReadTokens, host.CacheWriteTokens
	}
	if host.ContextTokens != nil {
		f.Context = host.ContextTokens
		if f.Window != nil && *f.Window < *f.Context {
			f.Window = nil
		}
	}
	if host.ContextWindow != nil {
		f.Window = host.ContextWindow
	}
	if host.Model != "" {
		f.Model = host.Model
	}
	return f
}

// Tokens is the figures' counted tokens as budgets count them (uncached
// input, cache writes and output; cache reads apart): ok is false when
// unknown.
func (f Figures) Tokens() (int64, bool) {
	if f.Input == nil && f.Output == nil {
		return 0, false
	}
	var n int64
	for _, p := range []*int64{f.Input, f.Output, f.CacheWrite} {
		if p != nil {
			n += *p
		}
	}
	return n, true
}
