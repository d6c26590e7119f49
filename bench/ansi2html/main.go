// Command ansi2html turns a terminal capture (tmux capture-pane -e -p)
// into a standalone HTML page of the same grid, for bench/panel-png.sh to
// photograph with a headless browser. It understands SGR only: bold,
// faint, italic, underline, reverse, and 16, 256 and 24-bit colours; any
// other escape is dropped. Every non-ASCII character sits in a box of one
// cell (two for wide ones), so fallback fonts cannot break the columns.
//
//	tmux capture-pane -e -p -t p | ansi2html -cols 56 -rows 40 -bg '#1e1e2e' -fg '#cdd6f4' > out.html
package main

import (
	"bufio"
	"flag"
	"fmt"
	"html"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Geometry of the page: bench/panel-png.sh sizes the browser window from
// the same numbers.
const (
	fontPx = 13
	linePx = 17
	padPx  = 12
)

type style struct {
	fg, bg                             string // "" is the default
	bold, faint, italic, under, invert bool
}

func (s style) css(defFg, defBg string) string {
	fg, bg := s.fg, s.bg
	if s.invert {
		fg, bg = bg, fg
		if fg == "" {
			fg = defBg
		}
		if bg == "" {
			bg = defFg
		}
	}
	var b strings.Builder
	if fg != "" {
		fmt.Fprintf(&b, "color:%s;", fg)
	}
	if bg != "" {
		fmt.Fprintf(&b, "background:%s;", bg)
	}
	if s.bold {
		b.WriteString("font-weight:bold;")
	}
	if s.faint { // faint is the foreground halfway to the background
		if fg == "" {
			fg = defFg
		}
		if bg == "" {
			bg = defBg
		}
		fmt.Fprintf(&b, "color:%s;", mix(fg, bg))
	}
	if s.italic {
		b.WriteString("font-style:italic;")
	}
	if s.under {
		b.WriteString("text-decoration:underline;")
	}
	return b.String()
}

// mix is the colour halfway between two #rrggbb colours.
func mix(a, b string) string {
	pa, pb := hex(a), hex(b)
	return fmt.Sprintf("#%02x%02x%02x", (pa[0]+pb[0])/2, (pa[1]+pb[1])/2, (pa[2]+pb[2])/2)
}

func hex(c string) [3]int {
	var v [3]int
	if len(c) == 7 && c[0] == '#' {
		for i := range v {
			n, _ := strconv.ParseUint(c[1+2*i:3+2*i], 16, 8)
			v[i] = int(n)
		}
	}
	return v
}

// basic are the 16 ANSI colours (xterm's defaults).
var basic = [16]string{
	"#000000", "#cd0000", "#00cd00", "#cdcd00", "#0000ee", "#cd00cd", "#00cdcd", "#e5e5e5",
	"#7f7f7f", "#ff0000", "#00ff00", "#ffff00", "#5c5cff", "#ff00ff", "#00ffff", "#ffffff",
}

func indexed(n int) string {
	switch {
	case n < 16:
		return basic[n]
	case n < 232:
		n -= 16
		lv := func(v int) int {
			if v == 0 {
				return 0
			}
			return 55 + v*40
		}
		return fmt.Sprintf("#%02x%02x%02x", lv(n/36), lv(n/6%6), lv(n%6))
	case n < 256:
		g := 8 + (n-232)*10
		return fmt.Sprintf("#%02x%02x%02x", g, g, g)
	}
	return ""
}

// sgr applies one SGR parameter list to s.
func sgr(s style, params string) style {
	if params == "" {
		return style{}
	}
	ps := strings.FieldsFunc(params, func(r rune) bool { return r == ';' || r == ':' })
	num := func(i int) int {
		if i >= len(ps) {
			return -1
		}
		n, err := strconv.Atoi(ps[i])
		if err != nil {
			return -1
		}
		return n
	}
	for i := 0; i < len(ps); i++ {
		n := num(i)
		switch {
		case n == 0:
			s = style{}
		case n == 1:
			s.bold = true
		case n == 2:
			s.faint = true
		case n == 3:
			s.italic = true
		case n == 4:
			s.under = true
		case n == 7:
			s.invert = true
		case n == 22:
			s.bold, s.faint = false, false
		case n == 23:
			s.italic = false
		case n == 24:
			s.under = false
		case n == 27:
			s.invert = false
		case n >= 30 && n <= 37:
			s.fg = basic[n-30]
		case n >= 90 && n <= 97:
			s.fg = basic[n-90+8]
		case n >= 40 && n <= 47:
			s.bg = basic[n-40]
		case n >= 100 && n <= 107:
			s.bg = basic[n-100+8]
		case n == 39:
			s.fg = ""
		case n == 49:
			s.bg = ""
		case n == 38 || n == 48:
			var c string
			switch num(i + 1) {
			case 5:
				c = indexed(num(i + 2))
				i += 2
			case 2:
				c = fmt.Sprintf("#%02x%02x%02x", num(i+2)&255, num(i+3)&255, num(i+4)&255)
				i += 4
			}
			if n == 38 {
				s.fg = c
			} else {
				s.bg = c
			}
		}
	}
	return s
}

func main() {
	cols := flag.Int("cols", 80, "terminal columns")
	rows := flag.Int("rows", 24, "terminal rows")
	fg := flag.String("fg", "#d8d8d8", "default foreground")
	bg := flag.String("bg", "#1e1e2e", "default background")
	title := flag.String("title", "cully panel", "page title")
	flag.Parse()
	if err := convert(os.Stdin, os.Stdout, *cols, *rows, *fg, *bg, *title); err != nil {
		fmt.Fprintln(os.Stderr, "ansi2html:", err)
		os.Exit(1)
	}
}

func convert(r io.Reader, w io.Writer, cols, rows int, fg, bg, title string) error {
	in, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	lines := strings.Split(strings.TrimRight(string(in), "\n"), "\n")
	for len(lines) < rows {
		lines = append(lines, "")
	}
	out := bufio.NewWriter(w)
	fmt.Fprintf(out, `<!doctype html><meta charset="utf-8"><title>%s</title><style>
html,body{margin:0;background:%s;overflow:hidden}
pre{margin:0;padding:%dpx;font:%dpx/%dpx "DejaVu Sans Mono","Liberation Mono",monospace;color:%s;min-width:%dch;width:max-content}
pre div{height:%dpx;white-space:pre}
i{font-style:normal;display:inline-block;width:1ch;text-align:center;overflow:visible}
i.w{width:2ch}
</style><pre>`, html.EscapeString(title), bg, padPx, fontPx, linePx, fg, cols, linePx)
	var st style // tmux's capture carries attributes from one row to the next
	for _, l := range lines[:rows] {
		out.WriteString("<div>")
		st = writeLine(out, l, st, cols, fg, bg)
		out.WriteString("</div>") // no newline between rows: inside <pre> it would be a blank line
	}
	out.WriteString("</pre>\n")
	return out.Flush()
}

// writeLine writes one row. A background still set at the end of the row
// fills it to the edge: the panel's renderer erases the rest of a
// highlighted row with EL, which a terminal fills with the current
// background (bce), and tmux's capture leaves out those erased cells.
func writeLine(out *bufio.Writer, l string, start style, cols int, fg, bg string) style {
	var cur style
	open := false
	set := func(s style) {
		if s == cur && open {
			return
		}
		if open {
			out.WriteString("</span>")
		}
		cur, open = s, true
		fmt.Fprintf(out, `<span style="%s">`, s.css(fg, bg))
	}
	set(start)
	used := 0
	for i := 0; i < len(l); {
		if l[i] == 0x1b {
			n := escLen(l[i:])
			seq := l[i : i+n]
			if strings.HasPrefix(seq, "\x1b[") && strings.HasSuffix(seq, "m") {
				set(sgr(cur, seq[2:len(seq)-1]))
			}
			i += n
			continue
		}
		r, size := utf8.DecodeRuneInString(l[i:])
		ch := l[i : i+size]
		switch {
		case r < 0x20:
		case r < 0x80:
			out.WriteString(html.EscapeString(ch))
			used++
		default:
			cls := ""
			if ansi.StringWidth(ch) == 2 {
				cls = ` class="w"`
				used++
			}
			fmt.Fprintf(out, "<i%s>%s</i>", cls, html.EscapeString(ch))
			used++
		}
		i += size
	}
	if cur.bg != "" && used < cols {
		out.WriteString(strings.Repeat(" ", cols-used))
	}
	out.WriteString("</span>")
	return cur
}

// escLen is the length of the escape sequence at the start of s: CSI to
// its final byte, OSC/DCS to their terminator, else two bytes.
func escLen(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch s[1] {
	case '[':
		for j := 2; j < len(s); j++ {
			if s[j] >= 0x40 && s[j] <= 0x7e {
				return j + 1
			}
		}
		return len(s)
	case ']', 'P', '_':
		for j := 2; j < len(s); j++ {
			if s[j] == 0x07 {
				return j + 1
			}
			if s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\' {
				return j + 2
			}
		}
		return len(s)
	}
	return 2
}
