package jsonlite

// A one-pass walk of a large document: Members validates a whole document
// before its caller reads a member, and the caller's walk of a nested
// object (ValidMembers) skips each of its values to find its end before
// reading it, so the bytes of a value two levels down are scanned three
// times. A walk with these hands the caller where each value starts; the
// caller reads the value itself — ValueAt for one it takes whole (which
// validates it), ObjectAt for an object it walks the same way — and says
// where it ended, so every byte is scanned once and still validated.
// Decoding a session state at its caps (36 KB: 256 files, 64 commands),
// whose two large maps are walked this way, took 271–300 µs against
// 386–458 µs (BenchmarkStateDecode in package store, old and new
// interleaved).

// MembersAt walks the object in raw, a whole JSON document, calling fn
// with each member's raw (quoted) name and the index in raw where its
// value starts; fn reads the value (nested one deep: ValueAt(raw, at, 1)
// or ObjectAt(raw, at, 1, …)) and returns the index just past it. Like
// Members, it stops at fn's first error, and fn may have seen members of
// a document that turns out to be invalid further on.
func MembersAt(raw []byte, fn func(key []byte, at int) (int, error)) error {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return errSyntax
	}
	end, err := walkMembers(raw, i, fn)
	if err != nil {
		return err
	}
	if skipSpace(raw, end) != len(raw) {
		return errSyntax
	}
	return nil
}

// ObjectAt walks the object at b[i], a value nested depth deep (a member
// value MembersAt handed out is one deep), as MembersAt walks a document:
// fn reads each member's value, nested depth+1 deep. It returns the index
// just past the object; errSyntax when b[i] starts no object.
func ObjectAt(b []byte, i, depth int, fn func(key []byte, at int) (int, error)) (int, error) {
	if i >= len(b) || b[i] != '{' {
		return 0, errSyntax
	}
	if depth >= maxDepth {
		return 0, errDepth
	}
	return walkMembers(b, i, fn)
}

// ValueAt validates the value at b[i], nested depth deep, and returns the
// index just past it.
func ValueAt(b []byte, i, depth int) (int, error) { return scanValue(b, i, depth) }

// walkMembers walks the object at b[i], fn reading each member's value
// (scanMembers is this with scanValue as the reader).
func walkMembers(b []byte, i int, fn func(key []byte, at int) (int, error)) (int, error) {
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
		colon := skipSpace(b, kEnd)
		if colon >= len(b) || b[colon] != ':' {
			return 0, errSyntax
		}
		at := skipSpace(b, colon+1)
		end, err := fn(b[i:kEnd], at)
		if err != nil {
			return 0, err
		}
		if end <= at || end > len(b) { // fn read no value: never stand still or run past b
			return 0, errSyntax
		}
		if i = skipSpace(b, end); i >= len(b) {
			return 0, errSyntax
		}
		switch b[i] {
		case '}':
			return i + 1, nil
		case ',':
			i = skipSpace(b, i+1)
		default:
			return 0, errSyntax
		}
	}
}
