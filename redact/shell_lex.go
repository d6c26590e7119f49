package redact

import "strings"

// This file holds the rules that need the shell's view of a command: which
// program a flag belongs to, what a word follows, where output is
// redirected and which heredoc feeds which command. The lexer is
// deliberately small (words, quotes, $(…), operators, redirections and
// heredocs); a command it misreads still goes through the text rules.

type wordKind uint8

const (
	wArg     wordKind = iota
	wSep              // ; & && || ( ) and a line break
	wPipe             // | |&
	wRedir            // > >> >| &> < <> >& <&
	wTarget           // the word after a redirection
	wHeredoc          // << <<-
	wDelim            // a heredoc's delimiter
	wHereStr          // <<<
	wHereVal          // the word after <<<
)

type shWord struct {
	a, b  int
	kind  wordKind
	whole bool // the word is one quoted string: "…" or '…'
}

type heredoc struct {
	delim int // index of the delimiter word
	dash  bool
	body  span
}

type region struct{ a, b, depth int }

// shellState is the lexer's per-line buffer: arrays with an overflow
// slice, reused line after line.
type shellState struct {
	nw    int
	words [48]shWord
	wmore []shWord

	ndoc  int
	docs  [4]heredoc
	dmore []heredoc

	nsub  int
	subs  [4]region
	smore []region

	// Per command of the line (the first ones), worked out once.
	heads  [16]int
	stdins [16]bool

	// Per command, so that each is worked out once.
	setDone bool // secrets set K=V… was handled
	subAt   int  // the tool word whose subcommand was looked for (+1)…
	subHas  bool // …and whether the command holds it
}

func (st *shellState) push(w shWord) {
	if st.nw < len(st.words) {
		st.words[st.nw] = w
	} else {
		st.wmore = append(st.wmore[:st.nw-len(st.words)], w)
	}
	st.nw++
}

func (st *shellState) w(i int) *shWord {
	if i < len(st.words) {
		return &st.words[i]
	}
	return &st.wmore[i-len(st.words)]
}

func (st *shellState) pushDoc(d heredoc) {
	if st.ndoc < len(st.docs) {
		st.docs[st.ndoc] = d
	} else {
		st.dmore = append(st.dmore[:st.ndoc-len(st.docs)], d)
	}
	st.ndoc++
}

func (st *shellState) doc(i int) *heredoc {
	if i < len(st.docs) {
		return &st.docs[i]
	}
	return &st.dmore[i-len(st.docs)]
}

func (st *shellState) pushSub(g region) {
	if st.nsub < len(st.subs) {
		st.subs[st.nsub] = g
	} else {
		st.smore = append(st.smore[:st.nsub-len(st.subs)], g)
	}
	st.nsub++
}

func (st *shellState) popSub() region {
	st.nsub--
	if st.nsub < len(st.subs) {
		return st.subs[st.nsub]
	}
	return st.smore[st.nsub-len(st.subs)]
}

// maxDepth bounds how deep quoted commands (bash -c '…', ssh host '…')
// and heredocs fed to a shell are read as commands in turn.
const maxDepth = 2

func (r *redactor) scanShell() {
	r.shellRegion(0, len(r.s), 0)
	for r.sh.nsub > 0 {
		g := r.sh.popSub()
		r.shellRegion(g.a, g.b, g.depth)
	}
}

func (r *redactor) shellRegion(p, end, depth int) {
	for p < end {
		next := r.lexLine(p, end)
		r.line(depth)
		if next <= p {
			break
		}
		p = next
	}
}

func (r *redactor) word(i int) string {
	w := r.sh.w(i)
	return r.s[w.a:w.b]
}

// lexLine reads the words of one line from p, and the bodies of the
// heredocs it opens; it returns where the next line starts.
func (r *redactor) lexLine(p, end int) int {
	s := r.s
	st := &r.sh
	st.nw, st.ndoc = 0, 0
	next := wArg
	dash := false // the heredoc operator was <<-
	op := func(n int, k wordKind) {
		st.push(shWord{a: p, b: p + n, kind: k})
		p += n
	}
	for p < end {
		c := s[p]
		switch c {
		case ' ', '\t', '\r':
			p++
			continue
		case '\n':
			op(1, wSep)
			return r.heredocBodies(p, end)
		case '#':
			for p < end && s[p] != '\n' {
				p++
			}
			continue
		case ';', '(', ')':
			op(1, wSep)
			next = wArg
			continue
		case '&':
			switch {
			case p+1 < end && s[p+1] == '&':
				op(2, wSep)
			case p+2 < end && s[p+1] == '>' && s[p+2] == '>':
				op(3, wRedir)
				next = wTarget
				continue
			case p+1 < end && s[p+1] == '>':
				op(2, wRedir)
				next = wTarget
				continue
			default:
				op(1, wSep)
			}
			next = wArg
			continue
		case '|':
			switch {
			case p+1 < end && s[p+1] == '|':
				op(2, wSep)
			case p+1 < end && s[p+1] == '&':
				op(2, wPipe)
			default:
				op(1, wPipe)
			}
			next = wArg
			continue
		case '<':
			switch {
			case strings.HasPrefix(s[p:end], "<<<"):
				op(3, wHereStr)
				next = wHereVal
			case strings.HasPrefix(s[p:end], "<<-"):
				op(3, wHeredoc)
				next, dash = wDelim, true
			case strings.HasPrefix(s[p:end], "<<"):
				op(2, wHeredoc)
				next, dash = wDelim, false
			case p+1 < end && (s[p+1] == '>' || s[p+1] == '&'):
				op(2, wRedir)
				next = wTarget
			default:
				op(1, wRedir)
				next = wTarget
			}
			continue
		case '>':
			if p+1 < end && (s[p+1] == '>' || s[p+1] == '|' || s[p+1] == '&') {
				op(2, wRedir)
			} else {
				op(1, wRedir)
			}
			next = wTarget
			continue
		case '\\':
			if p+1 < end && s[p+1] == '\n' {
				p += 2
				continue
			}
		}
		q, whole := wordEnd(s, p, end)
		if q <= p {
			q, whole = p+1, false
		}
		if q < end && (s[q] == '<' || s[q] == '>') && allDigits(s[p:q]) {
			p = q // a file descriptor: 2>…
			continue
		}
		if next == wDelim {
			st.pushDoc(heredoc{delim: st.nw, dash: dash})
		}
		st.push(shWord{p, q, next, whole})
		next = wArg
		p = q
	}
	return r.heredocBodies(end, end)
}

// wordEnd returns the end of the shell word starting at p, and whether
// the word is one quoted string.
func wordEnd(s string, p, end int) (int, bool) {
	e := wordEnd1(s, p, end)
	if (s[p] == '"' || s[p] == '\'') && e-p >= 2 {
		return e, closeQuote(s[:e], p) == e-1
	}
	return e, false
}

func wordEnd1(s string, p, end int) int {
	q := p
	for q < end {
		switch s[q] {
		case ' ', '\t', '\n', '\r', ';', '&', '|', '<', '>', '(', ')':
			return q
		case '\\':
			q += 2
		case '\'':
			e := strings.IndexByte(s[q+1:end], '\'')
			if e < 0 {
				return end
			}
			q += e + 2
		case '"':
			q = min(closeQuote(s[:end], q)+1, end)
		case '`':
			e := strings.IndexByte(s[q+1:end], '`')
			if e < 0 {
				return end
			}
			q += e + 2
		case '$':
			if q+1 < end && s[q+1] == '(' {
				q = min(closeParen(s[:end], q+1), end)
			} else if q+1 < end && s[q+1] == '{' {
				e := strings.IndexByte(s[q:end], '}')
				if e < 0 {
					return end
				}
				q += e + 1
			} else {
				q++
			}
		default:
			q++
		}
	}
	return min(q, end)
}

// heredocBodies finds the bodies of the line's heredocs, one after the
// other from p (just after the line break), and returns where the line
// after the last one starts.
func (r *redactor) heredocBodies(p, end int) int {
	s := r.s
	st := &r.sh
	for d := 0; d < st.ndoc; d++ {
		doc := st.doc(d)
		delim := unquoteDelim(r.word(doc.delim))
		start := p
		doc.body = span{start, end}
		for q := start; q < end; {
			le := strings.IndexByte(s[q:end], '\n')
			if le < 0 {
				le = end
			} else {
				le += q
			}
			line := s[q:le]
			if doc.dash {
				line = strings.TrimLeft(line, "\t")
			}
			if strings.TrimSuffix(line, "\r") == delim {
				doc.body = span{start, q}
				p = min(le+1, end)
				break
			}
			q = le + 1
		}
		if doc.body.b == end {
			p = end
		}
	}
	return p
}

func unquoteDelim(w string) string {
	if len(w) >= 2 && (w[0] == '\'' || w[0] == '"') && w[len(w)-1] == w[0] {
		return w[1 : len(w)-1]
	}
	if !strings.ContainsAny(w, `'"\`) {
		return w
	}
	return strings.Map(func(c rune) rune {
		if c == '\'' || c == '"' || c == '\\' {
			return -1
		}
		return c
	}, w)
}

// stripQuotes narrows [a,b) to the inside of the quotes around it, when
// one quoted string spans it all ("x", not "a":"b").
func stripQuotes(s string, a, b int) (int, int) {
	if b-a >= 3 && s[a] == '$' && s[a+1] == '\'' && closeQuote(s[:b], a+1) == b-1 {
		return a + 2, b - 1
	}
	if b-a >= 2 && (s[a] == '"' || s[a] == '\'') && closeQuote(s[:b], a) == b-1 {
		return a + 1, b - 1
	}
	return a, b
}

// inner returns the span of word i inside its quotes, when it is one
// quoted string.
func (r *redactor) inner(i int) (int, int) {
	w := r.sh.w(i)
	if w.whole {
		return w.a + 1, w.b - 1
	}
	if w.b-w.a >= 3 && r.s[w.a] == '$' && r.s[w.a+1] == '\'' {
		return stripQuotes(r.s, w.a, w.b) // $'…'
	}
	return w.a, w.b
}

// unq returns word i without the quotes of a one-quoted-string word.
func (r *redactor) unq(i int) string {
	w := r.sh.w(i)
	if w.whole {
		return r.s[w.a+1 : w.b-1]
	}
	return r.s[w.a:w.b]
}

func unquoted(w string) string {
	if a, b := stripQuotes(w, 0, len(w)); a > 0 {
		return w[a:b]
	}
	return w
}

func basename(w string) string {
	w = unquoted(w)
	return w[strings.LastIndexByte(w, '/')+1:]
}
