package claude

import "bytes"

// A walk over JSON that jsonlite has already validated: a record's line is
// checked whole once (jsonlite.Members), then the members of its message,
// content blocks and tool result are read with these, which skip strings
// with IndexByte instead of checking every byte again. They must only see
// values cut from a line jsonlite accepted; on anything else they stop
// early rather than fail.

func spaceAt(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string that starts at b[i].
func skipString(b []byte, i int) int {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return len(b)
		}
		j += k
		n := 0
		for m := j - 1; m > i && b[m] == '\\'; m-- {
			n++
		}
		if n%2 == 0 {
			return j + 1
		}
		j++
	}
}

// skipValue returns the index just past the value that starts at b[i].
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return len(b)
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = skipString(b, j) - 1
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
	j := i // a number or a literal
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	return j
}

// members calls fn with each member of a validated object (raw, quoted
// name; raw value), stopping at fn's first error.
func members(obj []byte, fn func(k, v []byte) error) error {
	i := spaceAt(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return errCorrupt
	}
	i = spaceAt(obj, i+1)
	for i < len(obj) && obj[i] == '"' {
		kEnd := skipString(obj, i)
		key := obj[i:kEnd]
		i = spaceAt(obj, kEnd)
		if i >= len(obj) || obj[i] != ':' {
			return errCorrupt
		}
		vStart := spaceAt(obj, i+1)
		vEnd := skipValue(obj, vStart)
		if err := fn(key, obj[vStart:vEnd]); err != nil {
			return err
		}
		i = spaceAt(obj, vEnd)
		if i < len(obj) && obj[i] == ',' {
			i = spaceAt(obj, i+1)
		}
	}
	return nil
}

// elements calls fn with each element of a validated array.
func elements(arr []byte, fn func(v []byte) error) error {
	i := spaceAt(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return errCorrupt
	}
	i = spaceAt(arr, i+1)
	for i < len(arr) && arr[i] != ']' {
		end := skipValue(arr, i)
		if end == i {
			return errCorrupt
		}
		if err := fn(arr[i:end]); err != nil {
			return err
		}
		i = spaceAt(arr, end)
		if i < len(arr) && arr[i] == ',' {
			i = spaceAt(arr, i+1)
		}
	}
	return nil
}
