package jsonlite

import (
	"fmt"
	"strings"
	"testing"
)

// walkValidating and walkValid render every member and element of a
// document, recursively, through the validating walkers and through the
// walkers for validated values: they must agree on every valid document.
func walkValidating(raw []byte) string {
	var b strings.Builder
	var walk func(v []byte)
	walk = func(v []byte) {
		switch firstByte(v) {
		case '{':
			_ = Members(v, func(k, x []byte) error { fmt.Fprintf(&b, "%s:", k); walk(x); return nil })
		case '[':
			_ = Elements(v, func(x []byte) { b.WriteString("["); walk(x) })
		default:
			fmt.Fprintf(&b, "%s;", v)
		}
	}
	walk(raw)
	return b.String()
}

func walkValid(raw []byte) string {
	var b strings.Builder
	var walk func(v []byte)
	walk = func(v []byte) {
		switch firstByte(v) {
		case '{':
			_ = ValidMembers(v, func(k, x []byte) { fmt.Fprintf(&b, "%s:", k); walk(x) })
		case '[':
			_ = ValidElements(v, func(x []byte) { b.WriteString("["); walk(x) })
		default:
			fmt.Fprintf(&b, "%s;", v)
		}
	}
	walk(raw)
	return b.String()
}

var validWalkCases = []string{
	`{}`, ` { } `, `{"a":1}`, `{"a" : [ 1 , 2 ] , "b" : { "c" : "}" } }`, `{"a":"\"}]{[,"}`,
	`{"a":[[],[{}],[[1]]],"b":"\\","c":"x\\\"y"}`, `{"files":{"a.go":{"n":1,"s":2},"b \u00e9.go":{"n":3}}}`,
	"{\n\t\"a\" :\r\n[ true ,false, null ,-1.5e3 ]\n}", `{"":""}`,
}

func TestValidWalkersAgree(t *testing.T) {
	for _, s := range append(validWalkCases, grammarCases...) {
		if _, err := ParseObject([]byte(s)); err != nil {
			continue // only validated values are walked this way
		}
		if got, want := walkValid([]byte(s)), walkValidating([]byte(s)); got != want {
			t.Errorf("%q:\n valid walk %q\n validating %q", s, got, want)
		}
	}
}

func TestValidWalkersRefuseOtherKinds(t *testing.T) {
	for _, s := range []string{`[1]`, `"s"`, `1`, `null`, ``} {
		if ValidMembers([]byte(s), func(k, v []byte) {}) == nil {
			t.Errorf("ValidMembers(%q) = nil, want an error", s)
		}
	}
	for _, s := range []string{`{}`, `"s"`, `1`, `null`, ``} {
		if ValidElements([]byte(s), func(v []byte) {}) == nil {
			t.Errorf("ValidElements(%q) = nil, want an error", s)
		}
	}
}

// FuzzValidWalkers: on a valid document the two walks agree; on anything
// else the walkers for validated values still end, without a panic.
func FuzzValidWalkers(f *testing.F) {
	for _, s := range append(validWalkCases, grammarCases...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got := walkValid(b)
		if _, err := ParseObject(b); err != nil {
			return
		}
		if want := walkValidating(b); got != want {
			t.Fatalf("%q:\n valid walk %q\n validating %q", b, got, want)
		}
	})
}
