package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"cully/runs"
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

// t on a shown checkpoint asks for it to be told at the agent's next call:
// it waits out the undo window as an acknowledgment does (u drops it),
// then is written; the row says "telling". A told checkpoint, a guard:
// nothing to tell.
func TestTellKey(t *testing.T) {
	f := scenario()
	var tm tea.Model = model(t, f, 56, 40)
	tm = selectItem(t, tm, "c:c3")
	tm, due := tm.Update(keyMsg("t"))
	if len(f.tells) != 0 || !strings.Contains(screen(tm), "telling c3 at the agent's next call · u undoes") || !strings.Contains(screen(tm), "c3 exploring · now · telling") {
		t.Fatalf("t waits, saying so:\n%s", screen(tm))
	}
	tm = press(t, tm, "u")
	tm = run(t, tm, due)
	if len(f.tells) != 0 || !strings.Contains(screen(tm), "undone: c3 is not told") {
		t.Fatalf("undone tell written %v:\n%s", f.tells, screen(tm))
	}
	tm = press(t, tm, "t") // instant timers: the window ends at once
	if len(f.tells) != 1 || f.tells[0][0] != "c3" || !strings.Contains(screen(tm), "c3 is told at the agent's next tool call") {
		t.Fatalf("tells %v:\n%s", f.tells, screen(tm))
	}
	if !f.states[mainID].Checkpoints[len(f.states[mainID].Checkpoints)-1].Asked {
		t.Errorf("the state does not say c3 is to be told")
	}
	if got := screen(press(t, tm, "t")); !strings.Contains(got, "told at the agent's next tool call already") {
		t.Errorf("a second t:\n%s", got)
	}
	tm = press(t, tm, "k", "k", "k")
	if tm.(Model).sel != "c:c2" {
		t.Fatalf("selected %q, want c2 first", tm.(Model).sel)
	}
	if got := screen(press(t, tm, "t")); !strings.Contains(got, "c2 was told already") {
		t.Errorf("t on a told checkpoint:\n%s", got)
	}
	tm = selectItem(t, tm, "g:")
	if got := screen(press(t, tm, "t")); !strings.Contains(got, "nothing to tell") {
		t.Errorf("t on a guard:\n%s", got)
	}
}

// The tell waiting out its undo window, at 32, 56 and 100 columns, and
// the checkpoint's details once it is asked.
func TestTellGoldens(t *testing.T) {
	for _, w := range []int{32, 56, 100} {
		var tm tea.Model = model(t, scenario(), w, 24)
		tm = selectItem(t, tm, "c:c3")
		tm, _ = tm.Update(keyMsg("t"))
		golden(t, fmt.Sprintf("tell-%dx24", w), screen(tm))
	}
	f := scenario()
	var tm tea.Model = model(t, f, 56, 40)
	tm = press(t, selectItem(t, tm, "c:c3"), "t", "enter")
	got := screen(tm)
	golden(t, "detail-told-asked-56", got)
	if !strings.Contains(squash(got), squash("you asked (t)")) {
		t.Errorf("the details do not say the tell is asked:\n%s", got)
	}
}

// g selects the pane the agent's hook recorded, inside tmux; without a
// pane, or outside tmux, it says why it cannot.
func TestGoToKey(t *testing.T) {
	f := scenario()
	var tm tea.Model = start(t, newModel(f, 56, 30, Options{Session: mainID, Tmux: true}))
	if got := screen(press(t, tm, "g")); !strings.Contains(squash(got), "noTMUX_PANE") || len(f.controls) != 0 {
		t.Errorf("g with no pane recorded:\n%s", got)
	}
	f.states[mainID].Pane = "%3"
	tm = start(t, newModel(f, 56, 30, Options{Session: mainID, Tmux: true}))
	if got := screen(press(t, tm, "g")); !strings.Contains(got, "selected the agent's pane %3") || len(f.controls) != 1 || f.controls[0] != "goto %3" {
		t.Errorf("g: %v\n%s", f.controls, got)
	}
	tm = start(t, newModel(f, 56, 30, Options{Session: mainID}))
	if got := screen(press(t, tm, "g")); !strings.Contains(squash(got), squash("run the panel inside tmux")) || len(f.controls) != 1 {
		t.Errorf("g outside tmux: %v\n%s", f.controls, got)
	}
}

// withDiff is the scenario with a run diff of three files: two the
// agent's, one the user's, and a rollback that would restore one and
// remove one, leaving the user's.
func withDiff() *fakeBackend {
	f := scenario()
	f.diffs = []runs.FileDiff{
		{Path: "parser/parser.go", Status: "modified", By: runs.ByAgent, Text: "diff --git a/parser/parser.go b/parser/parser.go\nindex 1..2 100644\n--- a/parser/parser.go\n+++ b/parser/parser.go\n@@ -10,3 +10,4 @@ func Parse(in []byte) (*Doc, error) {\n \tif len(in) == 0 {\n-\t\treturn nil, ErrEmpty\n+\t\treturn &Doc{}, nil\n+\t\t// an empty input is an empty document\n \t}\n"},
		{Path: "parser/empty_test.go", Status: "added", By: runs.ByAgent, Text: "diff --git a/parser/empty_test.go b/parser/empty_test.go\nnew file mode 100644\n--- /dev/null\n+++ b/parser/empty_test.go\n@@ -0,0 +1,2 @@\n+package parser\n+func TestEmpty(t *testing.T) {}\n"},
		{Path: "NOTES.md", Status: "modified", By: runs.ByOutside, Text: "diff --git a/NOTES.md b/NOTES.md\n--- a/NOTES.md\n+++ b/NOTES.md\n@@ -1 +1 @@\n-todo\n+todo: review the parser\n"},
	}
	f.plan = &runs.Plan{RunID: "r", Root: "/home/dev/parser", To: 0, Restore: []string{"parser/parser.go"}, Remove: []string{"parser/empty_test.go"}, Outside: []string{"NOTES.md"}}
	return f
}

// d shows the run's diff whole width, each file marked by who changed it,
// its change coloured; esc closes it. Goldens at 32, 56 and 100 columns.
func TestDiffView(t *testing.T) {
	for _, w := range []int{32, 56, 100} {
		var tm tea.Model = start(t, newModel(withDiff(), w, 30, Options{Session: mainID}))
		tm = press(t, tm, "d")
		got := screen(tm)
		golden(t, fmt.Sprintf("diff-%dx30", w), got)
		for _, want := range []string{"Diff", "● parser/parser.go", "○ NOTES.md", "+  return &Doc{}", "outside"} {
			if !strings.Contains(got, want) {
				t.Errorf("%d columns: no %q:\n%s", w, want, got)
			}
		}
		if strings.Contains(got, "index 1..2") || strings.Contains(got, "+++ b/") {
			t.Errorf("%d columns: git's headers shown:\n%s", w, got)
		}
		if got := screen(press(t, tm, "esc")); strings.Contains(got, "● parser/parser.go") {
			t.Errorf("esc did not close the diff:\n%s", got)
		}
	}
	// Coloured: added lines green, removed red (the dark palette).
	var tm tea.Model = start(t, newModel(withDiff(), 56, 30, Options{Session: mainID}))
	out := press(t, tm, "d").(Model).Render()
	if !strings.Contains(out, "\x1b[") {
		t.Errorf("the diff has no colour")
	}
}

// R shows the dry run; y rolls back and the undo step is shown; esc
// instead changes nothing. Goldens of the dry run and the result.
func TestRollbackKeys(t *testing.T) {
	for _, w := range []int{32, 56, 100} {
		f := withDiff()
		var tm tea.Model = start(t, newModel(f, w, 24, Options{Session: mainID}))
		tm = press(t, tm, "R")
		got := screen(tm)
		golden(t, fmt.Sprintf("rollback-dry-%dx24", w), got)
		if !strings.Contains(got, "restore  parser/parser.go") || !strings.Contains(got, "left     NOTES.md") || len(f.controls) != 0 {
			t.Fatalf("%d columns: the dry run:\n%s", w, got)
		}
		tm = press(t, tm, "y")
		got = screen(tm)
		golden(t, fmt.Sprintf("rollback-done-%dx24", w), got)
		if len(f.controls) != 1 || !strings.Contains(squash(got), squash("undo: cully rollback --to 4")) {
			t.Fatalf("%d columns: y: %v\n%s", w, f.controls, got)
		}
	}
	f := withDiff()
	var tm tea.Model = start(t, newModel(f, 56, 24, Options{Session: mainID}))
	if got := screen(press(t, tm, "R", "esc", "y")); len(f.controls) != 0 || !strings.Contains(got, "not rolled back") {
		t.Errorf("esc then y rolled back: %v\n%s", f.controls, got)
	}
}
