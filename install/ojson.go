package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// node is a JSON value that keeps object key order, so a settings file we
// merge into keeps the user's layout: only what cully adds or removes moves.
type Node struct {
	Kind  byte // 'o' object, 'a' array, 's' scalar (raw JSON)
	Keys  []string
	Vals  []*Node
	Items []*Node
	Raw   json.RawMessage
}

func ParseNode(b []byte) (*Node, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	n, err := decodeNode(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("trailing data after the JSON value")
	}
	return n, nil
}

func decodeNode(dec *json.Decoder) (*Node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := &Node{Kind: 'o'}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := decodeNode(dec)
				if err != nil {
					return nil, err
				}
				n.Set(k, v)
			}
			_, err := dec.Token()
			return n, err
		case '[':
			n := &Node{Kind: 'a'}
			for dec.More() {
				v, err := decodeNode(dec)
				if err != nil {
					return nil, err
				}
				n.Items = append(n.Items, v)
			}
			_, err := dec.Token()
			return n, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return Scalar(t), nil // no HTML escaping: "a && b" stays as the user wrote it
	}
}

func Scalar(v any) *Node {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return &Node{Kind: 's', Raw: bytes.TrimRight(buf.Bytes(), "\n")}
}

func Object() *Node { return &Node{Kind: 'o'} }

func (n *Node) Get(k string) *Node {
	if n == nil || n.Kind != 'o' {
		return nil
	}
	for i, key := range n.Keys {
		if key == k {
			return n.Vals[i]
		}
	}
	return nil
}

func (n *Node) Set(k string, v *Node) {
	for i, key := range n.Keys {
		if key == k {
			n.Vals[i] = v
			return
		}
	}
	n.Keys = append(n.Keys, k)
	n.Vals = append(n.Vals, v)
}

func (n *Node) Del(k string) {
	for i, key := range n.Keys {
		if key == k {
			n.Keys = append(n.Keys[:i], n.Keys[i+1:]...)
			n.Vals = append(n.Vals[:i], n.Vals[i+1:]...)
			return
		}
	}
}

func (n *Node) Str() string {
	if n == nil || n.Kind != 's' {
		return ""
	}
	var s string
	_ = json.Unmarshal(n.Raw, &s)
	return s
}

// encode writes the value with two-space indentation, as Claude Code writes
// its own settings.
func (n *Node) Encode() []byte {
	var b bytes.Buffer
	n.write(&b, "")
	b.WriteByte('\n')
	return b.Bytes()
}

func (n *Node) write(b *bytes.Buffer, indent string) {
	switch n.Kind {
	case 'o':
		if len(n.Keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		for i, k := range n.Keys {
			b.WriteString(indent + "  ")
			b.Write(Scalar(k).Raw)
			b.WriteString(": ")
			n.Vals[i].write(b, indent+"  ")
			if i < len(n.Keys)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "}")
	case 'a':
		if len(n.Items) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for i, it := range n.Items {
			b.WriteString(indent + "  ")
			it.write(b, indent+"  ")
			if i < len(n.Items)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "]")
	default:
		b.Write(n.Raw)
	}
}

// sameJSON reports whether two documents hold the same JSON value
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
