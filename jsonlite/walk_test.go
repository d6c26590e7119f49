package jsonlite

import (
	"fmt"
	"strings"
	"testing"
)

// walkOnce renders a document as walkValidating does, through MembersAt
// and ObjectAt (arrays and scalars through ValueAt), and reports whether
// the walk found the document valid.
func walkOnce(raw []byte) (string, bool) {
	var b strings.Builder
	var value func(at, depth int) (int, error)
	member := func(depth int) func(k []byte, at int) (int, error) {
		return func(k []byte, at int) (int, error) {
			fmt.Fprintf(&b, "%s:", k)
			return value(at, depth)
		}
	}
	value = func(at, depth int) (int, error) {
		if at < len(raw) && raw[at] == '{' {
			return ObjectAt(raw, at, depth, member(depth+1))
		}
		end, err := ValueAt(raw, at, depth)
		if err != nil {
			return 0, err
		}
		if v := raw[at:end]; firstByte(v) == '[' {
			_ = Elements(v, func(x []byte) { b.WriteString("["); b.WriteString(walkValidating(x)) })
		} else {
			fmt.Fprintf(&b, "%s;", v)
		}
		return end, nil
	}
	err := MembersAt(raw, member(1))
	return b.String(), err == nil
}

// The one-pass walk sees what the validating walk sees, and finds the
// same documents valid: every grammar case (valid or not), and objects
// nested past the depth limit.
func TestWalkOnceAgrees(t *testing.T) {
	deep := strings.Repeat(`{"a":`, maxDepth+1) + "1" + strings.Repeat("}", maxDepth+1)
	for _, s := range append(append(validWalkCases, grammarCases...), deep, `{"a":1}x`, `{"a":}`, `{"a" 1}`, `{"a":1,}`, `[1]`) {
		assertWalkOnce(t, []byte(s))
	}
}

func assertWalkOnce(t *testing.T, raw []byte) {
	t.Helper()
	got, ok := walkOnce(raw)
	_, err := ParseObject(raw)
	if ok != (err == nil) {
		t.Fatalf("%.80q: the one-pass walk says valid=%v, ParseObject %v", raw, ok, err)
	}
	if want := walkValidating(raw); ok && got != want {
		t.Fatalf("%q:\n one pass   %q\n validating %q", raw, got, want)
	}
}

// A walk whose reader reports no progress, or an end past the document,
// is refused rather than looping or reading out of bounds.
func TestWalkRefusesAReaderThatStandsStill(t *testing.T) {
	raw := []byte(`{"a":1,"b":2}`)
	for _, end := range []func(at int) int{func(at int) int { return at }, func(int) int { return len(raw) + 5 }, func(int) int { return 0 }} {
		if err := MembersAt(raw, func(_ []byte, at int) (int, error) { return end(at), nil }); err == nil {
			t.Error("a reader's bad end was taken")
		}
	}
}

func FuzzWalkOnce(f *testing.F) {
	for _, s := range append(validWalkCases, grammarCases...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) { assertWalkOnce(t, b) })
}
