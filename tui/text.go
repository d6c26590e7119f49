package tui

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Text helpers: everything recorded (commands, paths, evidence, nudges,
// directory and branch names) passes through clean before it is styled, and
// every line is measured and cut in display cells.

// clean makes a recorded string safe to draw on one line: control
// characters (C0 other than tab and newline, DEL, C1) and the bidi controls
// that reorder what follows are shown as \xNN or \uNNNN, never sent to the
// terminal; a newline becomes ⏎ and a tab a space, so one record is one row.
func clean(s string) string {
	if isClean(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString("⏎")
		case r == '\t':
			b.WriteByte(' ')
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r <= 0x9f || isBidi(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// cleanText is clean for multi-line text (a nudge): lines stay lines.
func cleanText(s string) []string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = clean(l)
	}
	return lines
}

func isClean(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f || c >= 0x80 {
			return isCleanUTF8(s[i:])
		}
	}
	return true
}

func isCleanUTF8(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f || r == utf8.RuneError || isBidi(r) {
			return false
		}
	}
	return true
}

func isBidi(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c
}

// width is a string's width in terminal cells, escapes excluded.
func width(s string) int { return ansi.StringWidth(s) }

// cut shortens s to w cells, ending in … when it had to cut.
func cut(s string, w int) string {
	if w <= 0 {
		return ""
	}
	out := ansi.Truncate(s, w, "…")
	// A redaction marker is dropped whole, never shown as "[REDACT…":
	// cut in two it reads as a value, not as what was taken out.
	if head, ok := strings.CutSuffix(out, "…"); ok && out != s {
		for k := len(redactedMarker) - 1; k >= 2; k-- {
			if strings.HasSuffix(head, redactedMarker[:k]) {
				return head[:len(head)-k] + "…"
			}
		}
	}
	return out
}

// redactedMarker is what redaction writes in place of a secret
// (hookbridge's marker; the panel imports no hook code).
const redactedMarker = "[REDACTED]"

// pad cuts or right-pads s to exactly w cells.
func pad(s string, w int) string {
	s = cut(s, w)
	if n := w - width(s); n > 0 {
		s += strings.Repeat(" ", n)
	}
	return s
}

// padLeft right-aligns s in w cells.
func padLeft(s string, w int) string {
	s = cut(s, w)
	if n := w - width(s); n > 0 {
		s = strings.Repeat(" ", n) + s
	}
	return s
}

// wrap breaks s into lines of at most w cells, at spaces where it can and
// inside a word only when the word alone is wider than w. Nothing is lost.
func wrap(s string, w int) []string {
	if w < 1 {
		w = 1
	}
	out := strings.Split(ansi.Wrap(s, w, ""), "\n")
	for i, l := range out {
		out[i] = strings.TrimRight(l, " ")
	}
	return out
}

// wrapIndent wraps s to w cells with every line after the first indented
// by indent spaces, and the first by first (already written by the caller).
func wrapIndent(s string, w, indent int) []string {
	lines := wrap(s, w-indent)
	for i := range lines {
		lines[i] = strings.Repeat(" ", indent) + lines[i]
	}
	return lines
}

// ago says how long before now t was, coarsely enough to stay true between
// two ticks of the panel's clock: "just now", "40s ago", "3m ago".
func ago(now, t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	s := agoShort(now, t)
	if s == "now" {
		return "just now"
	}
	return s + " ago"
}

// agoShort is ago for a column: "now", "40s", "3m", "2h", "4d".
func agoShort(now, t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	d := now.Sub(t)
	switch {
	case d < 10*time.Second: // a little clock skew between hook and panel is "now" too
		return "now"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds())/10*10)
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// clock is t's wall-clock time, with the date when it is not today's.
func clock(now, t time.Time) string {
	t, now = t.Local(), now.Local()
	if y, m, d := t.Date(); y != now.Year() || m != now.Month() || d != now.Day() {
		return t.Format("Jan 2 15:04:05")
	}
	return t.Format("15:04:05")
}

// when is "3m ago (11:56:10)".
func when(now, t time.Time) string { return ago(now, t) + " (" + clock(now, t) + ")" }

// dur renders a span for the budget line: 4m0s, 1h12m.
func dur(d time.Duration) string {
	switch {
	case d < 0:
		return "—"
	case d < time.Hour:
		return d.Round(time.Second).String()
	}
	return strings.TrimSuffix(d.Round(time.Minute).String(), "0s")
}

// freshen keeps the relative times inside a recorded sentence true: guard
// evidence such as "read whole 1m31s ago" was written when the guard fired
// (at raised), so each "<duration> ago" (and "just now") in it is restated
// from now. Only the rendering changes; the sentence is the engine's.
func freshen(s string, raised, now time.Time) string {
	if raised.IsZero() || !strings.Contains(s, " ago") && !strings.Contains(s, "just now") {
		return s
	}
	var b strings.Builder
	words := strings.Split(s, " ")
	for i := 0; i < len(words); i++ {
		w := words[i]
		if i+1 < len(words) && strings.HasPrefix(words[i+1], "ago") {
			if d, err := time.ParseDuration(w); err == nil && d >= 0 {
				b.WriteString(ago(now, raised.Add(-d)))
				b.WriteString(strings.TrimPrefix(words[i+1], "ago"))
				if i+2 < len(words) {
					b.WriteByte(' ')
				}
				i++
				continue
			}
		}
		if w == "just" && i+1 < len(words) && strings.HasPrefix(words[i+1], "now") {
			b.WriteString(ago(now, raised))
			b.WriteString(strings.TrimPrefix(words[i+1], "now"))
			if i+2 < len(words) {
				b.WriteByte(' ')
			}
			i++
			continue
		}
		b.WriteString(w)
		if i+1 < len(words) {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// shortID is a session id's first eight characters.
func shortID(id string) string {
	return ansi.Truncate(clean(id), 8, "")
}

// cutNoTail shortens s to w cells without a marker.
func cutNoTail(s string, w int) string { return ansi.Truncate(s, w, "") }
