package config

import "testing"

// The new detectors' tell switches are the user's, like explore_tell: read
// from the user's file, kept by the cache, refused in a project file.
func TestDetectorTellSwitches(t *testing.T) {
	src := world(t, "[rules]\nempty_search_tell = 3\nrerun_tell = 4\nsame_failure_tell = -2\n", "[rules]\nrerun_tell = 1\n")
	allow(t, src)
	for _, fresh := range []bool{true, false} { // parsed, then read from the cache
		ld, _, err := Cached(src, fresh)
		if err != nil {
			t.Fatal(err)
		}
		c := ld.Config
		if c.EmptySearchTell != 3 || c.RerunTell != 4 || c.SameFailureTell != 0 {
			t.Fatalf("fresh %v: %d %d %d", fresh, c.EmptySearchTell, c.RerunTell, c.SameFailureTell)
		}
	}
	d := Load(world(t, "", "")).Config
	if d.EmptySearchTell != 0 || d.RerunTell != 0 || d.SameFailureTell != 0 {
		t.Fatalf("default: shown, not told: %+v", d)
	}
}
