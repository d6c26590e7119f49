package usage_test

import (
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"cully/engine"
	"cully/hookbridge"
	"cully/usage"
)

// What each record says of the context, the model, its window and the
// rate limits: the newest main-chain request's.
func TestContextAndLimits(t *testing.T) {
	want := map[string]struct {
		context, window int64
		model           string
		limits          []usage.RateLimit
	}{
		"claude": {3 + 410 + 26280, 200_000, "claude-sonnet-4-5-20250929", nil},
		"codex": {15240, 258400, "gpt-5.2-codex", []usage.RateLimit{
			{Name: "primary", UsedPercent: 9, WindowMinutes: 300, ResetsAt: 1796036400},
			{Name: "secondary", UsedPercent: 43, WindowMinutes: 10080, ResetsAt: 1796400000}}},
		"gemini": {12690, 1_048_576, "gemini-3.1-pro-preview", nil},
	}
	for _, tc := range ccusage {
		w := want[tc.agent.Name()]
		dir, _ := filepath.Abs(filepath.Join("testdata", tc.dir))
		files := tc.agent.UsageFiles(tc.session, "", func(k string) string {
			if k == tc.env {
				return dir
			}
			return ""
		})
		var c usage.Cache
		hookbridge.ReadUsage(tc.agent, &c, files)
		f := usage.Merge(nil, &c)
		if f.Context == nil || *f.Context != w.context || f.Window == nil || *f.Window != w.window || f.Model != w.model {
			t.Errorf("%s: context %v of %v, model %q; want %d of %d, %q", tc.agent.Name(), f.Context, f.Window, f.Model, w.context, w.window, w.model)
		}
		if !reflect.DeepEqual(f.Limits, w.limits) {
			t.Errorf("%s: limits %+v, want %+v", tc.agent.Name(), f.Limits, w.limits)
		}
	}
}

// The host's own figures win: a status line's cost over the estimate, the
// hooks' token totals over the record's; a model with no price leaves the
// cost unknown, naming it.
func TestMerge(t *testing.T) {
	var c usage.Cache
	c.Tally.AddMessage("a", "claude-sonnet-4-5", usage.Tokens{Input: 1000, Output: 1000})
	c.Tally.Model, c.Tally.Context = "claude-sonnet-4-5", 1000
	f := usage.Merge(nil, &c)
	if f.CostUSD == nil || !f.Estimated || *f.CostUSD != 0.018 || f.PricesAsOf != usage.PricesAsOf {
		t.Errorf("estimate %+v", f)
	}
	cost, ctx, win := 0.5, int64(5000), int64(1_000_000)
	f = usage.Merge(&engine.HostUsage{CostUSD: &cost, ContextTokens: &ctx, ContextWindow: &win}, &c)
	if *f.CostUSD != 0.5 || f.Estimated || *f.Context != 5000 || *f.Window != 1_000_000 || *f.Input != 1000 {
		t.Errorf("host's figures did not win: %+v", f)
	}
	c.Tally.AddMessage("b", "claude-opus-9", usage.Tokens{Input: 1})
	f = usage.Merge(nil, &c)
	if f.CostUSD != nil || !reflect.DeepEqual(f.Unpriced, []string{"claude-opus-9"}) {
		t.Errorf("an unpriced model: %+v", f)
	}
	if f := usage.Merge(nil, nil); f.CostUSD != nil || f.Input != nil || f.Context != nil {
		t.Errorf("nothing read is unknown, not zero: %+v", f)
	}
}

// A message's copies count once: the newest's later copy replaces its
// figures, an older one's adds nothing.
func TestAddMessage(t *testing.T) {
	var tl usage.Tally
	tl.AddMessage("m1", "x", usage.Tokens{Output: 3})
	tl.AddMessage("m1", "x", usage.Tokens{Output: 30})
	tl.AddMessage("m2", "x", usage.Tokens{Output: 5})
	tl.AddMessage("m1", "x", usage.Tokens{Output: 3})
	if got := tl.Sum().Output; got != 35 {
		t.Errorf("output %d, want 35", got)
	}
	for i := 0; i < 3*usage.SeenKeep; i++ {
		tl.AddMessage(fmt.Sprint("k", i), "x", usage.Tokens{Output: 1})
		if len(tl.Seen) < min(i+1, usage.SeenKeep) || len(tl.Seen) > usage.SeenKeep+64 {
			t.Fatalf("after %d messages, %d remembered", i+1, len(tl.Seen))
		}
	}
	tl.AddMessage(fmt.Sprint("k", 3*usage.SeenKeep-1), "x", usage.Tokens{Output: 1000})
	if got := tl.Sum().Output; got != 35+3*usage.SeenKeep-1+1000 {
		t.Errorf("the newest message's later copy: output %d", got)
	}
}

func TestLookup(t *testing.T) {
	for model, ok := range map[string]bool{
		"claude-sonnet-4-5-20250929": true, "anthropic/claude-haiku-4-5": true, "gpt-5.5": true,
		"claude-opus-5-5": false, "": false, "gpt-5.5-20": false,
	} {
		if _, got := usage.Lookup(model); got != ok {
			t.Errorf("Lookup(%q) = %v", model, got)
		}
	}
	p, _ := usage.Lookup("claude-opus-4-5")
	if got := p.Cost(usage.Tokens{CacheWrite1h: 1_000_000, CacheWrite: 1_000_000}); got != 16.25 {
		t.Errorf("1h and 5m cache writes of a million each: $%v, want $16.25", got)
	}
}

// A rate-limit window is named by its length, else by the host's name.
func TestRateLimitWindow(t *testing.T) {
	for _, c := range []struct {
		l    usage.RateLimit
		want string
	}{
		{usage.RateLimit{Name: "primary", WindowMinutes: 300}, "5h"},
		{usage.RateLimit{Name: "secondary", WindowMinutes: 7 * 24 * 60}, "weekly"},
		{usage.RateLimit{Name: "burst", WindowMinutes: 90}, "90m"},
		{usage.RateLimit{Name: "primary"}, "primary"},
	} {
		if got := c.l.Window(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.l, got, c.want)
		}
	}
}
