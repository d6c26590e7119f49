package main

import (
	"fmt"
	"io"
	"unicode/utf8"

	"cully/engine"
)

// termSafe writes text that may hold recorded strings — commands, file
// names, evidence — to a terminal: control characters other than newline
// and tab (C0, DEL and C1, the starts of escape sequences that retitle a
// window, write the clipboard or clear the screen) are shown as \xNN or
// \uNNNN instead of being sent to the terminal, and so are the
// bidirectional controls (a right-to-left override makes a command read as
// another). A command's own styling is written around it, never through
// it.
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
		case r >= 0x80 && r <= 0x9f || engine.IsBidi(r):
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
		if c == 0xd8 || c == 0xe2 { // the lead bytes of the bidirectional controls
			if r, _ := utf8.DecodeRune(p[i:]); engine.IsBidi(r) {
				return false
			}
		}
	}
	return true
}

// jsonSafe writes JSON whose strings may hold recorded text: encoding/json
// escapes C0 controls, jsonSafe what it leaves raw and no surface shows
// raw (DEL, C1 and the bidirectional controls) as \uNNNN. The JSON printed
// on a terminal is then as safe as the text, and decodes to the same
// strings. Every Write is a whole encoded value (json.Encoder's), so no
// character is split between two.
type jsonSafe struct{ w io.Writer }

func (j jsonSafe) Write(p []byte) (int, error) {
	if clean(p) {
		return j.w.Write(p)
	}
	out := make([]byte, 0, len(p)+16)
	for i := 0; i < len(p); {
		r, size := utf8.DecodeRune(p[i:])
		if size > 0 && engine.IsControl(r) && r >= 0x20 {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, p[i:i+size]...)
		}
		i += size
	}
	if _, err := j.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}
