package store

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"cully/engine"
)

// DefaultRotateBytes is the journal size at which it is rotated: large
// enough that rotation is rare, small enough that a rebuild of one file is
// quick.
const DefaultRotateBytes = 64 << 20

// maxLine bounds one journal record. Records hold metadata and short
// previews, so anything longer is damage, not data.
const maxLine = 1 << 20

// Append writes records to the journal, each as one line, under the journal
// lock. A torn last line (a writer that died mid-line) is closed with a
// newline first, so it never swallows the next record. When the journal
// would pass the rotation size it is renamed to journal-NNNNNN.jsonl first:
// rotation never drops a line.
func (h Home) Append(recs ...[]byte) error {
	lk, err := Acquire(h.JournalLock(), h.wait())
	if err != nil {
		return err
	}
	defer lk.Unlock()
	return h.appendLocked(recs)
}

func (h Home) appendLocked(recs [][]byte) error {
	var buf bytes.Buffer
	for _, r := range recs {
		buf.Write(bytes.TrimRight(r, "\n"))
		buf.WriteByte('\n')
	}
	f, err := os.OpenFile(h.Journal(), os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open journal: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("stat journal: %w", err)
	}
	size := st.Size()
	max := h.RotateBytes
	if max <= 0 {
		max = DefaultRotateBytes
	}
	if size > 0 && size+int64(buf.Len()) > max {
		f.Close()
		if err := h.rotate(); err != nil {
			return err
		}
		if f, err = os.OpenFile(h.Journal(), os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600); err != nil {
			return fmt.Errorf("open journal: %w", err)
		}
		size = 0
	}
	defer f.Close()
	out := buf.Bytes()
	if size > 0 {
		var last [1]byte
		if _, err := f.ReadAt(last[:], size-1); err == nil && last[0] != '\n' {
			out = append([]byte{'\n'}, out...)
		}
	}
	if _, err := f.Write(out); err != nil {
		return fmt.Errorf("append journal: %w", err)
	}
	return nil
}

// rotate renames the live journal to the next numbered file. Called with the
// journal lock held.
func (h Home) rotate() error {
	files, err := h.rotated()
	if err != nil {
		return err
	}
	next := 1
	if len(files) > 0 {
		next = rotatedSeq(files[len(files)-1]) + 1
	}
	dst := filepath.Join(h.Dir, fmt.Sprintf("journal-%06d.jsonl", next))
	if err := os.Rename(h.Journal(), dst); err != nil {
		return fmt.Errorf("rotate journal: %w", err)
	}
	return nil
}

func rotatedSeq(path string) int {
	base := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(path), "journal-"), ".jsonl")
	n, _ := strconv.Atoi(base)
	return n
}

func (h Home) rotated() ([]string, error) {
	m, err := filepath.Glob(filepath.Join(h.Dir, "journal-*.jsonl"))
	if err != nil {
		return nil, err
	}
	sort.Slice(m, func(i, j int) bool { return rotatedSeq(m[i]) < rotatedSeq(m[j]) })
	return m, nil
}

// JournalFiles lists the journal files oldest first: rotated files, then
// the live journal (if it exists).
func (h Home) JournalFiles() ([]string, error) {
	files, err := h.rotated()
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(h.Journal()); err == nil {
		files = append(files, h.Journal())
	}
	return files, nil
}

// ReadStats describes a journal read.
type ReadStats struct {
	Files   int   `json:"files"`
	Lines   int   `json:"lines"`   // well-formed records
	Corrupt int   `json:"corrupt"` // lines that are not a record of a known version
	Torn    int   `json:"torn"`    // an unterminated last line (a write in progress or a crash)
	Bytes   int64 `json:"bytes"`
}

// Add merges two stats.
func (s *ReadStats) Add(o ReadStats) {
	s.Files += o.Files
	s.Lines += o.Lines
	s.Corrupt += o.Corrupt
	s.Torn += o.Torn
	s.Bytes += o.Bytes
}

// ErrStop ends a read early without an error.
var ErrStop = errors.New("stop reading")

// ReadFile reads records from one journal file starting at byte offset,
// calling fn for each well-formed record. It never hands on half a line: an
// unterminated last line is counted as torn and its offset is not passed.
// It returns the offset just past the last complete line read.
func ReadFile(path string, offset int64, fn func(ev *engine.Event) error) (ReadStats, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return ReadStats{Files: 1}, offset, err
	}
	defer f.Close()
	return ReadOpen(f, offset, fn)
}

// ReadOpen is ReadFile on an already open journal file (which may have been
// renamed since it was opened, as a follower of a rotating journal needs).
func ReadOpen(f io.ReaderAt, offset int64, fn func(ev *engine.Event) error) (ReadStats, int64, error) {
	st := ReadStats{Files: 1}
	r := bufio.NewReaderSize(io.NewSectionReader(f, offset, 1<<62), 256<<10)
	pos := offset
	for {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// An overlong line: skip to its end and count it as corrupt.
			n := int64(len(line))
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = r.ReadSlice('\n')
				n += int64(len(line))
			}
			if err == nil {
				pos += n
				st.Bytes += n
				st.Corrupt++
				continue
			}
		}
		if err != nil {
			if len(line) > 0 {
				st.Torn++
			}
			if errors.Is(err, io.EOF) {
				return st, pos, nil
			}
			return st, pos, fmt.Errorf("read journal: %w", err)
		}
		pos += int64(len(line))
		st.Bytes += int64(len(line))
		body := bytes.TrimSpace(line)
		if len(body) == 0 {
			continue
		}
		var ev engine.Event
		if len(body) > maxLine || json.Unmarshal(body, &ev) != nil || ev.V < 1 || ev.V > engine.SchemaVersion || ev.Kind == "" {
			st.Corrupt++
			continue
		}
		st.Lines++
		if err := fn(&ev); err != nil {
			if errors.Is(err, ErrStop) {
				return st, pos, nil
			}
			return st, pos, err
		}
	}
}

// ReadAll reads every journal file, oldest first.
func (h Home) ReadAll(fn func(ev *engine.Event) error) (ReadStats, error) {
	var total ReadStats
	files, err := h.JournalFiles()
	if err != nil {
		return total, err
	}
	for _, p := range files {
		st, _, err := ReadFile(p, 0, fn)
		total.Add(st)
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// ScanTail reads the last window bytes of the live journal (from the first
// line boundary inside the window), for health figures that must stay cheap
// on a journal of any size. It reports whether the whole journal was seen.
func (h Home) ScanTail(window int64, fn func(ev *engine.Event) error) (ReadStats, bool, error) {
	p := h.Journal()
	fi, err := os.Stat(p)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return ReadStats{}, true, nil
		}
		return ReadStats{}, false, err
	}
	start := fi.Size() - window
	whole := start <= 0
	if whole {
		start = 0
	} else {
		// Move to the start of the next line.
		f, err := os.Open(p)
		if err != nil {
			return ReadStats{}, false, err
		}
		r := bufio.NewReader(io.NewSectionReader(f, start, window))
		skipped, _ := r.ReadBytes('\n')
		f.Close()
		start += int64(len(skipped))
	}
	st, _, err := ReadFile(p, start, fn)
	files, _ := h.rotated()
	return st, whole && len(files) == 0, err
}
