package store

import (
	"bytes"
	"testing"

	"cully/engine"
)

// The journal reader never hands on half a line and never panics, whatever
// the file holds: every record it returns is a whole, valid line, and the
// offset it returns is just past a newline.
func FuzzReadJournal(f *testing.F) {
	rec := AppendEvent(nil, &engine.Event{V: 1, Session: "s", Kind: engine.KindPrompt, Hook: "UserPromptSubmit"})
	f.Add(append(append([]byte{}, rec...), '\n'))
	f.Add(append(append(append([]byte{}, rec...), "\n{\"v\":1,\"kind\":"...), rec...))
	f.Add([]byte("\n\n\x00\xff{}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		n := 0
		st, off, err := ReadOpen(bytes.NewReader(b), 0, func(ev *engine.Event) error {
			if ev.Kind == "" || ev.V < 1 {
				t.Fatalf("an invalid record was handed on: %+v", ev)
			}
			n++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if off < 0 || off > int64(len(b)) || off > 0 && b[off-1] != '\n' {
			t.Fatalf("offset %d is not just past a newline (len %d)", off, len(b))
		}
		if st.Lines != n {
			t.Fatalf("counted %d lines, handed on %d", st.Lines, n)
		}
	})
}
