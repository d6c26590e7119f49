package jsonlite

import (
	"errors"
	"math"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth is how deeply arrays and objects may nest, the outermost
// counting as 1: real hook payloads nest a handful of levels, while a
// hostile tool output nesting millions would overflow the stack of this
// recursive scanner. The package doc states it; keep the two in step.
const maxDepth = 512

var (
	errSyntax = errors.New("invalid JSON")
	errDepth  = errors.New("JSON nested deeper than 512 levels")
)

// Object maps member names to their raw JSON values.
type Object map[string][]byte

// ParseObject validates a whole JSON document that must be an object and
// returns its members (the last of duplicate names wins, as in encoding/json).
func ParseObject(b []byte) (Object, error) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, errSyntax
	}
	// The members are gathered first and the map made at its size: a map
	// grown member by member allocates its small form, then its table
	// (a hook payload has 9 to 13 members), each a fresh heap span in a
	// process that lives a few milliseconds.
	var first [24]struct {
		k string
		v []byte
	}
	n := 0
	var obj Object
	end, err := scanMembers(b, i, 1, func(key, val []byte) error {
		k, ok := Unquote(key)
		if !ok {
			return errSyntax
		}
		if n < len(first) {
			first[n].k, first[n].v = k, val
			n++
			return nil
		}
		if obj == nil { // more than first holds: on in the map, in order
			obj = make(Object, 2*n)
			for _, m := range first[:n] {
				obj[m.k] = m.v
			}
		}
		obj[k] = val
		return nil
	})
	if err != nil {
		return nil, err
	}
	if skipSpace(b, end) != len(b) {
		return nil, errSyntax
	}
	if obj == nil {
		obj = make(Object, n)
		for _, m := range first[:n] {
			obj[m.k] = m.v // in order: the last of duplicate names wins
		}
	}
	return obj, nil
}

// Sub parses a member that should itself be an object; anything else
// yields an empty object (tolerant: an unexpected shape is unknown, not fatal).
func (o Object) Sub(key string) Object { return AsObject(o[key]) }

// Items returns the raw elements of an array member (nil when it is
// missing or not a valid JSON array).
func (o Object) Items(key string) [][]byte {
	var out [][]byte
	if err := Elements(o[key], func(v []byte) { out = append(out, v) }); err != nil {
		return nil
	}
	return out
}

// AsObject parses a raw value that should be an object: ParseObject's
// members, or an empty object when ParseObject refuses it.
func AsObject(raw []byte) Object {
	obj, err := ParseObject(raw)
	if err != nil {
		return Object{}
	}
	return obj
}

// Str returns a string member, or "" when it is missing or not a string.
func (o Object) Str(key string) string {
	s, _ := Unquote(o[key])
	return s
}

// Bool returns a boolean member, false when missing or not a boolean.
func (o Object) Bool(key string) bool { return string(o[key]) == "true" }

// Int returns an integer member, 0 when it is missing or not an integer
// that fits in an int64 (as encoding/json leaves an int64 it cannot set).
func (o Object) Int(key string) int64 { return Int(o[key]) }

// Present reports whether a member is there and not null.
func (o Object) Present(key string) bool {
	raw := o[key]
	return len(raw) > 0 && string(raw) != "null"
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// Members walks the object in raw, a whole JSON document, calling fn with
// each member's raw (still quoted) name and raw value, without building a
// map: the cheapest way to read a large object. It stops at fn's first
// error. fn sees members as they are scanned, so it may have seen some of
// an object that turns out to be invalid further on: act on them only when
// Members returns nil.
func Members(raw []byte, fn func(key, val []byte) error) error {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return errSyntax
	}
	end, err := scanMembers(raw, i, 1, fn)
	if err != nil {
		return err
	}
	if skipSpace(raw, end) != len(raw) {
		return errSyntax
	}
	return nil
}

// Elements walks the array in raw, a whole JSON document, calling fn with
// each raw element. Like Members, fn may have seen elements of an array
// that turns out to be invalid further on.
func Elements(raw []byte, fn func(val []byte)) error {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return errSyntax
	}
	end, err := scanArray(raw, i, 1, fn)
	if err != nil {
		return err
	}
	if skipSpace(raw, end) != len(raw) {
		return errSyntax
	}
	return nil
}

// Int decodes a raw JSON integer: 0 when raw is not one (a fraction, an
// exponent, a leading zero or +, space around it) or when it does not fit in
// an int64, where encoding/json would refuse to decode it into one.
func Int(raw []byte) int64 {
	d := raw
	if len(d) > 0 && d[0] == '-' {
		d = d[1:]
	}
	// 19 digits always fit in a uint64; more overflow an int64 (no leading zeros).
	if len(d) == 0 || len(d) > 19 || d[0] == '0' && len(d) > 1 {
		return 0
	}
	var n uint64
	for _, c := range d {
		if c < '0' || c > '9' {
			return 0
		}
		n = n*10 + uint64(c-'0')
	}
	switch {
	case len(d) == len(raw) && n <= math.MaxInt64:
		return int64(n)
	case len(d) < len(raw) && n <= -math.MinInt64:
		return -int64(n)
	}
	return 0
}

// Str decodes a raw string ("" when it is not one).
func Str(raw []byte) string {
	s, _ := Unquote(raw)
	return s
}

// scanMembers scans the object at b[i], at nesting depth depth, handing
// each member's raw name and value to each (when not nil), and returns the
// index just past the object.
func scanMembers(b []byte, i, depth int, each func(key, val []byte) error) (int, error) {
	return walkMembers(b, i, func(key []byte, at int) (int, error) {
		end, err := scanValue(b, at, depth)
		if err != nil || each == nil {
			return end, err
		}
		return end, each(key, b[at:end])
	})
}

// scanValue scans the value at b[i], inside a container at nesting depth
// depth, and returns the index just past it.
func scanValue(b []byte, i, depth int) (int, error) {
	if i >= len(b) {
		return 0, errSyntax
	}
	switch c := b[i]; {
	case c == '{' || c == '[':
		if depth >= maxDepth {
			return 0, errDepth
		}
		if c == '{' {
			return scanMembers(b, i, depth+1, nil)
		}
		return scanArray(b, i, depth+1, nil)
	case c == '"':
		return scanString(b, i)
	case c == 't':
		return literal(b, i, "true")
	case c == 'f':
		return literal(b, i, "false")
	case c == 'n':
		return literal(b, i, "null")
	case c == '-' || c >= '0' && c <= '9':
		return scanNumber(b, i)
	}
	return 0, errSyntax
}

// scanNumber returns the index just past the number starting at b[i]:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, the JSON grammar. What
// follows it is the caller's to check (a digit after a leading 0 is then
// refused there, as a missing comma).
func scanNumber(b []byte, i int) (int, error) {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i+1)
	default:
		return 0, errSyntax
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return 0, errSyntax
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return 0, errSyntax
		}
		i = j
	}
	return i, nil
}

func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// scanArray scans the array at b[i], at nesting depth depth, handing each
// element's raw value to each (when not nil), and returns the index just
// past the array.
func scanArray(b []byte, i, depth int, each func([]byte)) (int, error) {
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, nil
	}
	for {
		end, err := scanValue(b, i, depth)
		if err != nil {
			return 0, err
		}
		if each != nil {
			each(b[i:end])
		}
		i = skipSpace(b, end)
		if i >= len(b) {
			return 0, errSyntax
		}
		if b[i] == ']' {
			return i + 1, nil
		}
		if b[i] != ',' {
			return 0, errSyntax
		}
		i = skipSpace(b, i+1)
	}
}

func literal(b []byte, i int, lit string) (int, error) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return 0, errSyntax
	}
	return i + len(lit), nil
}

// plain marks the bytes a string holds as they are: everything but the
// quote, the backslash and the control characters below 0x20. Bytes of
// 0x80 and up are plain too: like encoding/json, the scanner takes invalid
// UTF-8 inside strings, and decoding turns it into U+FFFD.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// scanString returns the index just past the string starting at b[i]. The
// escapes are JSON's only: \" \\ \/ \b \f \n \r \t and \u with four hex digits.
func scanString(b []byte, i int) (int, error) {
	j := i + 1
	for {
		for j < len(b) && plain[b[j]] {
			j++
		}
		if j >= len(b) {
			return 0, errSyntax
		}
		switch b[j] {
		case '"':
			return j + 1, nil
		case '\\':
			n := escapeLen(b[j:])
			if n == 0 {
				return 0, errSyntax
			}
			j += n
		default: // a control character
			return 0, errSyntax
		}
	}
}

// escapeLen is the length of the escape at the start of s, 0 when it is
// not a valid one.
func escapeLen(s []byte) int {
	if len(s) < 2 {
		return 0
	}
	switch s[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if hex4(s) < 0 {
			return 0
		}
		return 6
	}
	return 0
}

// hex4 decodes the \uXXXX escape at the start of s, -1 when there is none.
func hex4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

// Unquote decodes a raw JSON string, escapes and surrogate pairs included,
// exactly as encoding/json does: a lone or mismatched surrogate and each
// byte of invalid UTF-8 become U+FFFD. ok is false unless raw is one whole
// valid JSON string (no space around it, as the scanner hands values out).
func Unquote(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	s := raw[1 : len(raw)-1]
	// Most strings need no decoding: no escape and valid UTF-8.
	i := 0
	for i < len(s) && plain[s[i]] {
		i++
	}
	if i == len(s) && utf8.Valid(s) {
		return string(s), true
	}
	var out strings.Builder
	out.Grow(len(s))
	for i = 0; i < len(s); {
		j := i
		for j < len(s) && plain[s[j]] && s[j] < utf8.RuneSelf {
			j++
		}
		out.Write(s[i:j])
		if i = j; i == len(s) {
			break
		}
		switch c := s[i]; {
		case c == '\\':
			n := escapeLen(s[i:])
			switch {
			case n == 0:
				return "", false
			case n == 6:
				r := hex4(s[i:])
				i += 6
				if utf16.IsSurrogate(r) {
					// A valid pair is one character; anything else, U+FFFD
					// (and what follows is decoded on its own).
					if d := utf16.DecodeRune(r, hex4(s[i:])); d != utf8.RuneError {
						r = d
						i += 6
					} else {
						r = utf8.RuneError
					}
				}
				out.WriteRune(r)
			default:
				out.WriteByte(unescape[s[i+1]])
				i += 2
			}
		case c < utf8.RuneSelf: // a quote or a control character
			return "", false
		default:
			r, n := utf8.DecodeRune(s[i:])
			out.WriteRune(r) // U+FFFD for an invalid byte
			i += n
		}
	}
	return out.String(), true
}

// unescape maps the letter of a one-letter escape to its byte.
var unescape = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}
