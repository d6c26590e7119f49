package checkout

import "bytes"

// Outcomes.
const (
	Pass    = "pass"
	Fail    = "fail"
	Unknown = "unknown"
)

// Result is what a check's own output says.
type Result struct {
	// Outcome is Pass, Fail or Unknown (never a guess: Unknown when the
	// output settles nothing).
	Outcome string
	// Runner is the reader that decided ("go test", "pytest", "jest", "make",
	// "shell", …), "" when none did.
	Runner string
	// Counts the output printed (0 when it printed none). Their unit is the
	// runner's: tests for test runners, packages for go test (ok, FAIL, and
	// [build failed] as Errors, [no test files] as Skipped), errors for
	// compilers and linters (in Errors).
	Passed, Failed, Errors, Skipped int
	// Counted: the counts are the runner's own figures for the whole run (a
	// summary line, or per-unit lines with the whole output visible), not a
	// tally of what part of the output was visible.
	Counted bool
}

// Read judges a check command's output. command is the shell command line:
// it picks the readers (a runner it names, or every reader behind a wrapper
// such as `make test` or `npm test`) and tells how the output was cut or
// filtered on its way (`| tail -n 20`, `| head`, `| grep …`, `2>/dev/null`,
// `> file`).
//
// head and tail are the first and the last bytes of the combined output. When
// the output was short enough to keep whole, pass it as both (Split does): Read
// then knows nothing is missing. When they differ, Read assumes bytes between
// them may be missing, drops the partial line at each cut, and never counts a
// line twice only if they do not overlap. An empty tail with a non-empty head
// means only the start is known; an empty head with a non-empty tail, only the
// end.
func Read(command string, head, tail []byte) Result {
	p := parseCommand(command)
	return p.read(head, tail)
}

// Split cuts an output into the windows Read expects: the output itself as
// both when it is at most 2n bytes, else its first and its last n bytes.
func Split(out []byte, n int) (head, tail []byte) {
	if n <= 0 {
		return nil, nil
	}
	if len(out) <= 2*n {
		return out, out
	}
	return out[:n], out[len(out)-n:]
}

// lineMax bounds the bytes of one line that are judged; the rest of a longer
// line is skipped (every marker a reader looks for is near a line's start).
const lineMax = 512

// line is one cleaned line of output.
type line struct {
	b   []byte // the line, escapes and carriage returns removed, trailing spaces trimmed
	t   []byte // b without its leading blanks
	ind int    // number of leading blanks
	end bool   // the line is in the part of the output that holds its end
}

// scan is the state of one Read over the output.
type scan struct {
	p       *plan
	ts      [numReaders]tally
	ln      line
	buf     [lineMax]byte
	content int // non-blank lines that are not a known echo
	quiet   int // content lines a named silent runner calls harmless
}

func (p *plan) read(head, tail []byte) Result {
	var s scan
	s.p = p
	whole := bytes.Equal(head, tail)
	switch {
	case whole:
		s.feed(head, true, false, false)
	default:
		if len(head) > 0 {
			s.feed(head, false, false, true)
		}
		if len(tail) > 0 {
			s.feed(tail, true, true, false)
		}
	}
	return s.judge(head, tail, whole)
}

// feed scans buf line by line. end marks lines in the part holding the
// output's end; dropFirst and dropLast skip a line cut by the window.
func (s *scan) feed(buf []byte, end, dropFirst, dropLast bool) {
	if dropFirst {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			return
		}
		buf = buf[i+1:]
	}
	if dropLast && len(buf) > 0 && buf[len(buf)-1] != '\n' {
		i := bytes.LastIndexByte(buf, '\n')
		if i < 0 {
			return
		}
		buf = buf[:i+1]
	}
	for len(buf) > 0 {
		i := bytes.IndexByte(buf, '\n')
		var raw []byte
		if i < 0 {
			raw, buf = buf, nil
		} else {
			raw, buf = buf[:i], buf[i+1:]
		}
		// A carriage return overwrites the line on a terminal: the last
		// segment is what shows.
		if j := bytes.LastIndexByte(trimCR(raw), '\r'); j >= 0 {
			raw = raw[j+1:]
		}
		s.line(raw, end)
	}
}

func trimCR(b []byte) []byte {
	for len(b) > 0 && b[len(b)-1] == '\r' {
		b = b[:len(b)-1]
	}
	return b
}

// line cleans one raw line into the fixed buffer and hands it to the readers.
func (s *scan) line(raw []byte, end bool) {
	n := clean(s.buf[:], raw)
	b := s.buf[:n]
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	if len(b) == 0 {
		return
	}
	ind := 0
	for ind < len(b) && (b[ind] == ' ' || b[ind] == '\t') {
		ind++
	}
	for _, e := range s.p.echoes {
		if string(b[ind:]) == e {
			return
		}
	}
	s.content++
	s.ln = line{b: b, t: b[ind:], ind: ind, end: end}
	quiet := false
	for _, r := range s.p.readers {
		if r.scan(&s.ts[r.id], &s.ln, s.p) && r.silent && s.p.named[r.id] {
			quiet = true
		}
	}
	if quiet {
		s.quiet++
	}
}

// clean copies raw into dst without terminal escape sequences and control
// bytes (tabs stay), and returns the length written; it stops when dst is
// full.
func clean(dst, raw []byte) int {
	if bytes.IndexByte(raw, 0x1b) < 0 {
		// The common case: no escapes, only stray control bytes to drop.
		n := 0
		for _, c := range raw[:min(len(raw), len(dst))] {
			if c >= 0x20 && c != 0x7f || c == '\t' {
				dst[n] = c
				n++
			}
		}
		return n
	}
	n := 0
	for i := 0; i < len(raw) && n < len(dst); i++ {
		c := raw[i]
		switch {
		case c == 0x1b:
			if i+1 >= len(raw) {
				return n
			}
			switch raw[i+1] {
			case '[': // CSI: parameters, then one final byte in 0x40–0x7e
				j := i + 2
				for j < len(raw) && (raw[j] < 0x40 || raw[j] > 0x7e) {
					j++
				}
				i = j
			case ']': // OSC: up to BEL or ESC \
				j := i + 2
				for j < len(raw) && raw[j] != 0x07 && !(raw[j] == 0x1b && j+1 < len(raw) && raw[j+1] == '\\') {
					j++
				}
				if j < len(raw) && raw[j] == 0x1b {
					j++
				}
				i = j
			default:
				i++
			}
		case c == '\t':
			dst[n] = c
			n++
		case c < 0x20 || c == 0x7f:
			// other control bytes show nothing
		default:
			dst[n] = c
			n++
		}
	}
	return n
}

// visible is what the capture and the command's plumbing let be seen.
type visible struct {
	complete   bool // all of the check's output is there
	endVisible bool // its end is there, unfiltered
	silenceOK  bool // an empty output would be the runner's own silence
}

func (s *scan) view(head, tail []byte, whole bool) visible {
	v := s.p.view
	startCut, endCut := false, false
	gap := !whole && len(head) > 0 && len(tail) > 0
	if !whole && len(tail) == 0 {
		endCut = true
	}
	if !whole && len(head) == 0 {
		startCut = true
	}
	lines := 0
	if whole {
		lines = bytes.Count(head, []byte{'\n'})
		if len(head) > 0 && head[len(head)-1] != '\n' {
			lines++
		}
	}
	for _, c := range v.cuts {
		switch {
		case c.from:
			if c.n > 1 {
				startCut = true
			}
			continue
		case c.neg:
			endCut = true
			continue
		}
		// Fewer lines (bytes) than head or tail keeps: it cut nothing. The
		// capture may hold more than the cut command printed (stderr, an
		// echo), never less, so this errs towards "cut".
		if whole && (c.bytes && len(head) < c.n || !c.bytes && lines < c.n) {
			continue
		}
		if c.tail {
			startCut = true
		} else {
			endCut = true
		}
	}
	return visible{
		complete:   !startCut && !endCut && !gap && !v.filtered,
		endVisible: !endCut && !v.filtered,
		// Silence needs the whole capture: a capture cut in two held bytes.
		silenceOK: whole && s.p.direct && s.p.silent && !v.filtered && !v.stderrLost,
	}
}

func (s *scan) judge(head, tail []byte, whole bool) Result {
	v := s.view(head, tail, whole)
	p := s.p
	for _, r := range p.readers {
		t := &s.ts[r.id]
		if t.fail || t.verdict < 0 || t.weak && (p.named[r.id] || t.known) {
			return t.result(Fail, r, v)
		}
	}
	for _, r := range p.readers {
		t := &s.ts[r.id]
		switch {
		case t.verdict > 0,
			t.endPass && v.endVisible,
			t.unitPass && v.complete:
			return t.result(Pass, r, v)
		}
	}
	if v.silenceOK && s.content == s.quiet && len(p.readers) > 0 {
		return Result{Outcome: Pass, Runner: p.readers[0].name}
	}
	return Result{Outcome: Unknown}
}

func (t *tally) result(outcome string, r *reader, v visible) Result {
	return Result{
		Outcome: outcome,
		Runner:  r.name,
		Passed:  t.passed,
		Failed:  t.failed,
		Errors:  t.errors,
		Skipped: t.skipped,
		Counted: t.counted || t.unitCounts && v.complete,
	}
}
