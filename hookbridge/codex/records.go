package codex

import (
	"path/filepath"
	"strconv"
	"time"

	"cully/hookbridge"
	"cully/jsonlite"
	"cully/usage"
)

// UsageFiles finds a session's rollout: sessions/YYYY/MM/DD/rollout-*-SESSION.jsonl
// in Codex's home. known is the hooks' hash of the rollout's path.
func (Agent) UsageFiles(session, known string, getenv func(string) string) []string {
	if !hookbridge.SafeID(session) {
		return nil
	}
	d, err := home(getenv)
	if err != nil {
		return nil
	}
	for _, p := range hookbridge.FindFiles([]string{filepath.Join(d, "sessions", "*", "*", "*", "rollout-*-"+session+".jsonl")}, 16) {
		if known == "" || rolloutFile(p) == known {
			return []string{p}
		}
	}
	return nil
}

// UsageLine reads the token counts, the model, the context and the rate
// limits from a rollout's lines:
//
//	{"type":"turn_context","payload":{"model":"gpt-5.5",…}}
//	{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{…},"last_token_usage":{…},"model_context_window":258400},"rate_limits":{"primary":{"used_percent":7.0,"window_minutes":300,"resets_at":1763483205},…}}}
//	{"type":"token_usage_record","payload":{"usage":{…},"thread_token_usage":{…}}}
//
// The counts are the session's running totals: each new total's increase
// goes to the model of the turn it came in (a total written twice adds
// nothing). Codex counts cached input inside input_tokens: it is taken out
// into CacheRead.
func (Agent) UsageLine(line []byte, main bool, t *usage.Tally) {
	var typ, payload, stamp []byte
	_ = jsonlite.Members(line, func(k, v []byte) error {
		switch string(k) {
		case `"type"`:
			typ = v
			switch string(v) {
			case `"event_msg"`, `"token_usage_record"`, `"turn_context"`:
			default:
				return skipLine
			}
		case `"payload"`:
			payload = v
		case `"timestamp"`:
			stamp = v
		}
		return nil
	})
	if payload == nil {
		return
	}
	p := jsonlite.AsObject(payload)
	switch string(typ) {
	case `"turn_context"`:
		if m := p.Str("model"); m != "" {
			t.Model = m
		}
		return
	case `"token_usage_record"`:
		if all := p.Sub("thread_token_usage"); len(all) > 0 {
			addTotal(t, all)
		}
		if last := p.Sub("usage"); len(last) > 0 && main {
			t.Context = last.Int("input_tokens")
		}
		return
	}
	switch p.Str("type") {
	case "thread_settings_applied":
		if m := p.Sub("thread_settings").Str("model"); m != "" {
			t.Model = m
		}
	case "task_started":
		if w := p.Int("model_context_window"); w > 0 {
			t.Window = w
		}
	case "token_count":
		info := p.Sub("info")
		if w := info.Int("model_context_window"); w > 0 {
			t.Window = w
		}
		if all := info.Sub("total_token_usage"); len(all) > 0 {
			addTotal(t, all)
		}
		if last := info.Sub("last_token_usage"); len(last) > 0 && main {
			t.Context = last.Int("input_tokens")
		}
		if rl := p.Sub("rate_limits"); len(rl) > 0 {
			at := time.Time{}
			if s := jsonlite.Str(stamp); s != "" {
				at, _ = time.Parse(time.RFC3339Nano, s)
			}
			var limits []usage.RateLimit
			for _, name := range []string{"primary", "secondary"} {
				w := rl.Sub(name)
				if !w.Present("used_percent") {
					continue
				}
				l := usage.RateLimit{Name: name, UsedPercent: float(w["used_percent"]), WindowMinutes: w.Int("window_minutes"), ResetsAt: w.Int("resets_at")}
				if l.ResetsAt == 0 && w.Present("resets_in_seconds") && !at.IsZero() {
					l.ResetsAt = at.Unix() + w.Int("resets_in_seconds")
				}
				limits = append(limits, l)
			}
			if limits != nil {
				t.Limits = limits
			}
		}
	}
}

// addTotal takes a new running total: its increase over the last one goes
// to the current model. A total below the last (a counter that started
// over) counts whole.
func addTotal(t *usage.Tally, all jsonlite.Object) {
	in, cached := all.Int("input_tokens"), all.Int("cached_input_tokens")
	cur := usage.Tokens{Input: in - min(cached, in), CacheRead: cached, Output: all.Int("output_tokens")}
	d := cur
	if t.Total != nil {
		d = cur.Sub(*t.Total)
		if d.Input < 0 || d.CacheRead < 0 || d.Output < 0 {
			d = cur
		}
	}
	t.Total = &cur
	if d != (usage.Tokens{}) {
		t.AddTokens(t.Model, d)
	}
}

// float reads a JSON number (0 when it is not one).
func float(v []byte) float64 {
	f, _ := strconv.ParseFloat(string(v), 64)
	return f
}
