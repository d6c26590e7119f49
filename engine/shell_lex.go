package engine

import (
	"strings"
	"unicode/utf8"
)

// The lexer splits a command line into segments, words and file
// redirections. It knows no command names: what the words mean is shell.go's
// business, and its tables are in shell_tables.go.

// segment is one simple command: its words, the files it redirects output
// to, and the operator that follows it.
type segment struct {
	words    []string
	redirs   []string // redirection targets that are files
	op       string   // operator that follows: "&&", "||", ";", "|", "&" or "" at the end
	pipefail bool     // set by ClassifyShell: a `set -o pipefail` came before
}

// splitShell tokenizes a command line into segments, honouring quotes and
// escapes. It is deliberately forgiving: a command it cannot parse still
// yields words.
func splitShell(s string) []segment {
	var segs []segment
	var cur segment
	// The word in progress, in one buffer the size of the line: a
	// strings.Builder per word grew by doubling, several allocations a
	// word, each a fresh span of some size in a hook process.
	word := make([]byte, 0, len(s))
	inWord := false
	pendingRedir := false
	flushWord := func() {
		if !inWord {
			return
		}
		w := string(word)
		word = word[:0]
		inWord = false
		if pendingRedir {
			pendingRedir = false
			if isFileTarget(w) {
				cur.redirs = append(cur.redirs, w)
			}
			return
		}
		if cur.words == nil {
			cur.words = make([]string, 0, 8) // the words of most commands, in one allocation
		}
		cur.words = append(cur.words, w)
	}
	endSeg := func(op string) {
		flushWord()
		cur.op = op
		if len(cur.words) > 0 || len(cur.redirs) > 0 {
			segs = append(segs, cur)
		} else if len(segs) > 0 && op != "" {
			segs[len(segs)-1].op = op
		}
		cur = segment{}
	}
	rs := []rune(s)
	var docs []hereDoc // here-docs opened on the current line
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case c == '\\' && i+1 < len(rs):
			if rs[i+1] == '\n' {
				i++
				continue
			}
			word = utf8.AppendRune(word, rs[i+1])
			inWord = true
			i++
		case c == '\'':
			j := i + 1
			for j < len(rs) && rs[j] != '\'' {
				j++
			}
			for _, r := range rs[i+1 : min(j, len(rs))] {
				word = utf8.AppendRune(word, r)
			}
			inWord = true
			i = j
		case c == '"':
			j := i + 1
			for j < len(rs) && rs[j] != '"' {
				if rs[j] == '\\' && j+1 < len(rs) {
					j++
				}
				j++
			}
			for _, r := range rs[i+1 : min(j, len(rs))] {
				word = utf8.AppendRune(word, r)
			}
			inWord = true
			i = j
		case c == ' ' || c == '\t':
			flushWord()
		case c == '\n' && len(docs) > 0:
			// The here-docs opened on this line: their bodies are data, not
			// commands; the line after the last delimiter goes on.
			endSeg(";")
			end := skipHereDocs(rs, i+1, docs)
			if end < 0 || end >= len(rs) { // the body ends the line (or never ends: the rest is data)
				if len(segs) > 0 {
					segs[len(segs)-1].op = ""
				}
				return segs
			}
			docs, i = docs[:0], end-1
		case c == '\n' || c == ';':
			endSeg(";")
		case c == '&':
			if i+1 < len(rs) && rs[i+1] == '&' {
				endSeg("&&")
				i++
			} else if i+1 < len(rs) && rs[i+1] == '>' { // &> file
				flushWord()
				pendingRedir = true
				i++
				if i+1 < len(rs) && rs[i+1] == '>' {
					i++
				}
			} else {
				endSeg("&")
			}
		case c == '|':
			if i+1 < len(rs) && rs[i+1] == '|' {
				endSeg("||")
				i++
			} else {
				endSeg("|")
			}
		case c == '>':
			// N>&M duplicates a descriptor: no file.
			if inWord && !isDigits(string(word)) {
				flushWord()
			} else {
				word = word[:0]
				inWord = false
			}
			if i+1 < len(rs) && rs[i+1] == '>' {
				i++
			}
			if i+1 < len(rs) && rs[i+1] == '&' {
				// >&2 or 2>&1: skip the descriptor
				i++
				for i+1 < len(rs) && rs[i+1] >= '0' && rs[i+1] <= '9' {
					i++
				}
				continue
			}
			pendingRedir = true
		case c == '<':
			flushWord()
			// Input redirection and here-docs read; skip the operator and the
			// following word (the file or the delimiter, remembered: the
			// here-doc's body begins on the next line and ends at it).
			n := 1
			for i+1 < len(rs) && rs[i+1] == '<' {
				n++
				i++
			}
			dash := n == 2 && i+1 < len(rs) && rs[i+1] == '-'
			if dash {
				i++
			}
			for i+1 < len(rs) && (rs[i+1] == ' ' || rs[i+1] == '\t') {
				i++
			}
			start := i + 1
			for i+1 < len(rs) && rs[i+1] != ' ' && rs[i+1] != '\n' && rs[i+1] != ';' && rs[i+1] != '|' && rs[i+1] != '&' && rs[i+1] != ')' {
				i++
			}
			if n == 2 {
				if d := strings.NewReplacer(`'`, "", `"`, "", `\`, "").Replace(string(rs[start : i+1])); d != "" {
					docs = append(docs, hereDoc{delim: d, dash: dash})
				}
			}
		default:
			word = utf8.AppendRune(word, c)
			inWord = true
		}
	}
	endSeg("")
	return segs
}

// hereDoc is a here-document's delimiter; dash: <<- (leading tabs of its
// lines are dropped, the delimiter's too).
type hereDoc struct {
	delim string
	dash  bool
}

// skipHereDocs passes the bodies of docs, in order, from rs[i] (the start
// of the line after the one that opened them). It returns the index of the
// line after the last delimiter, or -1 when a body has no end.
func skipHereDocs(rs []rune, i int, docs []hereDoc) int {
	for _, d := range docs {
		for {
			if i >= len(rs) {
				return -1
			}
			j := i
			for j < len(rs) && rs[j] != '\n' {
				j++
			}
			line := string(rs[i:j])
			if d.dash {
				line = strings.TrimLeft(line, "\t")
			}
			i = j + 1
			if line == d.delim {
				break
			}
		}
	}
	return min(i, len(rs))
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func isFileTarget(w string) bool {
	return w != "" && w != "/dev/null" && w != "/dev/stdout" && w != "/dev/stderr" && !strings.HasPrefix(w, "&")
}
