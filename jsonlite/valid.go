package jsonlite

import "bytes"

// The walkers below read a value that a validating walk already checked:
// a member value or element that Members, Elements or ParseObject handed
// out, all of whose nested values scanValue validated on the way. Walking
// such a value again with Members validates it a second time, and every
// level of nesting a third: decoding a session state at its caps (36 KB,
// 256 files, 64 commands) took 174 µs that way and 159 µs with these
// (BenchmarkStateDecode in package store; most of what is left is the
// allocation of the maps' keys and entries). They never read past raw and
// always move forward, so a value that was not validated after all yields
// garbage members, never a crash or a hang.

// ValidMembers calls fn with each raw name and raw value of the object in
// raw, a value already validated; errSyntax when raw is not an object.
func ValidMembers(raw []byte, fn func(key, val []byte)) error {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return errSyntax
	}
	i = skipSpace(raw, i+1)
	for i < len(raw) && raw[i] == '"' {
		kEnd := skipValidString(raw, i)
		key := raw[i:kEnd]
		i = skipSpace(raw, kEnd)
		if i < len(raw) && raw[i] == ':' {
			i++
		}
		vStart := skipSpace(raw, i)
		vEnd := skipValidValue(raw, vStart)
		fn(key, raw[vStart:vEnd])
		i = skipSpace(raw, vEnd)
		if i >= len(raw) || raw[i] != ',' {
			break
		}
		i = skipSpace(raw, i+1)
	}
	return nil
}

// ValidElements calls fn with each raw element of the array in raw, a
// value already validated; errSyntax when raw is not an array.
func ValidElements(raw []byte, fn func(val []byte)) error {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return errSyntax
	}
	i = skipSpace(raw, i+1)
	for i < len(raw) && raw[i] != ']' {
		end := skipValidValue(raw, i)
		if end == i { // not a value: only an unvalidated input gets here
			break
		}
		fn(raw[i:end])
		i = skipSpace(raw, end)
		if i >= len(raw) || raw[i] != ',' {
			break
		}
		i = skipSpace(raw, i+1)
	}
	return nil
}

// skipValidString returns the index just past the string at b[i]: the
// first quote not escaped, found with bytes.IndexByte (vectorized) rather
// than byte by byte, which was a third of decoding a hook's state (strings
// are most of its bytes). A quote is escaped when an odd run of
// backslashes ends just before it.
func skipValidString(b []byte, i int) int {
	for j := i + 1; j < len(b); {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			break
		}
		q := j + k
		n := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
	return len(b)
}

// skipValidValue returns the index just past the value at b[i].
func skipValidValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipValidString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = skipValidString(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	}
	j := i
	for j < len(b) {
		switch b[j] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return j
		}
		j++
	}
	return j
}
