package store

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// ErrorsAfter counts the records after an offset and names the last;
// a line still being written waits for its newline; a log rotated (now
// shorter than the offset) is read from its start; a negative offset
// starts from the end.
func TestErrorsAfter(t *testing.T) {
	h := Home{Dir: t.TempDir(), LockWait: testLockWait}
	if got, err := h.ErrorsAfter(0); err != nil || got.N != 0 || got.Next != 0 {
		t.Fatalf("no log: %+v %v", got, err)
	}
	h.LogError("hook", errors.New("decode payload: invalid JSON"), nil)
	start, _ := h.ErrorsAfter(-1)
	h.LogError("record", errors.New("lock sessions/s.state: timeout\nmore"), map[string]any{"session": "s"})
	h.LogError("hook", errors.New("stdin stayed silent"), nil)
	got, err := h.ErrorsAfter(start.Next)
	if err != nil || got.N != 2 || got.Last != "hook: stdin stayed silent" || got.LastAt.IsZero() {
		t.Fatalf("after the first: %+v %v", got, err)
	}
	if again, _ := h.ErrorsAfter(got.Next); again.N != 0 || again.Next != got.Next {
		t.Errorf("nothing new: %+v", again)
	}
	// Half a record: not counted until it ends.
	f, _ := os.OpenFile(h.ErrorsLog(), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"op":"hook","error":"half`)
	if half, _ := h.ErrorsAfter(got.Next); half.N != 0 || half.Next != got.Next {
		t.Errorf("a torn line counted: %+v", half)
	}
	f.WriteString("\"}\n")
	f.Close()
	if whole, _ := h.ErrorsAfter(got.Next); whole.N != 1 || whole.Last != "hook: half" {
		t.Errorf("the line once whole: %+v", whole)
	}
	// Rotated: the new log is read from its start.
	os.Rename(h.ErrorsLog(), h.ErrorsLog()+".1")
	h.LogError("hook", errors.New("after rotation"), nil)
	if rot, _ := h.ErrorsAfter(got.Next + 1000); rot.N != 1 || !strings.Contains(rot.Last, "after rotation") {
		t.Errorf("after rotation: %+v", rot)
	}
	// Not JSON: counted, and said so.
	os.WriteFile(h.ErrorsLog(), []byte("garbage\n"), 0o600)
	if bad, _ := h.ErrorsAfter(0); bad.N != 1 || bad.Last != "a record that is not JSON" {
		t.Errorf("garbage: %+v", bad)
	}
}
