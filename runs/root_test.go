package runs

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWithin(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		root, dir string
		want      bool
	}{
		{"/a/b", "/a/b", true},
		{"/a/b", "/a/b/c/d", true},
		{"/a/b", "/a/bc", false}, // a longer name is no descendant
		{"/a/b", "/a", false},
		{"/a/b", "/x/a/b", false},
		{"/", "/a", true},
		{"", "/a", false},
		{"/a", "", false},
		{"/a/b", "/a/b/..c", true}, // a name that starts with two dots is still inside
	} {
		if got := Within(c.root, c.dir); got != c.want {
			t.Errorf("Within(%q, %q) = %v, want %v", c.root, c.dir, got, c.want)
		}
	}
}

// A session's project root is its run's work tree once the baseline is
// taken; before, git's top level of the agent's folder, else the folder;
// symlinks resolved, so a folder reached through a link compares equal.
func TestRoot(t *testing.T) {
	t.Parallel()
	w := newWorld(t, true)
	base := filepath.Dir(w.root)
	sub := filepath.Join(w.root, "pkg")
	link := filepath.Join(base, "link")
	if err := os.Symlink(w.root, link); err != nil {
		t.Fatal(err)
	}
	real := Resolve(w.root)
	if got := Root(w.h, "", filepath.Join(link, "pkg")); got != real {
		t.Errorf("no run: git's top level of the folder, resolved: %q, want %q", got, real)
	}
	plain := filepath.Join(base, "plain", "deep")
	if err := os.MkdirAll(plain, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := Root(w.h, "", plain); got != Resolve(plain) {
		t.Errorf("outside git: the folder itself: %q", got)
	}
	if got := Root(w.h, "", ""); got != "" {
		t.Errorf("no folder, no run: %q", got)
	}
	if got := Root(w.h, w.run, plain); got != Resolve(plain) {
		t.Errorf("a run without a baseline does not say where it works: %q", got)
	}
	w.take("baseline")
	if got := Root(w.h, w.run, plain); got != real {
		t.Errorf("a run's work tree wins over the agent's folder: %q, want %q", got, real)
	}
	if !Within(Root(w.h, "", sub), Resolve(filepath.Join(link, "pkg"))) {
		t.Error("a folder reached through a link is within its repository")
	}
	gone := filepath.Join(link, "removed", "since")
	if got := Resolve(gone); got != filepath.Join(real, "removed", "since") {
		t.Errorf("a folder gone keeps its parents resolved: %q", got)
	}
}
