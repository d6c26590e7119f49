package tailer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"cully/engine"
	"cully/store"
)

func line(i int) string {
	ev := engine.Event{V: 1, Time: time.Unix(int64(i), 0).UTC(), Session: "s", Kind: engine.KindOther, Hook: fmt.Sprint("n", i)}
	return string(store.AppendEvent(nil, &ev)) + "\n"
}

func next(t *testing.T, ch <-chan Batch) Batch {
	t.Helper()
	select {
	case b, ok := <-ch:
		if !ok {
			t.Fatal("tailer ended")
		}
		return b
	case <-time.After(5 * time.Second):
		t.Fatal("no batch within 5s")
	}
	return Batch{}
}

func hooks(b Batch) []string {
	var out []string
	for _, e := range b.Events {
		out = append(out, e.Hook)
	}
	return out
}

func TestTailerFollowsAppendsTornLinesRotationAndTruncation(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	path := filepath.Join(dir, "journal.jsonl")
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan Batch, 16)
	done := make(chan error, 1)
	go func() { done <- New(path, 0).Run(ctx, ch) }()
	time.Sleep(100 * time.Millisecond) // the file does not exist yet

	appendTo := func(s string) {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(s)
		f.Close()
	}
	appendTo(line(1) + line(2))
	if got := hooks(next(t, ch)); fmt.Sprint(got) != "[n1 n2]" {
		t.Fatalf("created file: %v", got)
	}
	// Half a line is held back until its newline arrives.
	l3 := line(3)
	appendTo(l3[:10])
	time.Sleep(150 * time.Millisecond)
	appendTo(l3[10:] + "garbage\n")
	b := next(t, ch)
	for len(b.Events) == 0 {
		b = next(t, ch)
	}
	if fmt.Sprint(hooks(b)) != "[n3]" || b.Corrupt != 1 {
		t.Fatalf("torn then completed line: %v corrupt %d", hooks(b), b.Corrupt)
	}
	// Rotation: the old file is renamed away, a new one appears.
	appendTo(line(4))
	os.Rename(path, filepath.Join(dir, "journal-000001.jsonl"))
	appendTo(line(5))
	var got []string
	for len(got) < 2 {
		got = append(got, hooks(next(t, ch))...)
	}
	if fmt.Sprint(got) != "[n4 n5]" {
		t.Fatalf("across rotation: %v", got)
	}
	// Truncation in place restarts from the top.
	os.WriteFile(path, []byte(line(6)), 0o600)
	got = nil
	for len(got) < 1 {
		got = append(got, hooks(next(t, ch))...)
	}
	if fmt.Sprint(got) != "[n6]" {
		t.Fatalf("after truncation: %v", got)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("tailer did not end with its context")
	}
}

// The tailer sees records written by the real append path (locks, torn-line
// repair) and starts where it is told.
func TestTailerStartsAtOffset(t *testing.T) {
	h := store.Home{Dir: t.TempDir()}
	h.Ensure()
	h.Append([]byte(line(1)), []byte(line(2)))
	fi, _ := os.Stat(h.Journal())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := make(chan Batch, 4)
	go New(h.Journal(), fi.Size()).Run(ctx, ch)
	time.Sleep(50 * time.Millisecond)
	h.Append([]byte(line(3)))
	if got := hooks(next(t, ch)); fmt.Sprint(got) != "[n3]" {
		t.Fatalf("got %v", got)
	}
}

// A record in the error log beside the journal wakes the tailer too: the
// batch says so and carries no records, so the panel reads the log at once
// (a hook that failed to decode its payload writes no journal line).
func TestTailerSaysWhenTheErrorLogIsWritten(t *testing.T) {
	h := store.Home{Dir: t.TempDir()}
	h.Ensure()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := make(chan Batch, 4)
	go New(h.Journal(), 0).Run(ctx, ch)
	// The watch may not be up yet: an error record every 100 ms until one
	// is seen.
	var b Batch
	for deadline := time.Now().Add(5 * time.Second); !b.Errors; {
		if time.Now().After(deadline) {
			t.Fatal("no batch said the error log was written")
		}
		h.LogError("hook", fmt.Errorf("decode payload: invalid JSON"), nil)
		select {
		case b = <-ch:
			if len(b.Events) != 0 {
				t.Fatalf("after an error record: %+v", b)
			}
		case <-time.After(100 * time.Millisecond):
		}
	}
	for len(ch) > 0 || func() bool { time.Sleep(2 * Debounce); return len(ch) > 0 }() {
		<-ch // batches of the records written before the first was seen
	}
	h.Append([]byte(line(1)))
	if b := next(t, ch); b.Errors || fmt.Sprint(hooks(b)) != "[n1]" {
		t.Fatalf("a journal record alone: %+v", b)
	}
}
