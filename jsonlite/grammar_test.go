package jsonlite

import (
	"encoding/json"
	"testing"
)

// Every input is checked against json.Valid: ParseObject accepts exactly
// the valid documents that are objects.
var grammarCases = []string{
	// valid
	`{}`, ` {} `, "\t{\n}\r\n", `{"a":1}`, `{"a":-1}`, `{"a":0}`, `{"a":-0}`, `{"a":0.5}`,
	`{"a":1.25e10}`, `{"a":1E+2}`, `{"a":1e-2}`, `{"a":-0.0e0}`, `{"a":123456789012345678901234567890}`,
	`{"a":"x\"y\\z\/\b\f\n\r\t"}`, `{"a":"\u00e9\uD83D\uDE00"}`, `{"a":"\ud800"}`, `{"a":"\ud800\u0041"}`,
	"{\"a\":\"\xff\"}", "{\"\xc3\":1}", `{"a":[1,{"b":null}],"c":true,"d":false}`, `{"a":[]}`, `{"a":{}}`,
	`{"a":1,"a":2}`, `{"":""}`, `{"a":"\u0000"}`, "{\"a\":\"\x7f\"}",
	// invalid numbers
	`{"a":01}`, `{"a":-01}`, `{"a":00}`, `{"a":1.}`, `{"a":.5}`, `{"a":1.e5}`, `{"a":1e}`, `{"a":1e+}`,
	`{"a":1e-}`, `{"a":+1}`, `{"a":-}`, `{"a":--1}`, `{"a":1-2}`, `{"a":1e5.0}`, `{"a":1.5.2}`, `{"a":0x10}`,
	`{"a":1ee5}`, `{"a":1E+-2}`, `{"a":NaN}`, `{"a":Infinity}`, `{"a":1.0e}`,
	// invalid strings
	`{"a":"\x"}`, `{"a":"\q"}`, `{"a":"\u12"}`, `{"a":"\u12G4"}`, `{"a":"\U0041"}`, `{"a":"\'"}`,
	`{"a":"\u"}`, `{"a":"\"}`, "{\"a\":\"\x01\"}", "{\"a\":\"\n\"}", "{\"a\":\"\t\"}", "{\"a\x1f\":1}",
	`{"a":"abc}`, `{"a\u00":1}`,
	// invalid structure
	`{"a":1,}`, `{"a" 1}`, `{"a":tru}`, `{"a":truex}`, `{"a":nul}`, `{"a":1 2}`, `{"a":[1,]}`, `{"a":[,1]}`,
	`{"a":[1 2]}`, `{"a":{"b"}}`, `{a:1}`, `{'a':1}`, `{"a":1`, `{"a":`, `{"a"`, `{`, `{,}`, `{"a":1}}`,
	`{"a":"b"} x`, `{"a":"b"}{}`, `{"a":1}]`, "\xef\xbb\xbf{}", "{\"a\":1}\x00", `{"a":[}`, `{"a":]}`,
	`{"a":1;"b":2}`, `{"a":1}/`, `{"a"::1}`,
	// found by FuzzAgreesWithEncodingJSON in the scanner before strict grammar
	`{"":"\0"}`, `{"":""}00`,
	// valid JSON, not an object
	`[]`, `[1,2]`, `"s"`, `1`, `null`, `true`, ``, ` `,
}

func TestGrammarAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range grammarCases {
		want := json.Valid([]byte(s)) && firstByte([]byte(s)) == '{'
		_, err := ParseObject([]byte(s))
		if (err == nil) != want {
			t.Errorf("ParseObject(%q): err %v, json.Valid says object %v", s, err, want)
		}
		errM := Members([]byte(s), func(_, _ []byte) error { return nil })
		if (errM == nil) != want {
			t.Errorf("Members(%q): err %v, json.Valid says object %v", s, errM, want)
		}
		if got := len(AsObject([]byte(s))) > 0; got && !want {
			t.Errorf("AsObject(%q) has members, json.Valid refuses it", s)
		}
	}
}

// Arrays as Elements and Items see them, against json.Valid too.
func TestArrayGrammarAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range []string{
		`[]`, ` [ ] `, `[1,"a",{"b":[null]},true]`, `[[],[[]]]`, `[1,]`, `[,]`, `[1 2]`, `[01]`, `["\x"]`,
		`[1] x`, `[1]]`, `[`, `[1`, `[}`, `{}`, `[1.]`, `["\u12"]`, "[\"\x00\"]",
		`[]0`, // found by the fuzzer in the scanner before strict grammar
	} {
		want := json.Valid([]byte(s)) && firstByte([]byte(s)) == '['
		n := 0
		err := Elements([]byte(s), func([]byte) { n++ })
		if (err == nil) != want {
			t.Errorf("Elements(%q): err %v, json.Valid says array %v", s, err, want)
		}
		items := Object{"k": []byte(s)}.Items("k")
		if !want && items != nil {
			t.Errorf("Items(%q) = %q, json.Valid refuses it", s, items)
		}
	}
}

func firstByte(b []byte) byte {
	i := skipSpace(b, 0)
	if i == len(b) {
		return 0
	}
	return b[i]
}

// Raw values as the scanner hands them out decode as encoding/json decodes
// them into a string or an int64 (refused or unset: "" and 0).
func TestValuesAgreeWithEncodingJSON(t *testing.T) {
	for _, s := range []string{
		`""`, `"abc"`, `"x\"y\\z\/\b\f\n\r\t"`, `"\u00e9\u00E9"`, `"\ud83d\ude00"`, `"\ud800"`, `"\udc00\ud800"`,
		`"\ud800\u0041"`, `"\ud800\ud800\udc00"`, `"\ud800x"`, `"\ud800\"`, "\"\xff\"", "\"a\xe2\x82\"", "\"\xed\xa0\x80\"",
		"\"\xef\xbf\xbd\"", "\"é\\n\xc3\"", `"\x"`, `"\'"`, `"\u12"`, `"\u12G4"`, `"a"b"`, "\"\x01\"", `"abc`, `"`,
		`"\"`, `abc"`, `null`, `true`, `1`, `0`, `-0`, `-1`, `01`, `+1`, `1.0`, `1e2`, `-`, `--1`,
		`9223372036854775807`, `9223372036854775808`, `-9223372036854775808`, `-9223372036854775809`,
		`18446744073709551616`, `12345678901234567890`, `00000000000000000001`, `"1"`, `[1]`,
		`"""`, `"0""`, // found by the fuzzer in Unquote before strict grammar
	} {
		raw := []byte(s)
		var str string
		wantOK := len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &str) == nil
		got, ok := Unquote(raw)
		if ok != wantOK || got != str {
			t.Errorf("Unquote(%q) = %q, %v; encoding/json: %q, %v", s, got, ok, str, wantOK)
		}
		if got := Str(raw); got != str {
			t.Errorf("Str(%q) = %q; encoding/json: %q", s, got, str)
		}
		var n int64
		if json.Unmarshal(raw, &n) != nil {
			n = 0
		}
		if got := Int(raw); got != n {
			t.Errorf("Int(%q) = %d; encoding/json: %d", s, got, n)
		}
	}
}
