package store

import (
	"fmt"
	"os"
	"testing"

	"cully/engine"
)

// A cursor survives rotation: each record is handed on exactly once,
// whether the reader caught up before the rotation or after it.
func TestCursorAcrossRotation(t *testing.T) {
	h := Home{Dir: t.TempDir()}
	if err := h.Ensure(); err != nil {
		t.Fatal(err)
	}
	n := 0
	write := func(k int) {
		for i := 0; i < k; i++ {
			ev := &engine.Event{V: engine.SchemaVersion, Agent: "claude", Session: "s", Kind: engine.KindPreTool, ToolUseID: fmt.Sprint(n)}
			n++
			if err := h.Append(AppendEvent(nil, ev)); err != nil {
				t.Fatal(err)
			}
		}
	}
	var seen []string
	read := func(c Cursor) Cursor {
		c, _, err := h.ReadSince(c, func(ev *engine.Event) error {
			seen = append(seen, ev.ToolUseID)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	write(3)
	c := read(Cursor{})
	write(2)
	if err := h.rotate(); err != nil { // two unread records go into journal-000001
		t.Fatal(err)
	}
	write(2)
	c = read(c)
	if err := h.SaveCursor("export", c); err != nil {
		t.Fatal(err)
	}
	write(1)
	if err := h.rotate(); err != nil {
		t.Fatal(err)
	}
	if err := h.rotate(); err == nil { // nothing to rotate: no live journal now
		t.Fatal("rotated a journal that is not there")
	}
	write(1)
	c2, ok, err := h.LoadCursor("export")
	if err != nil || !ok || c2 != c {
		t.Fatalf("cursor read back %+v %v %v, saved %+v", c2, ok, err, c)
	}
	c = read(c2)
	c = read(c) // nothing new
	if fmt.Sprint(seen) != "[0 1 2 3 4 5 6 7 8]" {
		t.Fatalf("records seen %v, want each of 0-8 once", seen)
	}
	// A replaced live journal (shorter than the cursor's offset) is read
	// from its start.
	if err := os.Remove(h.Journal()); err != nil {
		t.Fatal(err)
	}
	c.Seq = 99 // no rotated file above it
	write(1)
	seen = nil
	read(c)
	if fmt.Sprint(seen) != "[9]" {
		t.Fatalf("after the journal was replaced: %v", seen)
	}
	if end, err := h.EndCursor(); err != nil || end.Seq != 2 {
		t.Fatalf("end cursor %+v %v", end, err)
	}
	// An unreadable cursor is an error, not a silent restart.
	os.WriteFile(h.cursorPath("bad"), []byte("{not json"), 0o600)
	if _, _, err := h.LoadCursor("bad"); err == nil {
		t.Fatal("a corrupt cursor loaded")
	}
}
