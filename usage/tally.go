package usage

import (
	"fmt"
	"sort"
)

// Tokens are some requests' token counts. Input is input not read from the
// prompt cache; CacheRead the input that was; CacheWrite and CacheWrite1h
// the input written to it for 5 minutes and for an hour. Thoughts are
// reasoning tokens a host counts apart from Output but bills as output
// (Gemini CLI); a host that counts them inside Output leaves it zero.
type Tokens struct {
	Input        int64 `json:"input"`
	Output       int64 `json:"output"`
	CacheWrite   int64 `json:"cache_write,omitempty"`
	CacheWrite1h int64 `json:"cache_write_1h,omitempty"`
	CacheRead    int64 `json:"cache_read,omitempty"`
	Thoughts     int64 `json:"thoughts,omitempty"`
}

// Add sums two counts.
func (t Tokens) Add(o Tokens) Tokens {
	return Tokens{t.Input + o.Input, t.Output + o.Output, t.CacheWrite + o.CacheWrite,
		t.CacheWrite1h + o.CacheWrite1h, t.CacheRead + o.CacheRead, t.Thoughts + o.Thoughts}
}

// Sub is t less o.
func (t Tokens) Sub(o Tokens) Tokens {
	return Tokens{t.Input - o.Input, t.Output - o.Output, t.CacheWrite - o.CacheWrite,
		t.CacheWrite1h - o.CacheWrite1h, t.CacheRead - o.CacheRead, t.Thoughts - o.Thoughts}
}

// RateLimit is one of the host's rate-limit windows as its record last
// gave it (Codex: "primary", the 5-hour window, and "secondary", the
// weekly one).
type RateLimit struct {
	Name          string  `json:"name"`
	UsedPercent   float64 `json:"used_percent"`
	WindowMinutes int64   `json:"window_minutes,omitempty"`
	ResetsAt      int64   `json:"resets_at,omitempty"` // Unix seconds; 0: not given
}

// Window names a rate-limit window by its length ("5h", "weekly"), else
// as the host names it.
func (l RateLimit) Window() string {
	switch m := l.WindowMinutes; {
	case m == 7*24*60:
		return "weekly"
	case m > 0 && m%60 == 0:
		return fmt.Sprintf("%dh", m/60)
	case m > 0:
		return fmt.Sprintf("%dm", m)
	}
	return l.Name
}

// Tally is what a session's record says so far: tokens per model, the
// newest request's context, the host's rate limits, and what the reader
// needs to count each request once.
type Tally struct {
	Models map[string]Tokens `json:"models,omitempty"`
	Model  string            `json:"model,omitempty"` // the newest request's model
	// Context is the newest request's input, cached or not: what the
	// model's context held. Window is its size where the record says
	// (Codex); 0 where it does not.
	Context int64       `json:"context,omitempty"`
	Window  int64       `json:"window,omitempty"`
	Limits  []RateLimit `json:"rate_limits,omitempty"`
	// Seen are the newest messages counted (a key of each, newest last,
	// SeenKeep of them and up to a few dozen more), each with what was counted for it: a host writes
	// a message more than once (Claude Code: once per content block, and
	// again on resume; Gemini CLI: whenever it updates one), and each
	// message counts once (AddMessage).
	Seen []Counted `json:"seen,omitempty"`
	// Total is the host's running total the last delta was taken from
	// (Codex writes cumulative counts).
	Total *Tokens `json:"total,omitempty"`
	// File is the file whose lines are being read (its index in
	// Cache.Files): the newest message is each file's own, as the files
	// are read in turns.
	File int `json:"-"`
}

// Counted is one message counted, with its model and figures, and the
// file of the record it was read in (its index in Cache.Files).
type Counted struct {
	Key    string `json:"k"`
	Model  string `json:"m,omitempty"`
	Tokens Tokens `json:"t"`
	File   int    `json:"f,omitempty"`
}

// SeenKeep is how many counted messages a Tally remembers. Claude Code
// writes a resumed session's earlier messages again up to 48 messages
// later in the development corpus; a copy further back than this is
// counted twice.
const SeenKeep = 256

// seenSlack is how far past SeenKeep the list grows before it is cut back.
const seenSlack = 64

// AddMessage counts one message's figures under key: a message not seen
// yet adds them; a later copy of the file's newest message replaces what it
// counted (a host writes a message's final figures last: Claude Code on
// its last content block's line, Gemini CLI when it updates the reply);
// a copy of an older one adds nothing (a resumed session's history
// written again), as ccusage counts them.
func (t *Tally) AddMessage(key, model string, n Tokens) {
	for i := len(t.Seen) - 1; i >= 0; i-- {
		if c := &t.Seen[i]; c.File == t.File {
			if c.Key == key {
				t.take(c.Model, c.Tokens, false)
				t.take(model, n, true)
				c.Model, c.Tokens = model, n
				return
			}
			break
		}
	}
	for _, c := range t.Seen {
		if c.Key == key {
			return
		}
	}
	t.take(model, n, true)
	t.Seen = append(t.Seen, Counted{key, model, n, t.File})
	if len(t.Seen) >= SeenKeep+seenSlack { // in batches: not a copy per message
		t.Seen = t.Seen[:copy(t.Seen, t.Seen[len(t.Seen)-SeenKeep:])]
	}
}

// AddTokens counts some tokens of a model that need no dedup.
func (t *Tally) AddTokens(model string, n Tokens) { t.take(model, n, true) }

func (t *Tally) take(model string, n Tokens, add bool) {
	if t.Models == nil {
		t.Models = map[string]Tokens{}
	}
	if add {
		t.Models[model] = t.Models[model].Add(n)
	} else {
		t.Models[model] = t.Models[model].Sub(n)
	}
}

// Sum is the tokens of every model.
func (t *Tally) Sum() Tokens {
	var s Tokens
	for _, n := range t.Models {
		s = s.Add(n)
	}
	return s
}

// Cost estimates what the tokens cost at the table's prices: ok is false
// when a model that used tokens has no price (unpriced names them, sorted),
// and then cost is that of the priced ones alone.
func (t *Tally) Cost() (cost float64, unpriced []string, ok bool) {
	models := make([]string, 0, len(t.Models))
	for m := range t.Models {
		models = append(models, m)
	}
	sort.Strings(models) // a sum in one order: the same tokens, the same cost
	for _, m := range models {
		n := t.Models[m]
		if n == (Tokens{}) {
			continue
		}
		p, found := Lookup(m)
		if !found {
			name := m
			if name == "" {
				name = "unknown model"
			}
			unpriced = append(unpriced, name)
			continue
		}
		cost += p.Cost(n)
	}
	return cost, unpriced, len(unpriced) == 0
}
