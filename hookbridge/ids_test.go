package hookbridge

import (
	"strings"
	"testing"
)

func TestHostID(t *testing.T) {
	for in, want := range map[string]string{
		"f4c84414-af04-4ca8-9bb8-29f567603fbf": "f4c84414-af04-4ca8-9bb8-29f567603fbf",
		"turn_01:a.b":                          "turn_01:a.b",
		"":                                     "",
		"has space":                            "",
		"quote\"":                              "",
		"new\nline":                            "",
		strings.Repeat("a", 129):               "",
		strings.Repeat("a", 128):               strings.Repeat("a", 128),
	} {
		if got := HostID(in); got != want {
			t.Errorf("HostID(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTraceParent(t *testing.T) {
	ok := "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	for in, want := range map[string]string{
		ok: ok,
		"00-00000000000000000000000000000000-00f067aa0ba902b7-01":  "", // zero trace id
		"00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01":  "", // zero parent id
		"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01":  "", // unknown version
		"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01":  "", // upper case
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x": "",
		"": "",
	} {
		if got := TraceParent(in); got != want {
			t.Errorf("TraceParent(%q) = %q, want %q", in, got, want)
		}
	}
}
