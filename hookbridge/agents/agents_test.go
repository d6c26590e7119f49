package agents

import (
	"strings"
	"testing"

	"cully/hookbridge"
)

func TestLookup(t *testing.T) {
	for name, want := range map[string]string{"": "claude", "claude": "claude", "codex": "codex"} {
		a, err := Lookup(name)
		if err != nil || a.Name() != want {
			t.Errorf("Lookup(%q) = %v, %v", name, a, err)
		}
	}
	if _, err := Lookup("gemini"); err == nil || !strings.Contains(err.Error(), "not supported yet") {
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

// A Codex rollout is Codex's adapter's now: no upcoming agent claims one.
func TestRecordedBy(t *testing.T) {
	for _, in := range []string{
		`{"timestamp":"2026-04-14T18:32:23.143Z","type":"session_meta","payload":{"id":"019d`,
		"{\"type\":\"event_msg\"}\n{\"timestamp\":\"t\",\"type\":\"response_item\",\"payload\":{}}\n",
		`{"type":"user","sessionId":"s1","message":{"role":"user","content":"hi"}}` + "\n",
		"",
	} {
		if got := RecordedBy([]byte(in)); got != "" {
			t.Errorf("RecordedBy(%.50q) = %q, want none", in, got)
		}
	}
}
