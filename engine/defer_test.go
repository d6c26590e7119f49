package engine

import (
	"fmt"
	"strings"
	"testing"
)

// deferredCall runs one call of a host whose pre-tool answer never reaches
// the model: it returns the nudge of the pre-tool event (which must be
// none) and of the post-tool event, which carries what is due.
func (s *sim) deferredCall(ev Event) (pre, post string) {
	ev.Defer = true
	p := ev
	p.Kind, p.Outcome, p.Exit, p.FailSig = KindPreTool, "", nil, ""
	pre = Nudge(s.apply(p))
	q := ev
	q.Kind = KindPostTool
	if q.Outcome == "" {
		q.Outcome = OutcomeOK
	}
	return pre, Nudge(s.apply(q))
}

// On a deferring host a guard raised before a call is held and told once,
// with that call's result; a checkpoint is told with the result of the call
// that raised it, once.
func TestDeferredDelivery(t *testing.T) {
	t.Run("guard", func(t *testing.T) {
		s := newSim(t)
		s.prompt()
		var posts []string
		for i := 0; i < 4; i++ {
			pre, post := s.deferredCall(fail("ls /nope", "sig"))
			if pre != "" {
				t.Fatalf("call %d: a deferred pre-tool event nudged: %q", i+1, pre)
			}
			posts = append(posts, post)
		}
		if !strings.Contains(posts[2], "failed on its last 2 runs") {
			t.Fatalf("the third attempt's guard is told with its result: %q", posts)
		}
		n := 0
		for _, p := range posts {
			n += strings.Count(p, "failed on its last 2 runs")
		}
		if n != 1 {
			t.Fatalf("guard told %d times: %q", n, posts)
		}
		for _, w := range s.st.Warnings {
			if w.Held {
				t.Fatalf("a delivered warning is still held: %+v", w)
			}
		}
	})
	t.Run("checkpoint", func(t *testing.T) {
		s := newSim(t)
		s.prompt()
		told := -1
		for i := 0; i < 23; i++ {
			_, post := s.deferredCall(read(fmt.Sprintf("f%d.go", i)))
			if strings.Contains(post, "(exploring)") {
				if told >= 0 {
					t.Fatalf("exploring told twice: at call %d and %d", told+1, i+1)
				}
				told = i
			}
		}
		if told != 19 {
			t.Fatalf("exploring told with the result of call %d, want 20 (the call that raised it)", told+1)
		}
	})
	t.Run("quiet", func(t *testing.T) {
		s := newSim(t)
		s.prompt()
		for i := 0; i < 3; i++ {
			ev := fail("ls /nope", "sig")
			ev.Quiet = true
			if _, post := s.deferredCall(ev); post != "" {
				t.Fatalf("CULLY_GUARD=off, yet a nudge: %q", post)
			}
		}
		if _, post := s.deferredCall(read("a.go")); strings.Contains(post, "failed on its last") {
			t.Fatalf("a warning raised while quiet was told later: %q", post)
		}
	})
}
