package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// p stops the followed session's run as `cully stop` does (the header
// says so), r asks for a reason inline and resumes with it; esc in the
// prompt records nothing.
func TestPauseResumeKeys(t *testing.T) {
	f := scenario()
	var tm tea.Model = start(t, newModel(f, 56, 30, Options{Session: mainID}))
	tm = press(t, tm, "p")
	if got := screen(tm); !strings.Contains(got, "■ stopped") || !strings.Contains(got, "stopped run") {
		t.Fatalf("p did not stop the run:\n%s", got)
	}
	tm = press(t, tm, "r", "esc")
	if len(f.controls) != 1 || !strings.Contains(screen(tm), "not resumed") {
		t.Fatalf("esc recorded %v:\n%s", f.controls, screen(tm))
	}
	tm = press(t, tm, "r", "l", "g", "t", "m")
	if got := screen(tm); !strings.Contains(got, "› lgtm▌") {
		t.Fatalf("the reason is not shown as typed:\n%s", got)
	}
	tm = press(t, tm, "enter")
	if want := `resume raise=false reason="lgtm"`; len(f.controls) != 2 || f.controls[1] != want {
		t.Fatalf("controls %q, want pause then %s", f.controls, want)
	}
	if got := screen(tm); strings.Contains(got, "■ stopped") || !strings.Contains(got, "resumed run") {
		t.Errorf("r did not resume:\n%s", got)
	}
	if got := screen(press(t, tm, "r")); !strings.Contains(got, "not stopped: p stops it") {
		t.Errorf("r on a running run:\n%s", got)
	}
}

// + asks why the run may use more, and resumes with --raise; q typed in
// the prompt is part of the reason, not a quit.
func TestRaiseKey(t *testing.T) {
	f := scenario()
	var tm tea.Model = start(t, newModel(f, 56, 30, Options{Session: mainID}))
	press(t, tm, "p", "+", "b", "u", "l", "q", "enter")
	if want := `resume raise=true reason="bulq"`; len(f.controls) != 2 || f.controls[1] != want {
		t.Fatalf("controls %q, want %s", f.controls, want)
	}
}

// The reason prompts at 32, 56 and 100 columns.
func TestReasonPromptGoldens(t *testing.T) {
	for _, w := range []int{32, 56, 100} {
		for _, k := range []string{"r", "+"} {
			var tm tea.Model = start(t, newModel(scenario(), w, 20, Options{Session: mainID}))
			tm = press(t, tm, "p", k, "w", "h", "y")
			name := map[string]string{"r": "resume", "+": "raise"}[k]
			got := screen(tm)
			golden(t, fmt.Sprintf("prompt-%s-%dx20", name, w), got)
			if !strings.Contains(got, "› why▌") || !strings.Contains(got, "esc cancel") {
				t.Errorf("%d columns: no prompt:\n%s", w, got)
			}
		}
	}
}
