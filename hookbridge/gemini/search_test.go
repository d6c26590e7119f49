package gemini

import "testing"

func TestSearchFound(t *testing.T) {
	cases := map[string]int{
		"No matches found for pattern \"foo(\" in path \".\".":     0,
		"No files found matching pattern \"**/*.proto\" within /p": 0,
		"Found 3 matches for pattern \"foo\" in path \".\":\n---":  3,
		"Found 1 file(s) matching \"*.go\"":                        1,
		"<untrusted_context>No matches found for pattern \"x\"":    0,
		"Error: bad pattern": -1,
		"Found the thing":    -1,
	}
	for text, want := range cases {
		got := searchFound(text)
		switch {
		case want < 0 && got != nil:
			t.Errorf("%q: %d, want none", text, *got)
		case want >= 0 && (got == nil || *got != want):
			t.Errorf("%q: %v, want %d", text, got, want)
		}
	}
}
