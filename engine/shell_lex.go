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
			// following word (the file or the delimiter).
			for i+1 < len(rs) && (rs[i+1] == '<' || rs[i+1] == '-') {
				i++
			}
			skipWord := true
			for skipWord && i+1 < len(rs) && (rs[i+1] == ' ' || rs[i+1] == '\t') {
				i++
			}
			for i+1 < len(rs) && rs[i+1] != ' ' && rs[i+1] != '\n' && rs[i+1] != ';' && rs[i+1] != '|' && rs[i+1] != '&' {
				i++
			}
			if i+1 < len(rs) && rs[i+1] == '\n' {
				// a here-doc body follows: it is data, not commands
				return appendTail(segs, cur, word, inWord)
			}
		default:
			word = utf8.AppendRune(word, c)
			inWord = true
		}
	}
	endSeg("")
	return segs
}

// appendTail closes the segment in progress when the rest of the line is a
// here-doc body.
func appendTail(segs []segment, cur segment, word []byte, inWord bool) []segment {
	if inWord {
		cur.words = append(cur.words, string(word))
	}
	if len(cur.words) > 0 || len(cur.redirs) > 0 {
		segs = append(segs, cur)
	}
	return segs
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
