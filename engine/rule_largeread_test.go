package engine

import (
	"strings"
	"testing"
	"time"
)

func TestLargeReadGuard(t *testing.T) {
	s := newSim(t)
	s.prompt()
	mt := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if n := s.call(sized(read("big.json"), 256<<10, mt)); n != "" {
		t.Fatalf("exactly 256 KiB is not over the limit: %q", n)
	}
	if n := s.call(sized(read("huge.json"), 300<<10, mt)); !strings.Contains(n, "huge.json") {
		t.Fatalf("over 256 KiB: %q", n)
	}
	ranged := sized(read("huge2.json"), 300<<10, mt)
	ranged.Ranged = true
	if n := s.call(ranged); n != "" {
		t.Fatalf("a ranged read is exempt: %q", n)
	}
}

func TestLargeReadRule(t *testing.T) {
	mt := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ranged := wholeReadOf("huge.json", 300<<10, mt)
	ranged.Ranged = true
	noSize := wholeReadOf("huge.json", 300<<10, mt)
	noSize.Size = nil
	noTarget := wholeReadOf("", 300<<10, mt)
	edit := wholeReadOf("huge.json", 300<<10, mt)
	edit.Class = ClassEdit
	runGuardCases(t, largeRead, []guardCase{
		{name: "at the limit", ev: wholeReadOf("big.json", 256<<10, mt)},
		{name: "one byte over", ev: wholeReadOf("big.json", 256<<10+1, mt), evidence: "whole-file read of big.json (256 KiB, over 256 KiB)"},
		{name: "over", ev: wholeReadOf("huge.json", 300<<10, mt), evidence: "whole-file read of huge.json (300 KiB, over 256 KiB)"},
		{name: "MiB", ev: wholeReadOf("dump.sql", 3<<19, mt), evidence: "whole-file read of dump.sql (1.5 MiB, over 256 KiB)"},
		{name: "lower limit", cfg: func(c *Config) { c.LargeReadBytes = 1000 }, ev: wholeReadOf("a.go", 1001, mt), evidence: "whole-file read of a.go (1001 B, over 1000 B)"},
		{name: "ranged", ev: ranged},
		{name: "size unknown", ev: noSize},
		{name: "no target", ev: noTarget},
		{name: "not a read", ev: edit},
	})
}

// The key is path, size and mtime: a file that changed is warned again.
func TestLargeReadKey(t *testing.T) {
	s := NewState("s")
	mt := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	base := keyOf(t, largeRead, s, wholeReadOf("a.json", 300<<10, mt))
	if again := keyOf(t, largeRead, s, wholeReadOf("a.json", 300<<10, mt)); again != base {
		t.Error("the same read twice must share its key")
	}
	for name, ev := range map[string]Event{
		"other path":  wholeReadOf("b.json", 300<<10, mt),
		"other size":  wholeReadOf("a.json", 301<<10, mt),
		"other mtime": wholeReadOf("a.json", 300<<10, mt.Add(time.Nanosecond)),
	} {
		if keyOf(t, largeRead, s, ev) == base {
			t.Errorf("%s: same key", name)
		}
	}
}
