package engine

import (
	"testing"
	"time"
)

func TestDestructive(t *testing.T) {
	cases := []struct{ cmd, want string }{
		{"git reset --hard", "git reset --hard"},
		{"git reset --hard HEAD~1", "git reset --hard"},
		{"git -C sub reset --hard", "git reset --hard"},
		{"git reset HEAD file.go", ""},
		{"git checkout -- src/a.go", "git checkout of files"},
		{"git checkout .", "git checkout of files"},
		{"git checkout -f main", "git checkout of files"},
		{"git checkout -b feature", ""},
		{"git restore src/a.go", "git restore"},
		{"git restore --staged a.go", ""},
		{"git restore --staged --worktree a.go", "git restore"},
		{"git clean -fd", "git clean -f"},
		{"git clean -n", ""},
		{"git stash", "git stash"},
		{"git stash push -m wip", "git stash"},
		{"git stash drop", "git stash"},
		{"git stash clear", "git stash"},
		{"git stash list", ""},
		{"git -C reset reset --hard", "git reset --hard"},
		{"git stash pop", ""},
		{"git switch -f main", "git switch --discard-changes"},
		{"git switch main", ""},
		{"git worktree remove --force ../wt", "git worktree remove --force"},
		{"git worktree remove ../wt", ""},
		{"rm -rf build", "rm -r"},
		{"rm -r src", "rm -r"},
		{"rm --recursive src", "rm -r"},
		{"rm file.txt", ""},
		{"rm -f file.txt", ""},
		{"cd x && git reset --hard", "git reset --hard"},
		{"sudo rm -rf /tmp/x", "rm -r"},
		{"git status", ""},
		{"echo git reset --hard", ""},
	}
	cfg := DefaultConfig()
	for _, c := range cases {
		if got := ClassifyShell(c.cmd, &cfg).Destructive; got != c.want {
			t.Errorf("%q: %q, want %q", c.cmd, got, c.want)
		}
	}
}

// Marks are asked around calls that may change files, not around reads.
func TestMarkSignals(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	cfg := DefaultConfig()
	s := NewState("s1")
	Apply(s, &Event{V: SchemaVersion, Time: t0, Session: "s1", Kind: KindPrompt}, &cfg)
	for _, c := range []struct {
		class Class
		want  bool
	}{{ClassEdit, true}, {ClassRun, true}, {ClassCheck, true}, {ClassRead, false}, {ClassOther, false}} {
		for _, k := range []Kind{KindPreTool, KindPostTool} {
			sigs := Apply(s, &Event{V: SchemaVersion, Time: t0, Session: "s1", Kind: k, Tool: "Bash", Class: c.class, Destructive: "rm -r"}, &cfg)
			got := false
			for _, g := range sigs {
				if g.Kind == SignalMark {
					got = true
					if g.Evidence != map[Kind]string{KindPreTool: "rm -r", KindPostTool: ""}[k] || g.ID != s.Run.ID {
						t.Errorf("%v", g)
					}
				}
			}
			if got != c.want {
				t.Errorf("%s %s: mark %v, want %v", k, c.class, got, c.want)
			}
		}
	}
	sigs := Apply(s, &Event{V: SchemaVersion, Time: t0, Session: "s1", Kind: KindPreTool, Tool: "Edit", Class: ClassEdit, NoSnapshots: true}, &cfg)
	for _, g := range sigs {
		if g.Kind == SignalMark {
			t.Error("a mark with snapshots off")
		}
	}
}
