package jsonlite

import (
	"encoding/json"
	"errors"
	"testing"
)

// Where says the line and column of a document's first error, for
// jsonlite's errors and encoding/json's alike, in characters.
func TestWhere(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{"{\"a\": 1,\n \"b\": oops}", "line 2, column 7: invalid character 'o' looking for beginning of value"},
		{"{\n  \"allow\": [1,]\n}\n", "line 2, column 15: invalid character ']' looking for beginning of value"},
		{"{\"a\":\n", "line 2, column 1: unexpected end of JSON input"},
		{"{\"é\": 1 x}", "line 1, column 9: invalid character 'x' after object key:value pair"},
		{"\n  [1, 2]", "line 2, column 3: not a JSON object"},
		{"{} {}", "line 1, column 4: invalid character '{' after top-level value"},
	} {
		_, err := ParseObject([]byte(c.doc))
		if err == nil {
			t.Fatalf("ParseObject(%q) took it", c.doc)
		}
		got := Where([]byte(c.doc), err)
		var se *SyntaxError
		if !errors.As(got, &se) || got.Error() != c.want {
			t.Errorf("Where(%q) = %v, want %s", c.doc, got, c.want)
		}
		var v any
		jerr := json.Unmarshal([]byte(c.doc), &v)
		if jerr == nil {
			continue
		}
		if got := Where([]byte(c.doc), jerr); got.Error() != c.want {
			t.Errorf("Where(%q, encoding/json's error) = %v, want %s", c.doc, got, c.want)
		}
	}
	other := errors.New("disk on fire")
	if Where([]byte("{"), other) != other {
		t.Errorf("an error that is not the document's own changed")
	}
	if Where(nil, nil) != nil {
		t.Errorf("Where(nil) is not nil")
	}
}
