// Package jsonlite is a small validating JSON scanner for the hook's hot
// path: it checks a document and hands back raw member values, decoding
// only what is asked for. A short-lived process reading a few fields pays
// far less than encoding/json's reflection warm-up.
//
// Invariants: it accepts only what encoding/json accepts as an object
// (fuzzed against it), and decodes strings exactly as encoding/json does
// (escapes, surrogate pairs, invalid UTF-8 as U+FFFD).
package jsonlite

import (
	"errors"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

var errSyntax = errors.New("invalid JSON")

// Object maps member names to their raw JSON values.
type Object map[string][]byte

// ParseObject validates a whole JSON document that must be an object and
// returns its members (the last of duplicate names wins, as in encoding/json).
func ParseObject(b []byte) (Object, error) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, errSyntax
	}
	obj := Object{}
	end, err := scanObject(b, i, obj)
	if err != nil {
		return nil, err
	}
	if skipSpace(b, end) != len(b) {
		return nil, errSyntax
	}
	return obj, nil
}

// Sub parses a member that should itself be an object; anything else
// yields an empty object (tolerant: an unexpected shape is unknown, not fatal).
func (o Object) Sub(key string) Object { return AsObject(o[key]) }

// Items returns the raw elements of an array member (nil when it is
// missing or not an array).
func (o Object) Items(key string) [][]byte {
	raw := o[key]
	if len(raw) == 0 || raw[0] != '[' {
		return nil
	}
	var out [][]byte
	if _, err := scanArray(raw, 0, func(v []byte) { out = append(out, v) }); err != nil {
		return nil
	}
	return out
}

// AsObject parses a raw value that should be an object (empty if not).
func AsObject(raw []byte) Object {
	obj := Object{}
	if len(raw) == 0 || raw[0] != '{' {
		return obj
	}
	if _, err := scanObject(raw, 0, obj); err != nil {
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

// Int returns an integer member, 0 when it is missing or not an integer.
func (o Object) Int(key string) int64 {
	n, _ := strconv.ParseInt(string(o[key]), 10, 64)
	return n
}

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

// scanObject scans the object at b[i] and, when obj is not nil, records its
// members. It returns the index just past the object.
func scanObject(b []byte, i int, obj Object) (int, error) {
	if obj == nil {
		return scanMembers(b, i, nil)
	}
	return scanMembers(b, i, func(key, val []byte) error {
		k, ok := Unquote(key)
		if !ok {
			return errSyntax
		}
		obj[k] = val
		return nil
	})
}

// Members walks the object in raw, calling fn with each member's raw
// (still quoted) name and raw value, without building a map: the cheapest
// way to read a large object. It stops at fn's first error.
func Members(raw []byte, fn func(key, val []byte) error) error {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return errSyntax
	}
	end, err := scanMembers(raw, i, fn)
	if err != nil {
		return err
	}
	if skipSpace(raw, end) != len(raw) {
		return errSyntax
	}
	return nil
}

// Elements walks the array in raw, calling fn with each raw element.
func Elements(raw []byte, fn func(val []byte)) error {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return errSyntax
	}
	_, err := scanArray(raw, i, fn)
	return err
}

// Int decodes a raw integer (0 when it is not one).
func Int(raw []byte) int64 {
	n, _ := strconv.ParseInt(string(raw), 10, 64)
	return n
}

// Str decodes a raw string ("" when it is not one).
func Str(raw []byte) string {
	s, _ := Unquote(raw)
	return s
}

func scanMembers(b []byte, i int, each func(key, val []byte) error) (int, error) {
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, errSyntax
		}
		kEnd, err := scanString(b, i)
		if err != nil {
			return 0, err
		}
		key := b[i:kEnd]
		i = skipSpace(b, kEnd)
		if i >= len(b) || b[i] != ':' {
			return 0, errSyntax
		}
		vStart := skipSpace(b, i+1)
		vEnd, err := scanValue(b, vStart)
		if err != nil {
			return 0, err
		}
		if each != nil {
			if err := each(key, b[vStart:vEnd]); err != nil {
				return 0, err
			}
		}
		i = skipSpace(b, vEnd)
		if i >= len(b) {
			return 0, errSyntax
		}
		if b[i] == '}' {
			return i + 1, nil
		}
		if b[i] != ',' {
			return 0, errSyntax
		}
		i = skipSpace(b, i+1)
	}
}

func scanValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errSyntax
	}
	switch c := b[i]; {
	case c == '{':
		return scanObject(b, i, nil)
	case c == '[':
		return scanArray(b, i, nil)
	case c == '"':
		return scanString(b, i)
	case c == 't':
		return literal(b, i, "true")
	case c == 'f':
		return literal(b, i, "false")
	case c == 'n':
		return literal(b, i, "null")
	case c == '-' || c >= '0' && c <= '9':
		j := i
		if b[j] == '-' {
			j++
		}
		digits := j
		for j < len(b) && (b[j] >= '0' && b[j] <= '9' || b[j] == '.' || b[j] == 'e' || b[j] == 'E' || b[j] == '+' || b[j] == '-') {
			j++
		}
		if j == digits {
			return 0, errSyntax
		}
		return j, nil
	}
	return 0, errSyntax
}

// scanArray scans the array at b[i], handing each element's raw value to
// each (when not nil), and returns the index just past the array.
func scanArray(b []byte, i int, each func([]byte)) (int, error) {
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, nil
	}
	for {
		end, err := scanValue(b, i)
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

// scanString returns the index just past the string starting at b[i].
func scanString(b []byte, i int) (int, error) {
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '\\':
			j++
		case c == '"':
			return j + 1, nil
		case c < 0x20:
			return 0, errSyntax
		}
	}
	return 0, errSyntax
}

// Unquote decodes a raw JSON string, escapes and surrogate pairs included.
func Unquote(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	s := raw[1 : len(raw)-1]
	esc := false
	for _, c := range s {
		if c == '\\' {
			esc = true
			break
		}
	}
	if !esc {
		if utf8.Valid(s) {
			return string(s), true
		}
		return string([]rune(string(s))), true // invalid bytes become U+FFFD, as encoding/json does
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		if i >= len(s) {
			return "", false
		}
		switch s[i] {
		case '"', '\\', '/':
			out = append(out, s[i])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(s, i+1)
			if !ok {
				return "", false
			}
			i += 4
			if utf16.IsSurrogate(r) {
				if r2, ok := hex4(s, i+3); ok && i+2 < len(s) && s[i+1] == '\\' && s[i+2] == 'u' {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						r = d
						i += 6
					} else {
						r = utf8.RuneError
					}
				} else {
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			return "", false
		}
	}
	if !utf8.Valid(out) {
		return string([]rune(string(out))), true
	}
	return string(out), true
}

func hex4(s []byte, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(s[i:i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	return rune(n), true
}
