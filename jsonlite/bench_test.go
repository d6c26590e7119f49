package jsonlite

import (
	"bytes"
	"os"
	"testing"
)

// The largest captured Claude Code payload (a PostToolBatch carrying a
// Read's 13 KB answer), and a Read payload grown to the size of a large
// real one: what the hook's decoding costs per call.
const (
	largestCapture = "../hookbridge/claude/testdata/capture-sequence/069-PostToolBatch.json"
	readCapture    = "../hookbridge/claude/testdata/capture-sequence/065-PostToolUse-Read.json"
)

func readFile(b *testing.B, path string) []byte {
	b.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return raw
}

// bigRead repeats the Read payload's file content until the payload is
// about 230 KB.
func bigRead(b *testing.B) []byte {
	raw := readFile(b, readCapture)
	const key = `"content": "`
	i := bytes.Index(raw, []byte(key))
	if i < 0 {
		b.Fatal("no content in " + readCapture)
	}
	i += len(key)
	j := i + bytes.IndexByte(raw[i:], '"')
	line := raw[i:j]
	var out []byte
	out = append(out, raw[:i]...)
	for len(out) < 230_000 {
		out = append(out, line...)
	}
	return append(out, raw[j:]...)
}

func BenchmarkParseObject(b *testing.B) {
	for _, c := range []struct {
		name string
		raw  []byte
	}{{"capture-069", readFile(b, largestCapture)}, {"read-230KB", bigRead(b)}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.raw)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ParseObject(c.raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkUnquote decodes the largest string of the 230 KB payload: the
// file content, full of \n escapes.
func BenchmarkUnquote(b *testing.B) {
	obj, err := ParseObject(bigRead(b))
	if err != nil {
		b.Fatal(err)
	}
	raw := obj.Sub("tool_response").Sub("file")["content"]
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := Unquote(raw); !ok {
			b.Fatal("not a string")
		}
	}
}
