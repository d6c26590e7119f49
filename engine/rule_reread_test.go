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
