package engine

import (
	"strings"
	"testing"
)

func TestThirdAttemptGuard(t *testing.T) {
	t.Run("blind retry", func(t *testing.T) {
		s := newSim(t)
		s.prompt()
		s.call(fail("make", "x"))
		if n := s.call(fail("make", "x")); n != "" {
			t.Fatalf("second attempt: %q", n)
		}
		n := s.call(fail("make", "y"))
		if !strings.Contains(n, "failed on its last 2 runs") {
			t.Fatalf("third attempt: %q", n)
		}
	})
	t.Run("retry after an edit", func(t *testing.T) {
		s := newSim(t)
		s.prompt()
		s.call(fail("make", "x"))
		s.call(fail("make", "x"))
		s.call(edit("a.go"))
		if n := s.call(fail("make", "x")); strings.Contains(n, "failed on its last") {
			t.Fatalf("a retry after a fix is not blind: %q", n)
		}
	})
	t.Run("deduplicated", func(t *testing.T) {
		s := newSim(t)
		s.prompt()
		s.call(fail("make", "x"))
		s.call(fail("make", "x"))
		s.call(fail("make", "y"))
		if n := s.call(fail("make", "z")); strings.Contains(n, "failed on its last") {
			t.Fatalf("same situation, warned once: %q", n)
		}
	})
}
