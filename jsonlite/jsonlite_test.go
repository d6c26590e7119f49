package jsonlite

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// jsonlite accepts a document exactly when json.Valid does and it nests no
// deeper than maxDepth (ParseObject and Members for objects, Elements for
// arrays), and the values it hands back for an object's members decode as
// encoding/json decodes them. Its seeds are the grammar table's inputs and
// testdata/fuzz: a few captured Claude Code payloads, and what the fuzzer
// found (each also a case in the table tests).
func FuzzAgreesWithEncodingJSON(f *testing.F) {
	for _, s := range grammarCases {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		valid := json.Valid(b)
		tooDeep := valid && nesting(b) > maxDepth
		want := valid && !tooDeep
		top := firstByte(b)

		obj, err := ParseObject(b)
		checkAccepts(t, "ParseObject", b, err, want && top == '{', tooDeep && top == '{')
		errM := Members(b, func(_, _ []byte) error { return nil })
		checkAccepts(t, "Members", b, errM, want && top == '{', tooDeep && top == '{')
		if n := len(AsObject(b)); n != len(obj) {
			t.Fatalf("AsObject(%q) has %d members, ParseObject %d", b, n, len(obj))
		}
		var elems [][]byte
		errE := Elements(b, func(v []byte) { elems = append(elems, v) })
		checkAccepts(t, "Elements", b, errE, want && top == '[', tooDeep && top == '[')
		if errE == nil {
			var ref []json.RawMessage
			if err := json.Unmarshal(b, &ref); err != nil {
				t.Fatalf("json.Unmarshal(%q): %v", b, err)
			}
			if len(elems) != len(ref) {
				t.Fatalf("Elements(%q): %d elements, encoding/json %d", b, len(elems), len(ref))
			}
			for i := range ref {
				if !bytes.Equal(elems[i], ref[i]) {
					t.Fatalf("Elements(%q)[%d] = %q, encoding/json %q", b, i, elems[i], ref[i])
				}
			}
		}
		checkValue(t, b)
		if err != nil {
			return
		}
		var ref map[string]json.RawMessage
		if err := json.Unmarshal(b, &ref); err != nil {
			t.Fatalf("json.Unmarshal(%q): %v", b, err)
		}
		if len(obj) != len(ref) {
			t.Fatalf("ParseObject(%q): %d members, encoding/json %d", b, len(obj), len(ref))
		}
		for k, rv := range ref {
			raw, ok := obj[k]
			if !ok || !bytes.Equal(raw, rv) {
				t.Fatalf("ParseObject(%q)[%q] = %q, %v; encoding/json %q", b, k, raw, ok, rv)
			}
			var s string
			if json.Unmarshal(rv, &s) != nil {
				s = ""
			}
			if got := obj.Str(k); got != s {
				t.Fatalf("member %q: Str %q, encoding/json %q", k, got, s)
			}
			var n int64
			if json.Unmarshal(rv, &n) != nil {
				n = 0
			}
			if got := obj.Int(k); got != n {
				t.Fatalf("member %q: Int %d, encoding/json %d", k, got, n)
			}
			var v bool
			if json.Unmarshal(rv, &v) != nil {
				v = false
			}
			if got := obj.Bool(k); got != v {
				t.Fatalf("member %q: Bool %v, encoding/json %v", k, got, v)
			}
			if got := obj.Present(k); got != (string(rv) != "null") {
				t.Fatalf("member %q (%q): Present %v", k, rv, got)
			}
			checkValue(t, rv)
		}
	})
}

// checkAccepts fails unless err is nil exactly when want is, and is the
// depth error when the document is valid but too deep.
func checkAccepts(t *testing.T, name string, b []byte, err error, want, tooDeep bool) {
	t.Helper()
	if (err == nil) != want {
		t.Fatalf("%s(%q): err %v, want accepted %v", name, b, err, want)
	}
	if tooDeep && !errors.Is(err, errDepth) {
		t.Fatalf("%s(%q): err %v, want %v", name, b, err, errDepth)
	}
}

// checkValue compares Unquote and Int on a raw value (no space around it)
// with encoding/json decoding it into a string and an int64.
func checkValue(t *testing.T, raw []byte) {
	t.Helper()
	if len(raw) == 0 || isSpace(raw[0]) || isSpace(raw[len(raw)-1]) {
		return
	}
	var s string
	wantOK := raw[0] == '"' && json.Unmarshal(raw, &s) == nil
	if got, ok := Unquote(raw); ok != wantOK || got != s {
		t.Fatalf("Unquote(%q) = %q, %v; encoding/json %q, %v", raw, got, ok, s, wantOK)
	}
	var n int64
	if json.Unmarshal(raw, &n) != nil {
		n = 0
	}
	if got := Int(raw); got != n {
		t.Fatalf("Int(%q) = %d; encoding/json %d", raw, got, n)
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// nesting is how deeply the arrays and objects of a valid document nest.
func nesting(b []byte) int {
	depth, deepest, inString := 0, 0, false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}

// Duplicate names, before and after the members ParseObject gathers before
// it makes its map (24): the last one wins, as in encoding/json, whatever
// the object's size.
func TestParseObjectDuplicates(t *testing.T) {
	for n := 0; n <= 60; n++ {
		for _, dup := range []int{0, 1, 23, 24, 25, 40} {
			var b strings.Builder
			b.WriteString("{")
			for i := range n {
				if i > 0 {
					b.WriteString(",")
				}
				k := i
				if i%7 == 3 || i == dup {
					k = dup % max(n, 1) // names seen before, and one at the edge
				}
				fmt.Fprintf(&b, `"k%d":%d`, k, i)
			}
			b.WriteString("}")
			var want map[string]json.RawMessage
			if err := json.Unmarshal([]byte(b.String()), &want); err != nil {
				t.Fatal(err)
			}
			got, err := ParseObject([]byte(b.String()))
			if err != nil || len(got) != len(want) {
				t.Fatalf("%s: %d members, %v; want %d", b.String(), len(got), err, len(want))
			}
			for k, v := range want {
				if string(got[k]) != string(v) {
					t.Fatalf("%s: %s = %s, want %s", b.String(), k, got[k], v)
				}
			}
		}
	}
}
