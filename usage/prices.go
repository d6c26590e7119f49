package usage

import (
	"strings"
)

// PricesAsOf is the date the price table was last checked against its
// sources: Anthropic's, OpenAI's and Google's published API price pages,
// and ccusage 20.0.24's offline prices (LiteLLM's table), which agree on
// every row (`ccusage … session --json --offline` on one message of a
// million tokens of each kind, see prices_test.go).
const PricesAsOf = "2026-12-07"

// Price is a model's published price in US dollars per million tokens.
// CacheWrite is a 5-minute prompt-cache write, CacheWrite1h a 1-hour one;
// zero for hosts that bill no cache write (their cache writes are input).
// Window is the model's context window in tokens (0: not published here).
type Price struct {
	Input, Output, CacheWrite, CacheWrite1h, CacheRead float64
	Window                                             int64
}

// prices is the table, by the model ids the hosts write in their records.
// Claude models' 1-hour cache writes cost twice their input, 5-minute ones
// 1.25 times, cache reads a tenth. GPT and Gemini models bill no cache
// write; cached input costs a tenth of input. A slice, not a map: it is
// laid out at build time, so the hook binary, which links this package,
// spends nothing on it at start-up.
var prices = [...]struct {
	model string
	Price
}{
	// Anthropic: claude.com/pricing
	{"claude-opus-4-5", Price{Input: 5, Output: 25, CacheWrite: 6.25, CacheWrite1h: 10, CacheRead: 0.5, Window: 200_000}},
	{"claude-opus-4-6", Price{Input: 5, Output: 25, CacheWrite: 6.25, CacheWrite1h: 10, CacheRead: 0.5, Window: 200_000}},
	{"claude-opus-4-1", Price{Input: 15, Output: 75, CacheWrite: 18.75, CacheWrite1h: 30, CacheRead: 1.5, Window: 200_000}},
	{"claude-opus-4", Price{Input: 15, Output: 75, CacheWrite: 18.75, CacheWrite1h: 30, CacheRead: 1.5, Window: 200_000}},
	{"claude-sonnet-4-6", Price{Input: 3, Output: 15, CacheWrite: 3.75, CacheWrite1h: 6, CacheRead: 0.3, Window: 200_000}},
	{"claude-sonnet-4-5", Price{Input: 3, Output: 15, CacheWrite: 3.75, CacheWrite1h: 6, CacheRead: 0.3, Window: 200_000}},
	{"claude-sonnet-4", Price{Input: 3, Output: 15, CacheWrite: 3.75, CacheWrite1h: 6, CacheRead: 0.3, Window: 200_000}},
	{"claude-haiku-4-5", Price{Input: 1, Output: 5, CacheWrite: 1.25, CacheWrite1h: 2, CacheRead: 0.1, Window: 200_000}},
	{"claude-3-5-haiku", Price{Input: 0.8, Output: 4, CacheWrite: 1, CacheWrite1h: 1.6, CacheRead: 0.08, Window: 200_000}},
	// OpenAI: openai.com/api/pricing (Codex reports the window itself)
	{"gpt-5.5", Price{Input: 5, Output: 30, CacheRead: 0.5}},
	{"gpt-5.2", Price{Input: 1.75, Output: 14, CacheRead: 0.175}},
	{"gpt-5.2-codex", Price{Input: 1.75, Output: 14, CacheRead: 0.175}},
	{"gpt-5.3-codex", Price{Input: 1.75, Output: 14, CacheRead: 0.175}},
	{"gpt-5.1", Price{Input: 1.25, Output: 10, CacheRead: 0.125}},
	{"gpt-5.1-codex", Price{Input: 1.25, Output: 10, CacheRead: 0.125}},
	{"gpt-5.1-codex-max", Price{Input: 1.25, Output: 10, CacheRead: 0.125}},
	{"gpt-5.1-codex-mini", Price{Input: 0.25, Output: 2, CacheRead: 0.025}},
	{"gpt-5", Price{Input: 1.25, Output: 10, CacheRead: 0.125}},
	{"gpt-5-codex", Price{Input: 1.25, Output: 10, CacheRead: 0.125}},
	{"gpt-5-mini", Price{Input: 0.25, Output: 2, CacheRead: 0.025}},
	// Google: ai.google.dev/gemini-api/docs/pricing
	{"gemini-3.1-pro-preview", Price{Input: 2, Output: 12, CacheRead: 0.2, Window: 1_048_576}},
	{"gemini-3-pro-preview", Price{Input: 2, Output: 12, CacheRead: 0.2, Window: 1_048_576}},
	{"gemini-3-flash-preview", Price{Input: 0.5, Output: 3, CacheRead: 0.05, Window: 1_048_576}},
	{"gemini-2.5-pro", Price{Input: 1.25, Output: 10, CacheRead: 0.125, Window: 1_048_576}},
	{"gemini-2.5-flash", Price{Input: 0.3, Output: 2.5, CacheRead: 0.03, Window: 1_048_576}},
}

// Lookup finds a model's price: by its id, else without a provider prefix
// ("anthropic/", "openai/", "models/") or a dated suffix
// ("claude-sonnet-4-5-20250929").
func Lookup(model string) (Price, bool) {
	m := strings.ToLower(strings.TrimSpace(model))
	if p, ok := price(m); ok {
		return p, true
	}
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
		if p, ok := price(m); ok {
			return p, true
		}
	}
	if i := strings.LastIndexByte(m, '-'); i >= 0 && len(m)-i-1 == 8 && allDigits(m[i+1:]) {
		return price(m[:i])
	}
	return Price{}, false
}

func price(model string) (Price, bool) {
	for _, p := range prices {
		if p.model == model {
			return p.Price, true
		}
	}
	return Price{}, false
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// Cost prices some tokens of one model, in US dollars.
func (p Price) Cost(t Tokens) float64 {
	write := p.CacheWrite
	if write == 0 {
		write = p.Input
	}
	write1h := p.CacheWrite1h
	if write1h == 0 {
		write1h = write
	}
	return (float64(t.Input)*p.Input + float64(t.Output+t.Thoughts)*p.Output + float64(t.CacheWrite)*write +
		float64(t.CacheWrite1h)*write1h + float64(t.CacheRead)*p.CacheRead) / 1e6
}
