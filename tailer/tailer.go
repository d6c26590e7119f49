package tailer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"

	"cully/engine"
	"cully/store"
)

// Debounce gathers a burst of appends (a hook writes one line per call,
// several agents may write at once) into one read and one batch.
const Debounce = 40 * time.Millisecond

// Batch is what the tailer hands on: the records read in one wake-up, and
// the damage seen on the way.
type Batch struct {
	Events  []*engine.Event
	Corrupt int
	Err     error
	// Errors: the state dir's error log (errors.log, beside the journal)
	// was written since the last batch: cully failed at something.
	Errors bool
}

// Tailer follows one journal file.
type Tailer struct {
	path   string
	f      *os.File
	id     os.FileInfo // the open file's identity (os.SameFile), nil when unknown
	offset int64
	mark   []byte // the bytes just before offset, to notice a rewrite of the same size
}

// markLen is how much of the already-read file is checked on each wake-up:
// a truncation followed by new writes can leave the size unchanged, but not
// the bytes.
const markLen = 64

// New returns a tailer of path that starts at byte offset start of the
// current file (use the file's size to see only what comes next).
func New(path string, start int64) *Tailer {
	return &Tailer{path: path, offset: start}
}

// Run watches until ctx ends, sending batches on out. It closes out when it
// returns.
func (t *Tailer) Run(ctx context.Context, out chan<- Batch) error {
	defer close(out)
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch journal: %w", err)
	}
	defer w.Close()
	dir := filepath.Dir(t.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("watch journal: %w", err)
	}
	if err := w.Add(dir); err != nil {
		return fmt.Errorf("watch journal: %w", err)
	}
	defer t.close()
	send := func(b Batch) bool {
		if len(b.Events) == 0 && b.Corrupt == 0 && b.Err == nil && !b.Errors {
			return true
		}
		select {
		case out <- b:
			return true
		case <-ctx.Done():
			return false
		}
	}
	if !send(t.read()) { // whatever is already past the start offset
		return nil
	}
	var timer *time.Timer
	var fire <-chan time.Time
	var errorsWritten bool
	name := filepath.Base(t.path)
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return errors.New("watch journal: event channel closed")
			}
			switch filepath.Base(ev.Name) {
			case name:
			case store.ErrorsLogName:
				errorsWritten = true
			default:
				continue
			}
			if timer == nil {
				timer = time.NewTimer(Debounce)
				fire = timer.C
			}
		case err, ok := <-w.Errors:
			if !ok {
				return errors.New("watch journal: error channel closed")
			}
			if !send(Batch{Err: err}) {
				return nil
			}
		case <-fire:
			timer, fire = nil, nil
			b := t.read()
			b.Errors, errorsWritten = errorsWritten, false
			if !send(b) {
				return nil
			}
		}
	}
}

func (t *Tailer) close() {
	if t.f != nil {
		t.f.Close()
		t.f = nil
	}
}

// read drains the open file from the offset, follows a rotation or
// truncation, and returns the complete records it found.
func (t *Tailer) read() Batch {
	var b Batch
	for i := 0; i < 3; i++ { // at most: drain old file, switch, read new
		if t.f == nil {
			f, err := os.Open(t.path)
			if err != nil {
				if !errors.Is(err, os.ErrNotExist) {
					b.Err = err
				}
				return b
			}
			t.f, t.id = f, identity(f)
		}
		t.drain(&b)
		fi, err := os.Stat(t.path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return b // rotated away and not recreated yet: wait for Create
		case err != nil:
			b.Err = err
			return b
		case t.id == nil || !os.SameFile(fi, t.id): // rotated: the old file is drained, open the new one
			t.close()
			t.offset = 0
			continue
		case fi.Size() < t.offset || !t.markHolds(): // truncated (or rewritten) in place
			t.offset, t.mark = 0, nil
			continue
		}
		return b
	}
	return b
}

func (t *Tailer) drain(b *Batch) {
	st, next, err := store.ReadOpen(t.f, t.offset, func(ev *engine.Event) error {
		b.Events = append(b.Events, ev)
		return nil
	})
	b.Corrupt += st.Corrupt
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		b.Err = err
	}
	if next == t.offset {
		return // nothing new: keep the mark of what was read before
	}
	t.offset = next
	t.mark = nil
	if n := min(int64(markLen), t.offset); n > 0 {
		buf := make([]byte, n)
		if _, err := t.f.ReadAt(buf, t.offset-n); err == nil {
			t.mark = buf
		}
	}
}

// markHolds reports whether the bytes before the offset are still the ones
// read there.
func (t *Tailer) markHolds() bool {
	if len(t.mark) == 0 || t.f == nil {
		return true
	}
	buf := make([]byte, len(t.mark))
	if _, err := t.f.ReadAt(buf, t.offset-int64(len(buf))); err != nil {
		return false
	}
	return string(buf) == string(t.mark)
}

// identity is what os.SameFile needs to tell the open file from a new one
// at the same path (an inode on Unix, a file index on Windows).
func identity(f *os.File) os.FileInfo {
	fi, err := f.Stat()
	if err != nil {
		return nil
	}
	return fi
}
