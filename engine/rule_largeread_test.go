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
