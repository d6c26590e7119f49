package engine

import (
	"strings"
	"testing"
	"time"
)

func TestRereadGuard(t *testing.T) {
	mt := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	t.Run("unchanged re-read warns once", func(t *testing.T) {
		s := newSim(t)
		s.prompt()
		s.call(sized(read("a.go"), 5000, mt))
		if n := s.call(sized(read("a.go"), 5000, mt)); !strings.Contains(n, "a.go") || !strings.Contains(n, "unchanged") {
			t.Fatalf("re-read: %q", n)
		}
		if n := s.call(sized(read("a.go"), 5000, mt)); n != "" {
			t.Fatalf("dedup by size and mtime: %q", n)
		}
	})
	exempt := map[string]func(s *sim){
		"small file": func(s *sim) {
			s.call(sized(read("a.go"), 4095, mt))
			if n := s.call(sized(read("a.go"), 4095, mt)); n != "" {
				t.Errorf("under 4 KiB: %q", n)
			}
		},
		"ranged": func(s *sim) {
			s.call(sized(read("a.go"), 5000, mt))
			ev := sized(read("a.go"), 5000, mt)
			ev.Ranged = true
			if n := s.call(ev); n != "" {
				t.Errorf("ranged: %q", n)
			}
		},
		"touched": func(s *sim) {
			s.call(sized(read("a.go"), 5000, mt))
			if n := s.call(sized(read("a.go"), 5000, mt.Add(time.Second))); n != "" {
				t.Errorf("newer mtime: %q", n)
			}
		},
		"edited by the agent": func(s *sim) {
			s.call(sized(read("a.go"), 5000, mt))
			s.call(edit("a.go"))
			if n := s.call(sized(read("a.go"), 5000, mt)); n != "" {
				t.Errorf("after an edit: %q", n)
			}
		},
		"after compaction": func(s *sim) {
			s.call(sized(read("a.go"), 5000, mt))
			s.apply(Event{Kind: KindCompact})
			if n := s.call(sized(read("a.go"), 5000, mt)); n != "" {
				t.Errorf("after compaction: %q", n)
			}
		},
		"first read was ranged": func(s *sim) {
			ev := sized(read("a.go"), 5000, mt)
			ev.Ranged = true
			s.call(ev)
			if n := s.call(sized(read("a.go"), 5000, mt)); n != "" {
				t.Errorf("only whole reads count as already read: %q", n)
			}
		},
	}
	for name, f := range exempt {
		t.Run(name, func(t *testing.T) {
			s := newSim(t)
			s.prompt()
			f(s)
		})
	}
}

func TestRereadRule(t *testing.T) {
	mt := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	readAt := func(key string, ago time.Duration, mtime time.Time) func(s *State) {
		return func(s *State) {
			s.Files[key] = &FileSeen{Reads: 1, WholeAt: ruleNow.Add(-ago).Unix(), WholeMod: mtime.UnixNano(), WholeSize: 5000, Seen: ruleNow.Add(-ago).Unix()}
		}
	}
	ranged := wholeReadOf("a.go", 5000, mt)
	ranged.Ranged = true
	noMtime := wholeReadOf("a.go", 5000, mt)
	noMtime.Mtime = nil
	sub := wholeReadOf("a.go", 5000, mt)
	sub.Subagent = "a1"
	runGuardCases(t, unchangedReread, []guardCase{
		{name: "unchanged since the whole read", state: readAt("a.go", 90*time.Second, mt), ev: wholeReadOf("a.go", 5000, mt),
			evidence: "a.go (4.9 KiB) was read whole 1m30s ago and is unchanged since by modification time"},
		{name: "older mtime than at the read", state: readAt("a.go", time.Hour, mt), ev: wholeReadOf("a.go", 5000, mt.Add(-time.Second)),
			evidence: "a.go (4.9 KiB) was read whole 1h0m0s ago and is unchanged since by modification time"},
		{name: "read this second", state: readAt("a.go", 0, mt), ev: wholeReadOf("a.go", 5000, mt),
			evidence: "a.go (4.9 KiB) was read whole just now and is unchanged since by modification time"},
		{name: "exactly the minimum size", state: readAt("a.go", time.Minute, mt), ev: wholeReadOf("a.go", 4096, mt),
			evidence: "a.go (4 KiB) was read whole 1m0s ago and is unchanged since by modification time"},
		{name: "under the minimum size", state: readAt("a.go", time.Minute, mt), ev: wholeReadOf("a.go", 4095, mt)},
		{name: "no minimum", state: readAt("a.go", time.Minute, mt), cfg: func(c *Config) { c.RereadMinBytes = 0 }, ev: wholeReadOf("a.go", 10, mt),
			evidence: "a.go (10 B) was read whole 1m0s ago and is unchanged since by modification time"},
		{name: "touched since", state: readAt("a.go", time.Minute, mt), ev: wholeReadOf("a.go", 5000, mt.Add(time.Nanosecond))},
		{name: "never read", ev: wholeReadOf("a.go", 5000, mt)},
		{name: "other file read", state: readAt("b.go", time.Minute, mt), ev: wholeReadOf("a.go", 5000, mt)},
		{name: "read, not whole", state: func(s *State) { s.Files["a.go"] = &FileSeen{Reads: 1, Seen: ruleNow.Unix()} }, ev: wholeReadOf("a.go", 5000, mt)},
		{name: "mtime unknown", state: readAt("a.go", time.Minute, mt), ev: noMtime},
		{name: "ranged", state: readAt("a.go", time.Minute, mt), ev: ranged},
		{name: "read by a subagent, now by the main agent", state: readAt("a1\x00a.go", time.Minute, mt), ev: wholeReadOf("a.go", 5000, mt)},
		{name: "read by the main agent, now by a subagent", state: readAt("a.go", time.Minute, mt), ev: sub},
		{name: "the same subagent again", state: readAt("a1\x00a.go", time.Minute, mt), ev: sub,
			evidence: "a.go (4.9 KiB) was read whole 1m0s ago and is unchanged since by modification time"},
	})
}

// The key is the file (per subagent), size and mtime.
func TestRereadKey(t *testing.T) {
	mt := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := NewState("s")
	s.ensure()
	for _, k := range []string{"a.go", "a1\x00a.go"} {
		s.Files[k] = &FileSeen{Reads: 1, WholeAt: ruleNow.Unix(), WholeMod: mt.UnixNano()}
	}
	base := keyOf(t, unchangedReread, s, wholeReadOf("a.go", 5000, mt))
	sub := wholeReadOf("a.go", 5000, mt)
	sub.Subagent = "a1"
	for name, ev := range map[string]Event{
		"other size":     wholeReadOf("a.go", 5001, mt),
		"older mtime":    wholeReadOf("a.go", 5000, mt.Add(-time.Second)),
		"other subagent": sub,
	} {
		if keyOf(t, unchangedReread, s, ev) == base {
			t.Errorf("%s: same key", name)
		}
	}
	if keyOf(t, largeRead, s, wholeReadOf("a.go", 300<<10, mt)) == keyOf(t, unchangedReread, s, wholeReadOf("a.go", 300<<10, mt)) {
		t.Error("the large-read and re-read keys of one read must differ")
	}
}

func TestAgo(t *testing.T) {
	for _, c := range []struct {
		name string
		then int64
		want string
	}{
		{"unknown", 0, "earlier"},
		{"same second", ruleNow.Unix(), "just now"},
		{"in the future (clock skew)", ruleNow.Unix() + 5, "just now"},
		{"seconds", ruleNow.Unix() - 42, "42s ago"},
		{"minutes", ruleNow.Unix() - 91, "1m31s ago"},
	} {
		if got := ago(ruleNow, c.then); got != c.want {
			t.Errorf("%s: ago = %q, want %q", c.name, got, c.want)
		}
	}
}
