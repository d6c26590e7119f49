package store

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
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

// tornCloser ends a torn last line (a writer that died mid-write) before
// the next record is appended. The ASCII record separator is invalid
// anywhere in JSON, inside a string or out, so whatever byte the write was
// cut at, the closed fragment can never parse as a record: a line is a
// record only if its writer finished it, and every reader agrees which
// lines those are, whenever it reads.
const tornCloser = "\x1e\n"

// Append writes records to the journal, each as one line, under the journal
// lock. A torn last line is closed first (see tornCloser), so it never
// swallows the next record. When the journal would pass the rotation size
// it is renamed to journal-NNNNNN.jsonl first: rotation never drops a line.
// When the lock cannot be had within JournalWait, or older records wait in
// pending/, the records go to pending/ (see pending.go).
func (h Home) Append(recs ...[]byte) error {
	if err := h.ready(); err != nil {
		return err
	}
	wait := h.appendWait()
	lk, err := AcquirePolling(h.JournalLock(), wait)
	if err == nil {
		_, _, err = h.appendLocked(recs)
		lk.Unlock()
	}
	if errors.Is(err, ErrLockTimeout) || errors.Is(err, errPendingAhead) {
		if perr := h.appendPending("", recs); perr != nil {
			return fmt.Errorf("%w (the journal: %w)", perr, err)
		}
		if wait > 0 && errors.Is(err, ErrLockTimeout) {
			h.spellBlocked()
		}
		return nil
	}
	return err
}

// appendLocked appends under the journal lock, after the segments waiting
// in pending/ (see pending.go). It returns the offset in the live journal
// where the first of recs starts, and whether a write was attempted (after
// a failed write part of it may be on disk). With errPendingAhead it wrote
// segments but not recs, which must not pass the segments still waiting.
func (h Home) appendLocked(recs [][]byte) (int64, bool, error) {
	f, err := openFile(h.Journal(), os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return 0, false, fmt.Errorf("open journal: %w", err)
	}
	segs, more := h.takePending(f)
	n := len(tornCloser)
	for _, s := range segs {
		n += len(s.data)
	}
	if !more {
		for _, r := range recs {
			n += len(r) + 1
		}
	}
	max := h.RotateBytes
	if max <= 0 {
		max = DefaultRotateBytes
	}
	if f.size > 0 && f.size+int64(n) > max {
		f.Close()
		if err := h.rotate(); err != nil {
			return 0, false, err
		}
		if f, err = openFile(h.Journal(), os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600); err != nil {
			return 0, false, fmt.Errorf("open journal: %w", err)
		}
	}
	defer f.Close()
	size := f.size
	skip := len(tornCloser)
	if size > 0 {
		var last [1]byte
		if _, err := f.ReadAt(last[:], size-1); err == nil && last[0] != '\n' {
			skip = 0
		}
	}
	at := size + int64(len(tornCloser)-skip)
	if done := h.markFolds(segs, at); done < len(segs) {
		segs, more = segs[:done], true
	}
	if more && len(segs) == 0 {
		return at, false, errPendingAhead
	}
	out := append(make([]byte, 0, n), tornCloser[skip:]...)
	for _, s := range segs {
		out = append(out, s.data...)
	}
	at += int64(len(out) - (len(tornCloser) - skip))
	if !more {
		out = joinLines(out, recs)
	}
	if failAppend != nil {
		return at, true, fmt.Errorf("append journal: %w", failAppend)
	}
	if _, err := f.Write(out); err != nil {
		return at, true, fmt.Errorf("append journal: %w", err)
	}
	if h.Durable {
		if err := f.Sync(); err != nil {
			return at, true, fmt.Errorf("sync journal: %w", err)
		}
	}
	h.doneFolds(segs, more)
	if more {
		return at, true, errPendingAhead
	}
	return at, true, nil
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
	if _, err := os.Lstat(h.Journal()); err == nil {
		files = append(files, h.Journal())
	}
	return files, nil
}

// JournalSize is the live journal's size (0 when there is none yet). It
// refuses a journal that is a symlink, a FIFO or a device, as every reader
// of the store does.
func (h Home) JournalSize() (int64, error) {
	if err := h.Check(); err != nil {
		return 0, err
	}
	f, err := openFile(h.Journal(), os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return f.size, nil
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
// It returns the offset just past the last complete line read. A symlink,
// FIFO or device is refused, never read.
func ReadFile(path string, offset int64, fn func(ev *engine.Event) error) (ReadStats, int64, error) {
	f, err := openFile(path, os.O_RDONLY, 0)
	if err != nil {
		return ReadStats{Files: 1}, offset, err
	}
	defer f.Close()
	return readRecords(f, offset, fn)
}

// ReadOpen is ReadFile on an already open journal file (which may have been
// renamed since it was opened, as a follower of a rotating journal needs).
// An *os.File that is not a regular file (a FIFO, a device) is refused
// before anything is read.
func ReadOpen(f io.ReaderAt, offset int64, fn func(ev *engine.Event) error) (ReadStats, int64, error) {
	if err := checkRegular(f); err != nil {
		return ReadStats{Files: 1}, offset, err
	}
	return readRecords(f, offset, fn)
}

func readRecords(f io.ReaderAt, offset int64, fn func(ev *engine.Event) error) (ReadStats, int64, error) {
	var st ReadStats
	next, err := scanLines(f, offset, &st, func(line []byte, _ int64) error {
		ev, ok := parseRecord(line)
		if !ok {
			st.Corrupt++
			return nil
		}
		st.Lines++
		return fn(ev)
	})
	if errors.Is(err, ErrStop) {
		err = nil
	}
	return st, next, err
}

// parseRecord decodes one journal line; ok is false for anything that is
// not a record of a known version.
func parseRecord(line []byte) (*engine.Event, bool) {
	body := bytes.TrimSpace(line)
	if len(body) == 0 || len(body) > maxLine {
		return nil, false
	}
	var ev engine.Event
	if json.Unmarshal(body, &ev) != nil || ev.V < 1 || ev.V > engine.SchemaVersion || ev.Kind == "" {
		return nil, false
	}
	return &ev, true
}

// scanLines hands fn every complete line from offset on (its bytes, valid
// only during the call, and its offset), skipping blank lines and counting
// overlong ones as corrupt. It returns the offset just past the last
// complete line; an unterminated last line is counted as torn and never
// handed on. st.Files counts this file.
func scanLines(f io.ReaderAt, offset int64, st *ReadStats, fn func(line []byte, at int64) error) (int64, error) {
	st.Files++
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
				return pos, nil
			}
			return pos, fmt.Errorf("read journal: %w", err)
		}
		at := pos
		pos += int64(len(line))
		st.Bytes += int64(len(line))
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if err := fn(line, at); err != nil {
			return pos, err
		}
	}
}

// ReadAll reads every journal file, oldest first.
func (h Home) ReadAll(fn func(ev *engine.Event) error) (ReadStats, error) {
	var st ReadStats
	if err := h.Check(); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return st, nil
		}
		return st, err
	}
	_, _, err := h.scanJournal(nil, false, true, 0, &st, func(line []byte) error {
		ev, ok := parseRecord(line)
		if !ok {
			st.Corrupt++
			return nil
		}
		st.Lines++
		return fn(ev)
	})
	if errors.Is(err, ErrStop) {
		err = nil
	}
	return st, err
}

// ScanTail reads the last window bytes of the live journal (from the first
// line boundary inside the window), for health figures that must stay cheap
// on a journal of any size. It reports whether the whole journal was seen.
func (h Home) ScanTail(window int64, fn func(ev *engine.Event) error) (ReadStats, bool, error) {
	if err := h.Check(); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return ReadStats{}, true, nil
		}
		return ReadStats{}, false, err
	}
	f, err := openFile(h.Journal(), os.O_RDONLY, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return ReadStats{}, true, nil
		}
		return ReadStats{}, false, err
	}
	defer f.Close()
	start := f.size - window
	whole := start <= 0
	if whole {
		start = 0
	} else {
		// Move to the start of the next line.
		r := bufio.NewReader(io.NewSectionReader(f, start, window))
		skipped, _ := r.ReadBytes('\n')
		start += int64(len(skipped))
	}
	st, _, err := readRecords(f, start, fn)
	files, _ := h.rotated()
	return st, whole && len(files) == 0, err
}

// journalPos names one line of the journal: where it starts in its file,
// its length with the newline, and a hash of those bytes. That is enough
// to find the line again after a rotation renamed its file (the live
// journal is tried first, then the rotated files, newest first), and to
// know it is still the same line. A session's state carries the position
// of the last line it is known to be complete up to.
type journalPos struct {
	At  int64
	N   int64
	Sum uint64
}

func lineSum(parts ...[]byte) uint64 {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write(p)
	}
	return h.Sum64()
}

// errTooFar is a catch-up that would read more of the journal than a hook
// should.
var errTooFar = errors.New("too much journal to catch up in a hook; run `cully status --rebuild`")

// errPosLost is a state's journal position that no journal file holds any
// more (the journal was deleted, truncated or rewritten by hand).
var errPosLost = errors.New("the journal no longer holds the state's position")

// in reports whether f holds the line p names.
func (p *journalPos) in(f *sysFile) bool {
	if p.N <= 0 || p.N > maxLine+1 || p.At < 0 || p.At+p.N > f.size {
		return false
	}
	b := make([]byte, p.N)
	if _, err := f.ReadAt(b, p.At); err != nil {
		return false
	}
	return lineSum(b) == p.Sum
}

// scanJournal hands fn every complete line of the journal after the line
// from names (from its very start when from is nil), oldest first, then,
// with pending, the lines of the segments waiting in pending/ (see
// pending.go); it returns the position of the last complete journal line
// it read (from itself when there was none) and how many pending lines it
// handed on. With locked it holds the journal lock throughout, when it can
// have it within JournalWait, so nothing is appended meanwhile and a torn
// last line is a dead writer's; without the lock it reads the files as
// they are (the lock is a flock any process of the user can hold, and a
// reader never waits on it longer than a writer does). The files it reads
// are one consistent set even if the journal rotates meanwhile: the
// rotated files are listed again once the live journal is open, and the
// set is taken again if a rotation came between. Rotated files never
// change, and the live journal it holds open is the one that gets renamed.
// With limit above zero it reads nothing, and returns errTooFar, when more
// than limit bytes follow from.
func (h Home) scanJournal(from *journalPos, locked, pending bool, limit int64, st *ReadStats, fn func(line []byte) error) (*journalPos, int, error) {
	held := false
	if locked {
		lk, err := AcquirePolling(h.JournalLock(), h.journalWait())
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return from, 0, nil // no state dir yet: no journal
		case err == nil:
			held = true
			defer lk.Unlock()
		case !errors.Is(err, ErrLockTimeout):
			return from, 0, err
		}
	}
	var (
		rotated []string
		live    *sysFile
		err     error
	)
	for try := 0; ; try++ {
		if rotated, err = h.rotated(); err != nil {
			return from, 0, err
		}
		live, err = openFile(h.Journal(), os.O_RDONLY, 0)
		if errors.Is(err, fs.ErrNotExist) {
			live, err = nil, nil
		}
		if err != nil {
			return from, 0, err
		}
		if held || try == 8 {
			break
		}
		if again, err := h.rotated(); err == nil && slices.Equal(again, rotated) {
			break
		}
		live.Close()
	}
	defer live.Close()

	// Find where to start: the file holding from, just past it.
	first, offset := 0, int64(0)
	if from != nil {
		first = -1
		if live != nil && from.in(live) {
			first, offset = len(rotated), from.At+from.N
		}
		for i := len(rotated) - 1; first < 0 && i >= 0; i-- {
			if f, err := openFile(rotated[i], os.O_RDONLY, 0); err == nil {
				if from.in(f) {
					first, offset = i, from.At+from.N
				}
				f.Close()
			}
		}
		if first < 0 {
			return from, 0, errPosLost
		}
	}
	if limit > 0 {
		var rest int64
		for i := first; i < len(rotated); i++ {
			if fi, err := os.Lstat(rotated[i]); err == nil {
				rest += fi.Size()
			}
		}
		if live != nil {
			rest += live.size
		}
		if rest-offset > limit {
			return from, 0, fmt.Errorf("%w: %d bytes follow the state's position", errTooFar, rest-offset)
		}
	}
	last := from
	for i := first; i <= len(rotated); i++ {
		f := live
		if i < len(rotated) {
			if f, err = openFile(rotated[i], os.O_RDONLY, 0); errors.Is(err, fs.ErrNotExist) {
				continue // deleted since it was listed
			} else if err != nil {
				return last, 0, err
			}
		}
		if f == nil {
			break
		}
		lineAt, lineN := int64(-1), int64(0)
		_, err := scanLines(f, offset, st, func(line []byte, at int64) error {
			lineAt, lineN = at, int64(len(line))
			return fn(line)
		})
		if lineAt >= 0 {
			b := make([]byte, lineN)
			if _, rerr := f.ReadAt(b, lineAt); rerr == nil {
				last = &journalPos{At: lineAt, N: lineN, Sum: lineSum(b)}
			}
		}
		if f != live {
			f.Close()
		}
		if err != nil {
			return last, 0, err
		}
		offset = 0
	}
	if !pending {
		return last, 0, nil
	}
	n, err := h.readPending(st, fn)
	return last, n, err
}

// journalBytes is the total size of the journal files.
func (h Home) journalBytes() int64 {
	var total int64
	files, _ := h.JournalFiles()
	for _, f := range files {
		if fi, err := os.Lstat(f); err == nil {
			total += fi.Size()
		}
	}
	return total
}
