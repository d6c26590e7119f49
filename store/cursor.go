package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"cully/engine"
)

// Cursor is a reader's place in the journal that survives rotation: Seq is
// the sequence number of the newest rotated file when the place was taken
// (0: none yet), Offset the byte offset in the live journal then, just past
// a complete line. When the live journal is rotated later, it becomes the
// first rotated file numbered above Seq, and the reader goes on in it from
// Offset.
type Cursor struct {
	Seq    int   `json:"seq"`
	Offset int64 `json:"offset"`
	// Head marks the live journal the offset is in (a hash of its first
	// bytes), so a journal deleted and written anew is read from its start
	// even when it has grown past the offset.
	Head string `json:"head,omitempty"`
}

// EndCursor is the place after every record written so far.
func (h Home) EndCursor() (Cursor, error) {
	rot, err := h.rotated()
	if err != nil {
		return Cursor{}, err
	}
	c := Cursor{}
	if len(rot) > 0 {
		c.Seq = rotatedSeq(rot[len(rot)-1])
	}
	c.Offset, err = h.JournalSize()
	c.Head = headMark(h.Journal(), c.Offset)
	return c, err
}

// headMark hashes the first bytes of a journal file, at most 256 and at
// most upto ("" when it cannot be read): its first record, which carries
// its time.
func headMark(path string, upto int64) string {
	f, err := openFile(path, os.O_RDONLY, 0)
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, min(256, upto))
	n, _ := f.ReadAt(buf, 0)
	if n == 0 {
		return ""
	}
	x := fnv.New64a()
	x.Write(buf[:n])
	return strconv.FormatUint(x.Sum64(), 16)
}

// ReadSince hands fn every record after c, oldest first, and returns the
// place after the last complete line read. A live journal shorter than the
// cursor's offset, with no rotation since, was replaced: it is read from
// its start.
func (h Home) ReadSince(c Cursor, fn func(ev *engine.Event) error) (Cursor, ReadStats, error) {
	var st ReadStats
	if err := h.Check(); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return c, st, nil
		}
		return c, st, err
	}
	rot, err := h.rotated()
	if err != nil {
		return c, st, err
	}
	moved := false // the live journal was rotated since the cursor was taken
	for _, p := range rot {
		seq := rotatedSeq(p)
		if seq <= c.Seq {
			continue
		}
		off := int64(0)
		if !moved { // the file the cursor was in, when it was the live one
			off = c.Offset
			moved = true
		}
		s, _, err := ReadFile(p, off, fn)
		st.Add(s)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return c, st, err
		}
		c = Cursor{Seq: seq}
	}
	if moved || c.Head != "" && headMark(h.Journal(), c.Offset) != c.Head {
		c.Offset = 0 // the live journal is a new file
	}
	s, next, err := ReadFile(h.Journal(), c.Offset, fn)
	if errors.Is(err, fs.ErrNotExist) {
		return c, st, nil
	}
	st.Add(s)
	if err != nil {
		return c, st, err
	}
	if next == c.Offset && !moved {
		if size, serr := h.JournalSize(); serr == nil && size < c.Offset {
			s, next, err = ReadFile(h.Journal(), 0, fn)
			st.Add(s)
			if err != nil {
				return c, st, err
			}
		}
	}
	c.Offset = next
	c.Head = headMark(h.Journal(), next)
	return c, st, nil
}

// cursorPath is where a named reader keeps its place.
func (h Home) cursorPath(name string) string {
	return filepath.Join(h.Dir, "cursors", SafeName(name)+".json")
}

// LoadCursor returns the named reader's saved place; ok is false when it
// has none yet. An unreadable cursor is an error, never silently reset.
func (h Home) LoadCursor(name string) (c Cursor, ok bool, err error) {
	b, err := os.ReadFile(h.cursorPath(name))
	if errors.Is(err, fs.ErrNotExist) {
		return c, false, nil
	}
	if err != nil {
		return c, false, err
	}
	if err := json.Unmarshal(b, &c); err != nil || c.Seq < 0 || c.Offset < 0 {
		return c, false, fmt.Errorf("cursor %s is not a journal place (move it aside to start over): %v", h.cursorPath(name), err)
	}
	return c, true, nil
}

// SaveCursor keeps the named reader's place, replaced by a rename.
func (h Home) SaveCursor(name string, c Cursor) error {
	p := h.cursorPath(name)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	b, _ := json.Marshal(c)
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}
