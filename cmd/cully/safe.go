package main

import (
	"fmt"
	"io"
	"unicode/utf8"
)

// termSafe writes text that may hold recorded strings — commands, file
// names, evidence — to a terminal: control characters other than newline
// and tab (C0, DEL and C1, the starts of escape sequences that retitle a
// window, write the clipboard or clear the screen) are shown as \xNN
// instead of being sent to the terminal. A command's own styling is written
// around it, never through it.
type termSafe struct{ w io.Writer }

func (t termSafe) Write(p []byte) (int, error) {
	if clean(p) {
		return t.w.Write(p)
	}
	out := make([]byte, 0, len(p)+16)
	for i := 0; i < len(p); {
		r, size := utf8.DecodeRune(p[i:])
		switch {
		case r == '\n' || r == '\t':
			out = append(out, p[i])
		case r < 0x20 || r == 0x7f:
			out = fmt.Appendf(out, `\x%02x`, r)
		case r >= 0x80 && r <= 0x9f:
			out = fmt.Appendf(out, `\u%04x`, r)
		default:
			out = append(out, p[i:i+size]...)
		}
		i += size
	}
	if _, err := t.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// clean reports whether p holds nothing termSafe would change (the common
// case, written through without a copy).
func clean(p []byte) bool {
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f || c == 0xc2 && i+1 < len(p) && p[i+1] >= 0x80 && p[i+1] <= 0x9f {
			return false
		}
	}
	return true
}
