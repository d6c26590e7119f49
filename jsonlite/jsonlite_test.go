package jsonlite

import (
	"encoding/json"
	"testing"
)

// The scanner accepts what encoding/json accepts as an object, and decodes
// strings the same way.
func FuzzParseObjectAgreesWithEncodingJSON(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"a":1}`, `{"a":"x\"y\\z\/\n\t\u00e9\ud83d\ude00"}`, `{"a":[1,{"b":null}],"c":true,"d":-1.5e3}`,
		`{"a":"\ud800"}`, `{"a":"\ud800\u0041"}`, "{\"a\":\"\xff\"}", `{"a":1,}`, `{"a" 1}`, `{"a":tru}`, `[]`, `{"a":"\x01"}`,
		`{"a":"b"} x`, ` {"k":{"n":{"m":[[],[{}]]}}} `, `{"a":01}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var ref map[string]any
		refErr := json.Unmarshal(b, &ref)
		obj, err := ParseObject(b)
		if refErr != nil {
			// Stricter corners of number grammar are not the scanner's job;
			// it must never accept what is not JSON structure at all.
			if err == nil && json.Valid(b) {
				t.Fatalf("scanner accepted %q, encoding/json refused it as an object: %v", b, refErr)
			}
			return
		}
		if err != nil {
			t.Fatalf("scanner refused valid object %q: %v", b, err)
		}
		for k, v := range ref {
			if s, ok := v.(string); ok {
				if got := obj.Str(k); got != s {
					t.Fatalf("member %q: got %q want %q", k, got, s)
				}
			}
		}
	})
}
