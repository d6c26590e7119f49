package agents

import (
	"strings"
	"testing"

	"cully/hookbridge"
)

func TestLookup(t *testing.T) {
	for _, name := range []string{"", "claude"} {
		a, err := Lookup(name)
		if err != nil || a.Name() != "claude" {
			t.Errorf("Lookup(%q) = %v, %v", name, a, err)
		}
	}
	if _, err := Lookup("codex"); err == nil || !strings.Contains(err.Error(), "not supported yet") {
		t.Errorf("an upcoming agent says so: %v", err)
	}
	if _, err := Lookup("vim"); err == nil || !strings.Contains(err.Error(), "unknown agent") {
		t.Errorf("an unknown agent says so: %v", err)
	}
}

// Every adapter has a unique name and a title, and no adapter is also
// listed as upcoming.
func TestRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, a := range All() {
		if a.Name() == "" || a.Title() == "" || seen[a.Name()] {
			t.Errorf("adapter %T: name %q title %q (duplicate: %v)", a, a.Name(), a.Title(), seen[a.Name()])
		}
		seen[a.Name()] = true
		if _, ok := a.(hookbridge.Installer); !ok {
			t.Errorf("%s: every adapter today installs itself", a.Name())
		}
	}
	for _, u := range Upcoming {
		if seen[u.Name] {
			t.Errorf("%s is both an adapter and upcoming", u.Name)
		}
	}
}
