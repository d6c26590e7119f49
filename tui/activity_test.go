package tui

import (
	"strings"
	"testing"

	"cully/engine"

	"github.com/charmbracelet/x/ansi"
)

// The user's own acts on a run (a rollback, a pause, a resume) are rows of
// the activity list, as the calls around them are: what was rolled back
// to, how many files, and the file when it was one; a failed rollback in
// the failure style, saying nothing changed.
func TestActivityShowsTheUsersRunControl(t *testing.T) {
	m := model(t, scenario(), 56, 24)
	step := func(n int) *int { return &n }
	for _, c := range []struct {
		ev   engine.Event
		want string
	}{
		{engine.Event{Kind: engine.KindRollback, Outcome: engine.OutcomeOK, Step: step(0), Paths: []string{"testdata/corpus.json"}, PathCount: 1}, "↶ rolled back to step 0 · 1 file · testdata/corpus.json"},
		{engine.Event{Kind: engine.KindRollback, Outcome: engine.OutcomeOK, Step: step(3), Paths: []string{"a.go", "b.go"}, PathCount: 2}, "↶ rolled back to step 3 · 2 files"},
		{engine.Event{Kind: engine.KindRollback, Outcome: engine.OutcomeFailed, Step: step(2), Note: "x is a directory"}, "↶ rollback to step 2 failed: nothing changed"},
		{engine.Event{Kind: engine.KindPause, Note: "cully stop"}, "‖ run paused"},
		{engine.Event{Kind: engine.KindResume}, "▸ run resumed"},
	} {
		ev := c.ev
		ev.Time = m.now
		if !shownInRecent(&ev) {
			t.Errorf("%s: not in the activity list", ev.Kind)
		}
		got := ansi.Strip(strings.Join(activityRow{ev: &ev, m: &m}.Lines(80), "\n"))
		if !strings.Contains(got, c.want) {
			t.Errorf("%s: row %q, want %q in it", ev.Kind, got, c.want)
		}
	}
}
