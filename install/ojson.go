package install

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"cully/jsonlite"
)

// Node is a JSON value that keeps object key order and, when it was
// parsed, where it came from: Encode writes an unchanged value as its exact
// bytes and splices only what changed into the layout around it, so a
// settings file cully merges into keeps its indentation, spacing and line
// ends everywhere but in cully's own entries.
type Node struct {
	Kind  byte // 'o' object, 'a' array, 's' scalar (raw JSON)
	Keys  []string
	Vals  []*Node
	Items []*Node
	Raw   json.RawMessage

	doc        *document // the parsed document; nil for a value built in code
	start, end int       // the value's bytes in doc.src
	close      int       // a container's closing bracket in doc.src
	orig       []entry   // a container's entries as parsed
}

// entry is one member of an object or item of an array as parsed, with
// the offsets around it in the source.
type entry struct {
	key    string
	val    *Node
	pre    int // the whitespace before it starts here (just past '{', '[' or ',')
	keyEnd int // objects: just past the key's closing quote
	at     int // the entry's first byte (the key's quote, or the item)
	comma  int // the comma after it; -1 for the last entry
}

// document is a parsed file and the layout new entries follow.
type document struct {
	src   []byte
	style style
}

// style is how a file lays out its JSON, read from the file itself.
type style struct {
	unit  string // one level of indentation
	colon string // between a key and its value
	comma string // after the comma of an entry on the same line
	nl    string // "\n", or "\r\n" in a file that uses it
}

// defaultStyle is Claude Code's own: two spaces, as it writes its settings.
var defaultStyle = style{unit: "  ", colon: ": ", comma: " ", nl: "\n"}

// maxDepth bounds nesting: a settings file nests a handful of levels, and
// the parser is recursive.
const maxDepth = 512

// ParseNode parses one JSON document, keeping its bytes so that Encode can
// write back everything that did not change exactly as it was.
func ParseNode(b []byte) (*Node, error) {
	var v any
	if err := json.Unmarshal(b, &v); err != nil { // the validity check, and its message
		return nil, jsonlite.Where(b, err)
	}
	d := &document{src: b}
	p := parser{b: b, doc: d}
	p.space()
	n, err := p.value(0)
	if err != nil {
		return nil, err
	}
	d.style = inferStyle(n)
	return n, nil
}

type parser struct {
	b   []byte
	i   int
	doc *document
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (p *parser) space() {
	for p.i < len(p.b) && isSpace(p.b[p.i]) {
		p.i++
	}
}

// value reads the value at p.i. The document is valid JSON (ParseNode
// checked it first), so only its shape is read here.
func (p *parser) value(depth int) (*Node, error) {
	if depth >= maxDepth {
		return nil, fmt.Errorf("nests deeper than %d levels", maxDepth)
	}
	start := p.i
	switch p.b[p.i] {
	case '{', '[':
		return p.container(depth)
	case '"':
		p.str()
	default:
		for p.i < len(p.b) && !isSpace(p.b[p.i]) && !strings.ContainsRune(",]}", rune(p.b[p.i])) {
			p.i++
		}
	}
	return &Node{Kind: 's', Raw: p.b[start:p.i], doc: p.doc, start: start, end: p.i}, nil
}

// str skips the string at p.i.
func (p *parser) str() {
	p.i++
	for p.b[p.i] != '"' {
		if p.b[p.i] == '\\' {
			p.i++
		}
		p.i++
	}
	p.i++
}

func (p *parser) container(depth int) (*Node, error) {
	n := &Node{Kind: 'a', doc: p.doc, start: p.i}
	closing := byte(']')
	if p.b[p.i] == '{' {
		n.Kind, closing = 'o', '}'
	}
	p.i++
	pre := p.i
	p.space()
	for p.b[p.i] != closing {
		e := entry{pre: pre, at: p.i, comma: -1}
		if n.Kind == 'o' {
			p.str()
			e.keyEnd = p.i
			if err := json.Unmarshal(p.b[e.at:p.i], &e.key); err != nil {
				return nil, err
			}
			p.space()
			p.i++ // ':'
			p.space()
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		e.val = v
		p.space()
		if p.b[p.i] == ',' {
			e.comma = p.i
			p.i++
			pre = p.i
			p.space()
		}
		n.orig = append(n.orig, e)
		if n.Kind == 'o' {
			n.Keys = append(n.Keys, e.key)
			n.Vals = append(n.Vals, v)
		} else {
			n.Items = append(n.Items, v)
		}
	}
	n.close = p.i
	p.i++
	n.end = p.i
	return n, nil
}

// inferStyle reads the file's layout: the indentation unit from the first
// container laid out one entry per line, the spacing after a colon and
// after an inline comma from the first that show one, the line end from
// the file.
func inferStyle(root *Node) style {
	st := defaultStyle
	src := root.doc.src
	if bytes.Contains(src, []byte("\r\n")) {
		st.nl = "\r\n"
	}
	var unit, colon, comma bool
	var walk func(n *Node)
	walk = func(n *Node) {
		if unit && colon && comma {
			return
		}
		for k, e := range n.orig {
			ws := string(src[e.pre:e.at])
			if j := strings.LastIndexByte(ws, '\n'); j >= 0 && !unit {
				in, outer := ws[j+1:], lineIndent(src, n.start)
				if len(in) > len(outer) && strings.HasPrefix(in, outer) {
					st.unit, unit = in[len(outer):], true
				}
			} else if j < 0 && k > 0 && !comma {
				st.comma, comma = ws, true
			}
			if n.Kind == 'o' && !colon {
				st.colon, colon = string(src[e.keyEnd:e.val.start]), true
			}
			walk(e.val)
		}
	}
	walk(root)
	return st
}

// lineIndent is the indentation of the line holding offset off.
func lineIndent(src []byte, off int) string {
	s := bytes.LastIndexByte(src[:off], '\n') + 1
	e := s
	for e < off && (src[e] == ' ' || src[e] == '\t') {
		e++
	}
	return string(src[s:e])
}

// Scalar is a new scalar: v encoded as JSON, without HTML escaping ("a &&
// b" stays as written).
func Scalar(v any) *Node {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return &Node{Kind: 's', Raw: bytes.TrimRight(buf.Bytes(), "\n")}
}

// Object is a new, empty object.
func Object() *Node { return &Node{Kind: 'o'} }

// Get is the value of key k (the last one, as JSON.parse reads a key given
// twice), or nil.
func (n *Node) Get(k string) *Node {
	if n == nil || n.Kind != 'o' {
		return nil
	}
	for i := len(n.Keys) - 1; i >= 0; i-- {
		if n.Keys[i] == k {
			return n.Vals[i]
		}
	}
	return nil
}

// Set gives key k the value v: in place when the key is there (its last
// occurrence), else as a new last member.
func (n *Node) Set(k string, v *Node) {
	for i := len(n.Keys) - 1; i >= 0; i-- {
		if n.Keys[i] == k {
			n.Vals[i] = v
			return
		}
	}
	n.Keys = append(n.Keys, k)
	n.Vals = append(n.Vals, v)
}

// Del removes key k (every occurrence).
func (n *Node) Del(k string) {
	for i := 0; i < len(n.Keys); i++ {
		if n.Keys[i] == k {
			n.Keys = append(n.Keys[:i], n.Keys[i+1:]...)
			n.Vals = append(n.Vals[:i], n.Vals[i+1:]...)
			i--
		}
	}
}

// Str is a string scalar's value ("" for anything else).
func (n *Node) Str() string {
	if n == nil || n.Kind != 's' {
		return ""
	}
	var s string
	_ = json.Unmarshal(n.Raw, &s)
	return s
}

// Encode writes the document. A parsed one comes back byte for byte except
// where it changed: a new entry goes after the last one with the layout of
// its neighbours (one per line at their indentation, or inline), a removed
// one takes its own whitespace and comma with it. A document built in code
// is written with two-space indentation, as Claude Code writes its own.
func (n *Node) Encode() []byte {
	var b bytes.Buffer
	if n.doc != nil {
		src := n.doc.src
		b.Write(src[:n.start])
		n.write(&b, lineIndent(src, n.start), false, n.doc.style)
		b.Write(src[n.end:])
		return b.Bytes()
	}
	n.write(&b, "", false, defaultStyle)
	b.WriteByte('\n')
	return b.Bytes()
}

// changed reports whether a parsed value differs from its source bytes.
func (n *Node) changed() bool {
	if n.doc == nil {
		return true
	}
	switch n.Kind {
	case 's':
		return !bytes.Equal(n.Raw, n.doc.src[n.start:n.end])
	case 'o':
		if len(n.Keys) != len(n.orig) {
			return true
		}
		for i, e := range n.orig {
			if n.Keys[i] != e.key || n.Vals[i] != e.val || e.val.changed() {
				return true
			}
		}
	case 'a':
		if len(n.Items) != len(n.orig) {
			return true
		}
		for i, e := range n.orig {
			if n.Items[i] != e.val || e.val.changed() {
				return true
			}
		}
	}
	return false
}

// write writes the value: its source bytes when unchanged, else spliced
// into its source layout, else (built in code) laid out at indent, on one
// line when inline.
func (n *Node) write(b *bytes.Buffer, indent string, inline bool, st style) {
	switch {
	case !n.changed():
		b.Write(n.doc.src[n.start:n.end])
	case n.Kind == 's':
		b.Write(n.Raw)
	case n.doc != nil:
		n.splice(b, st)
	default:
		n.layout(b, indent, inline, st)
	}
}

// layout writes a value built in code.
func (n *Node) layout(b *bytes.Buffer, indent string, inline bool, st style) {
	open, closing, count := byte('['), byte(']'), len(n.Items)
	if n.Kind == 'o' {
		open, closing, count = '{', '}', len(n.Keys)
	}
	b.WriteByte(open)
	if count == 0 {
		b.WriteByte(closing)
		return
	}
	inner := indent + st.unit
	for i := 0; i < count; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		if inline {
			if i > 0 {
				b.WriteString(st.comma)
			}
		} else {
			b.WriteString(st.nl + inner)
		}
		v := n.itemAt(i)
		if n.Kind == 'o' {
			b.Write(Scalar(n.Keys[i]).Raw)
			b.WriteString(st.colon)
			v = n.Vals[i]
		}
		v.write(b, inner, inline, st)
	}
	if !inline {
		b.WriteString(st.nl + indent)
	}
	b.WriteByte(closing)
}

func (n *Node) itemAt(i int) *Node {
	if n.Kind == 'a' {
		return n.Items[i]
	}
	return n.Vals[i]
}

// splice writes a parsed container whose entries changed: each entry that
// was there keeps its whitespace, key and separator bytes (and its value is
// written the same way, recursively); a new one follows the layout of the
// last original entry.
func (n *Node) splice(b *bytes.Buffer, st style) {
	src := n.doc.src
	count := len(n.Items)
	if n.Kind == 'o' {
		count = len(n.Keys)
	}
	b.WriteByte(src[n.start])
	if count == 0 {
		if len(n.orig) == 0 {
			b.Write(src[n.start+1 : n.close]) // "{ }" stays "{ }"
		}
		b.WriteByte(src[n.close])
		return
	}
	used := make([]bool, len(n.orig))
	pre, indent, inline := n.newEntryLayout(st)
	for j := 0; j < count; j++ {
		if j > 0 {
			b.WriteByte(',')
		}
		v, key := n.itemAt(j), ""
		if n.Kind == 'o' {
			key = n.Keys[j]
		}
		i := n.match(key, v, used)
		if i < 0 {
			b.WriteString(pre)
			if n.Kind == 'o' {
				b.Write(Scalar(key).Raw)
				b.WriteString(st.colon)
			}
			v.write(b, indent, inline, st)
			continue
		}
		e := n.orig[i]
		used[i] = true
		b.Write(src[e.pre:e.val.start]) // its whitespace, and its key and colon
		v.write(b, entryIndent(src, e), inline, st)
		if j < count-1 && e.comma >= 0 {
			b.Write(src[e.val.end:e.comma]) // any space before its comma
		}
	}
	if len(n.orig) > 0 {
		b.Write(src[n.orig[len(n.orig)-1].val.end:n.close])
	} else if !inline {
		b.WriteString(st.nl + lineIndent(src, n.start))
	}
	b.WriteByte(src[n.close])
}

// match finds the original entry that the current one is: the same value
// (or, in an object, the same key whose value was replaced), not yet used.
func (n *Node) match(key string, v *Node, used []bool) int {
	for i, e := range n.orig {
		if !used[i] && e.val == v && e.key == key {
			return i
		}
	}
	if n.Kind == 'o' {
		for i, e := range n.orig {
			if !used[i] && e.key == key && v.doc == nil {
				return i
			}
		}
	}
	return -1
}

// newEntryLayout is how a new entry of a parsed container is laid out:
// the whitespace before it, the indentation of what it holds, and whether
// it stays on one line. It follows the last original entry; in a container
// that was empty, one entry per line, one level in.
func (n *Node) newEntryLayout(st style) (pre, indent string, inline bool) {
	src := n.doc.src
	if len(n.orig) == 0 {
		indent = lineIndent(src, n.start) + st.unit
		return st.nl + indent, indent, false
	}
	last := n.orig[len(n.orig)-1]
	ws := string(src[last.pre:last.at])
	if !strings.Contains(ws, "\n") {
		if len(n.orig) == 1 && ws == "" {
			ws = st.comma
		}
		return ws, "", true
	}
	return ws, entryIndent(src, last), false
}

// entryIndent is the indentation of the line an entry starts on.
func entryIndent(src []byte, e entry) string { return lineIndent(src, e.at) }

// SameJSON reports whether two documents hold the same JSON value
// (order-insensitive for object keys, as JSON itself is).
func SameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}
