package engine

import (
	"strings"
	"testing"
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
