package engine

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// A new prompt starts a new task, and a new task restarts every count: two
// failures of `make build` before the prompt and one after are not "failed
// 3 times in a row", and the first run of the new task is no blind retry.
func TestPromptResetsFailureHistory(t *testing.T) {
	s := newSim(t)
	s.prompt()
	s.call(fail("make build", "sig-build"))
	s.call(fail("make build", "sig-build"))
	s.prompt()
	if n := s.call(fail("make build", "sig-build")); n != "" {
		t.Fatalf("the first run of a new task was nudged:\n%s", n)
	}
	for _, c := range s.st.Checkpoints {
		if c.Reason == ReasonFailureLoop {
			t.Fatalf("a failure loop spanning a prompt: %+v", c)
		}
	}
	// Within the task, the loop is still caught.
	s.call(fail("make build", "sig-build"))
	s.call(fail("make build", "sig-build"))
	if n := s.call(read("a.go")); !strings.Contains(n, "failed 3 times in a row") {
		t.Fatalf("three failures in one task: %q", n)
	}
}

// The user answering the agent's question is steering, like a prompt: the
// exploring count starts again.
func TestAnsweredQuestionIsABoundary(t *testing.T) {
	s := newSim(t)
	s.prompt()
	for i := 0; i < 15; i++ {
		s.call(read(fmt.Sprintf("f%d.go", i)))
	}
	s.call(Event{Tool: "AskUserQuestion", Class: ClassAsk})
	for i := 0; i < 15; i++ {
		if n := s.call(read(fmt.Sprintf("g%d.go", i))); n != "" {
			t.Fatalf("read %d after the answer was nudged: %s", i, n)
		}
	}
	if s.open(ReasonExploring) != 0 {
		t.Fatal("30 reads around an answered question are two stretches of 15")
	}
	// A question that was not answered (it failed) is no boundary.
	s2 := newSim(t)
	s2.prompt()
	for i := 0; i < 15; i++ {
		s2.call(read(fmt.Sprintf("f%d.go", i)))
	}
	s2.call(Event{Tool: "AskUserQuestion", Class: ClassAsk, Outcome: OutcomeFailed})
	for i := 0; i < 6; i++ {
		s2.call(read(fmt.Sprintf("g%d.go", i)))
	}
	if s2.open(ReasonExploring) != 1 {
		t.Fatal("an unanswered question does not reset the exploring count")
	}
}

// /clear (SessionStart with source clear) leaves the agent without its
// earlier reads, like a compaction: a read after it is no re-read.
func TestClearForgetsReads(t *testing.T) {
	for _, source := range []string{"clear", "compact"} {
		s := newSim(t)
		s.prompt()
		mt := s.now.Add(-time.Hour)
		s.call(sized(read("big.go"), 8<<10, mt))
		s.apply(Event{Kind: KindSessionStart, Source: source})
		if n := s.call(sized(read("big.go"), 8<<10, mt)); n != "" {
			t.Errorf("%s: re-read after the context was replaced was nudged: %s", source, n)
		}
	}
	s := newSim(t)
	s.prompt()
	mt := s.now.Add(-time.Hour)
	s.call(sized(read("big.go"), 8<<10, mt))
	s.apply(Event{Kind: KindSessionStart, Source: "resume"})
	if n := s.call(sized(read("big.go"), 8<<10, mt)); !strings.Contains(n, "unchanged") {
		t.Errorf("a resumed session keeps its context: %q", n)
	}
}

// An edit refused until the file is read, then a read of that file, then
// the edit again: an informed retry, not a blind one.
func TestReadMakesEditRetryInformed(t *testing.T) {
	refused := func() Event {
		one := 1
		return Event{Tool: "Edit", Class: ClassEdit, Target: "a.go", CmdFP: "fp-edit-a", Cmd: "Edit a.go", Outcome: OutcomeFailed, Exit: &one, FailSig: "not-read"}
	}
	s := newSim(t)
	s.prompt()
	s.call(refused())
	s.call(refused())
	s.call(read("a.go"))
	if n := s.call(refused()); n != "" {
		t.Fatalf("an edit after reading its file was called blind: %s", n)
	}
	// Without the read, the third try is blind.
	s = newSim(t)
	s.prompt()
	s.call(refused())
	s.call(refused())
	s.call(read("b.go"))
	if n := s.call(refused()); !strings.Contains(n, "nothing changed since") {
		t.Fatalf("reading another file does not inform the retry: %q", n)
	}
}

// A file the agent read before a subagent worked is not an unchanged
// re-read of the agent's own context.
func TestRereadAfterSubagentIsQuiet(t *testing.T) {
	s := newSim(t)
	s.prompt()
	mt := s.now.Add(-time.Hour)
	s.call(sized(read("pkg/a.go"), 8<<10, mt))
	sub := read("pkg/b.go")
	sub.Subagent = "a1"
	s.call(sub)
	if n := s.call(sized(read("pkg/a.go"), 8<<10, mt)); n != "" {
		t.Fatalf("re-read after a subagent worked was nudged: %s", n)
	}
}

// A prompt that interrupts the agent mid-turn (no turn's end since its last
// call) is the user breaking in with something else, not an answer to a
// checkpoint the agent was never told: one due to be told is carried into
// the new task and told once, at its first call, with the figures it was
// due with. A prompt after the turn ended supersedes it as before, and a
// shown-only checkpoint is not carried.
func TestInterruptingPromptCarriesCheckpoint(t *testing.T) {
	explore := func(s *sim) {
		s.apply(Event{Kind: KindStop}) // an earlier turn's end: the host says when turns end
		s.prompt()
		for i := 0; i < 20; i++ {
			s.call(read(fmt.Sprintf("f%d.go", i)))
		}
		if s.open(ReasonExploring) != 1 {
			t.Fatal("20 reads: exploring raised")
		}
	}
	t.Run("interrupted", func(t *testing.T) {
		s := newSim(t)
		explore(s)
		s.prompt() // the user breaks in before the next call
		if s.open(ReasonExploring) != 1 {
			t.Fatal("closed by the interrupting prompt before it could be told")
		}
		n := s.call(read("g.go"))
		if !strings.Contains(n, "exploring") || !strings.Contains(n, "20 read/search calls") {
			t.Fatalf("carried checkpoint not told at the next call: %q", n)
		}
		if n := s.call(read("h.go")); strings.Contains(n, "exploring") {
			t.Fatalf("told twice: %q", n)
		}
		s.apply(Event{Kind: KindStop})
		s.prompt()
		for _, c := range s.st.Checkpoints {
			if c.Reason == ReasonExploring && c.Status != StatusAnswered {
				t.Errorf("told, then a prompt: %s, want answered", c.Status)
			}
		}
	})
	t.Run("interrupted, then an edit", func(t *testing.T) {
		s := newSim(t)
		explore(s)
		s.prompt()
		if n := s.call(edit("a.go")); strings.Contains(n, "exploring") {
			t.Fatalf("the edit that ends the exploring was interrupted by it: %q", n)
		}
		if s.open(ReasonExploring) != 0 {
			t.Error("the agent acted: resolved")
		}
	})
	t.Run("after the turn ended", func(t *testing.T) {
		s := newSim(t)
		explore(s)
		s.apply(Event{Kind: KindStop})
		s.prompt()
		if s.open(ReasonExploring) != 0 {
			t.Fatal("a prompt after the turn's end supersedes an untold checkpoint")
		}
	})
	t.Run("shown only", func(t *testing.T) {
		s := newSim(t)
		s.cfg.ExploreTell = 0
		explore(s)
		s.prompt()
		if s.open(ReasonExploring) != 0 {
			t.Fatal("a checkpoint never to be told is not carried")
		}
	})
}

// A host that never says a turn ended (no Stop event in the session) makes
// every prompt look like an interruption: none is taken for one.
func TestNoStopsNoInterruption(t *testing.T) {
	s := newSim(t)
	s.prompt()
	for i := 0; i < 20; i++ {
		s.call(read(fmt.Sprintf("f%d.go", i)))
	}
	s.prompt()
	if s.open(ReasonExploring) != 0 {
		t.Fatal("carried in a session whose host never ends a turn")
	}
}
