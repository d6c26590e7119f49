package engine

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// IsBidi tells the bidirectional controls that reorder the text after
// them (right-to-left override and its kin): shown raw, they make a
// command read as another.
func IsBidi(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c
}

// IsControl tells the characters no surface shows raw: C0 controls other
// than newline and tab, DEL, C1 controls and the bidirectional controls.
func IsControl(r rune) bool {
	return r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f || IsBidi(r)
}

// ShowControls writes the controls in s as text: C0 and DEL as \xNN, C1
// and the bidirectional controls as \uNNNN, so that a recorded string
// shown anywhere (a nudge, a terminal, a prompt) cannot retitle a window,
// clear a screen or make a command read as another. Newlines, tabs and
// every other character stay; a string with nothing to show comes back as
// it is.
func ShowControls(s string) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
			break
		}
		if c >= 0x80 {
			r, size := utf8.DecodeRuneInString(s[i:])
			if IsControl(r) {
				break
			}
			i += size
			continue
		}
		i++
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r < 0x20 && r != '\n' && r != '\t' || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r <= 0x9f || IsBidi(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}
