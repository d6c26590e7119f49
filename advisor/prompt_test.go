package advisor

import (
	"strings"
	"testing"

	"cully/engine"
)

// The hash covers the signals, not the counts; secrets never reach the prompt.
func TestGatherHashesSignalsAndRedacts(t *testing.T) {
	st := engine.NewState("s")
	st.Checkpoints = []engine.Checkpoint{{ID: "c1", Reason: engine.ReasonFailureLoop, Status: engine.StatusOpen, Evidence: "`curl -H 'Authorization: Bearer sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789' x` failed 3 times"}}
	st.Recent = []engine.RecentCall{{Preview: "export TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789", Failed: true}}
	a := Gather(st)
	st.Counts.ToolCalls += 5
	b := Gather(st)
	if a.Hash != b.Hash {
		t.Error("counts changed the evidence hash")
	}
	st.Checkpoints[0].Status = engine.StatusAcked
	if Gather(st).Hash == a.Hash {
		t.Error("a closed checkpoint left the hash unchanged")
	}
	p := Prompt(Preamble, st, a, "")
	for _, secret := range []string{"sk-ant-api03-abcdef", "ghp_abcdef"} {
		if strings.Contains(p, secret) {
			t.Errorf("prompt holds %s:\n%s", secret, p)
		}
	}
	if !strings.HasPrefix(p, Preamble) || !strings.Contains(p, "checkpoint failure-loop:") {
		t.Errorf("prompt:\n%s", p)
	}
}

func TestTidyBoundsAndCleans(t *testing.T) {
	got := Tidy("line one\n\x1b[31mred\x1b[0m\tand " + strings.Repeat("é", 2000))
	if strings.ContainsAny(got, "\n\t\x1b") || len(got) > maxAdvice+len("…") {
		t.Fatalf("tidy: %q", got[:80])
	}
}
