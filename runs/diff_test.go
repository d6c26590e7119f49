package runs

import (
	"strings"
	"testing"
)

// The run's diff since its start: each file changed, by whom (the agent's
// calls, someone else, someone else then the agent), with git's unified
// diff; nothing is written (a rollback's dry run sees the same files).
func TestDiffMarksWhoChanged(t *testing.T) {
	w := newWorld(t, true)
	w.mark("pre", "c0", "")
	w.mark("post", "c0", "")
	w.write("b.txt", "the user's, before the agent\n")
	w.call("c1", func() {
		w.write("a.txt", "agent\n")
		w.write("b.txt", "agent over the user's\n")
		w.write("new.txt", "agent made\n")
	})
	w.write("user.txt", "made by the user meanwhile\n")
	before := w.snapshotTree()
	ds, err := Diff(w.h, DiffRequest{Run: w.run, To: 0})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]FileDiff{}
	for _, d := range ds {
		got[d.Path] = d
	}
	for path, want := range map[string][2]string{
		"a.txt":    {"modified", ByAgent},
		"b.txt":    {"modified", ByBoth},
		"new.txt":  {"added", ByAgent},
		"user.txt": {"added", ByOutside},
	} {
		d, ok := got[path]
		if !ok || d.Status != want[0] || d.By != want[1] {
			t.Errorf("%s: %+v, want %s by %s", path, d, want[0], want[1])
		}
	}
	if a := got["a.txt"].Text; !strings.Contains(a, "-a\n+agent\n") || !strings.Contains(a, "--- a/a.txt") {
		t.Errorf("a.txt's diff:\n%s", a)
	}
	if len(ds) != 4 {
		t.Errorf("%d files, want 4: %+v", len(ds), ds)
	}
	if after := w.snapshotTree(); after != before {
		t.Errorf("the diff wrote a snapshot")
	}
	p, err := w.rollback(0, true)
	if err != nil {
		t.Fatal(err)
	}
	if !contains(p.Outside, "user.txt") || !contains(p.Restore, "a.txt") || !contains(p.Remove, "new.txt") {
		t.Errorf("the dry run sees otherwise: %+v", p)
	}
}
