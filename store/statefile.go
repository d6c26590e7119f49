package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"cully/engine"
)

// The session state file, sessions/<id>.state: one file is the session's
// lock, its in-flight mark and its state, written in place.
//
//	[0, 8)     magic "cully-s1"
//	[8]        the mark: '!' while a record is in flight, '.' otherwise
//	[16, 48)   header slot 0: sequence number, offset and length of a
//	           state body, and a check of those three
//	[64, 96)   header slot 1, the same
//	[128, …)   state bodies: the JSON AppendState writes, with the journal
//	           position it is complete up to (appendStateFile)
//
// A save writes the new body where it overlaps nothing the newest header
// points at (at the start of the body area when it fits before the
// current body, else right after it), then the header slot the newest
// header is not in, with the next sequence number. Readers take the
// newest header whose check holds and whose body decodes (a valid JSON
// state of the right version and session), else the other one. So a
// kill at any point leaves the newest header and its body as they were,
// or the new ones whole; a power cut that kept the new header but not
// its body falls back to the previous state, which the mark (set before
// the journal append) then catches up.
//
// Why one file: the layout it replaces (a lock file holding the mark, the
// state file, and a spare written and swapped in by renameat2's exchange)
// opened three files and renamed one per hook call. Measured with
// bench/ratio (1,500 interleaved runs, PostToolUse payload, both binaries
// copied fresh): 1.226 ms against 1.201 ms for this layout, 0.025 ms of the
// 0.22 ms the hook then took over the minimal hook (a hook writing one file
// in place with no mark and no second header, the bound of what a layout
// could save, measured 1.174 ms).
const (
	stateMagic  = "cully-s1"
	stateMarkAt = 8
	stateBodyAt = 128
	stateHdrLen = 32
	// stateShrinkAt: a file this much larger than its newest body is
	// truncated when the body is written at the start again (the bodies
	// move up when a state grows; a truncate costs ext4 a journal
	// transaction, so it is rare on purpose).
	stateShrinkAt = 1 << 20
)

var stateSlotAt = [2]int64{16, 64}

// stateHdr is one header slot as read.
type stateHdr struct {
	seq, off, n uint64
	ok          bool
}

// stateFile is a session's state file, locked: exclusively by a writer,
// shared by a reader.
type stateFile struct {
	f      *sysFile
	head   [stateBodyAt]byte // the file's prefix as read
	hdr    [2]stateHdr
	newest int  // slot of the newest valid header; -1 when none
	marked bool // the mark was set when the file was opened
	// blank: no valid prefix on disk (an empty file, or an unreadable one
	// the caller set aside): the next write lays a fresh prefix first.
	blank bool
	// bad says why the file is unreadable (nil when it is not).
	bad  error
	size int64
	// fellBack: the newest body did not decode and the one before it was
	// read; the next save writes both slots, so the file has two good
	// states again.
	fellBack bool
}

// openState opens and locks a session's state file and reads its prefix.
// A writer creates it if missing; a reader gets an error matching
// fs.ErrNotExist instead.
func openState(path string, wait time.Duration, write bool) (*stateFile, error) {
	s := &stateFile{}
	if err := s.open(path, wait, write); err != nil {
		return nil, err
	}
	return s, nil
}

// open is openState into s (the hook's stateFile lives on its stack: one
// heap object fewer on its path).
func (s *stateFile) open(path string, wait time.Duration, write bool) error {
	mode := os.O_RDONLY
	if write {
		mode = os.O_RDWR | os.O_CREATE
	}
	l, err := lockFile(path, wait, !write, mode)
	if err != nil {
		return err
	}
	*s = stateFile{f: l.f, newest: -1}
	if err := s.f.stat(); err != nil {
		s.Close()
		return fmt.Errorf("lock: %w", err)
	}
	s.size = s.f.size
	if err := s.read(); err != nil {
		s.Close()
		return err
	}
	return nil
}

// openForRead opens a session's state file to read it: under its shared
// lock when that comes within wait, else without it (unlocked reports
// which). A reader never waits on a lock any process can hold longer
// than a writer does.
func openForRead(path string, wait time.Duration) (s *stateFile, unlocked bool, err error) {
	s, err = openState(path, wait, false)
	if !errors.Is(err, ErrLockTimeout) {
		return s, false, err
	}
	s = &stateFile{}
	if err := s.openUnlocked(path); err != nil {
		return nil, true, err
	}
	return s, true, nil
}

// openUnlocked opens a session's state file to read it without its lock
// (see Home.updateUnlocked): the file must exist. What it reads may be
// mid-save; the headers' checks and the bodies' decoding sort that out
// as they do after a kill.
func (s *stateFile) openUnlocked(path string) error {
	f, err := openRaw(path, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	*s = stateFile{f: f, newest: -1}
	if err := s.f.stat(); err != nil {
		s.Close()
		return err
	}
	s.size = s.f.size
	if err := s.read(); err != nil {
		s.Close()
		return err
	}
	return nil
}

func (s *stateFile) read() error {
	if s.size == 0 {
		s.blank = true
		return nil
	}
	if s.size > maxStateFile {
		s.bad = fmt.Errorf("%s: %d bytes is over the %d-byte limit", s.f.path, s.size, maxStateFile)
		return nil
	}
	// The prefix, then (body) the one body wanted: reading the whole file
	// at once cost the hook a fresh heap span for the buffer, more than
	// the second pread.
	m, err := s.f.ReadAt(s.head[:min(s.size, stateBodyAt)], 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	if m < stateBodyAt || string(s.head[:len(stateMagic)]) != stateMagic {
		s.bad = fmt.Errorf("%s is not a cully state file (or was cut short)", s.f.path)
		return nil
	}
	s.marked = s.head[stateMarkAt] == '!'
	for i, at := range stateSlotAt {
		h := s.head[at : at+stateHdrLen]
		hd := stateHdr{seq: binary.LittleEndian.Uint64(h), off: binary.LittleEndian.Uint64(h[8:]), n: binary.LittleEndian.Uint64(h[16:])}
		hd.ok = hd.seq > 0 && binary.LittleEndian.Uint64(h[24:]) == hdrCheck(h[:24]) &&
			hd.off >= stateBodyAt && hd.n > 0 && hd.off+hd.n <= uint64(s.size)
		s.hdr[i] = hd
		if hd.ok && (s.newest < 0 || hd.seq > s.hdr[s.newest].seq) {
			s.newest = i
		}
	}
	return nil
}

// hdrCheck is FNV-1a over a header's fields: it tells a header written
// whole from zeros, a torn sector or stray bytes.
func hdrCheck(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

// bodies returns the slots with a valid header, newest first (the second
// is -1 when only one is valid; both when none is).
func (s *stateFile) bodies() [2]int {
	if s.newest < 0 {
		return [2]int{-1, -1}
	}
	if o := 1 - s.newest; s.hdr[o].ok {
		return [2]int{s.newest, o}
	}
	return [2]int{s.newest, -1}
}

// body reads the state body a header slot points at.
func (s *stateFile) body(slot int) ([]byte, error) {
	h := s.hdr[slot]
	b := make([]byte, h.n, h.n+1024) // room for the next body, which update writes into it
	if _, err := s.f.ReadAt(b, int64(h.off)); err != nil {
		return nil, fmt.Errorf("read state: %w", err)
	}
	return b, nil
}

// state decodes the newest body that is the named session's state of
// this version, trying the one before when the newest fails. It returns
// the state, its journal position and its body; older is why the newest
// failed when the one before was read (nil otherwise). With no state to
// read, err says why: the newest body's failure, or no header at all.
func (s *stateFile) state(id string) (st *engine.State, pos *journalPos, body []byte, older, err error) {
	for _, slot := range s.bodies() {
		if slot < 0 {
			break
		}
		b, berr := s.body(slot)
		if berr == nil {
			st, pos, berr = decodeChecked(b, id, s.f.path)
		}
		if berr == nil {
			return st, pos, b, err, nil
		}
		if err == nil {
			err = berr
		}
	}
	if err == nil {
		err = &fs.PathError{Op: "read state", Path: s.f.path, Err: fs.ErrNotExist}
	}
	return nil, nil, nil, nil, err
}

// whole reads the whole file, to set an unreadable one aside.
func (s *stateFile) whole() []byte {
	if s.size > maxStateFile {
		return nil
	}
	b, err := readWhole(s.f, maxStateFile)
	if err != nil {
		return nil
	}
	return b
}

// reset treats the file as blank: the next write lays a fresh prefix, so
// nothing of an unreadable file is taken for a header.
func (s *stateFile) reset() {
	s.blank, s.bad, s.newest, s.marked = true, nil, -1, false
	s.hdr = [2]stateHdr{}
}

// prefix is a fresh file's first bytes: the magic, the mark, no header.
func prefix(mark byte) []byte {
	b := make([]byte, stateBodyAt)
	copy(b, stateMagic)
	b[stateMarkAt] = mark
	return b
}

// setMark sets or clears the in-flight mark (on a blank file, with a
// fresh prefix).
func (s *stateFile) setMark(on bool) error {
	m := byte('.')
	if on {
		m = '!'
	}
	if s.blank {
		if _, err := s.f.WriteAt(prefix(m), 0); err != nil {
			return err
		}
		copy(s.head[:], prefix(m))
		s.blank = false
		s.size = max(s.size, stateBodyAt)
		return nil
	}
	if _, err := s.f.WriteAt([]byte{m}, stateMarkAt); err != nil {
		return err
	}
	s.head[stateMarkAt] = m
	return nil
}

// save writes a new state body and its header (see the layout above).
// The mark is left as it is.
func (s *stateFile) save(body []byte) error { return s.write(body, false) }

// saveDone is save that also clears the mark, in the header's own write:
// the mark, both header slots and what lies between are one write of
// bytes the prefix already holds but for the new slot and the mark (a
// kill leaves the old header with the mark set, or the new one with it
// clear; one system call fewer on every hook call than a write for each).
func (s *stateFile) saveDone(body []byte) error { return s.write(body, true) }

func (s *stateFile) write(body []byte, clear bool) error {
	if s.blank {
		if err := s.setMark(s.marked); err != nil {
			return fmt.Errorf("write state: %w", err)
		}
	}
	off, slot, seq := s.place(len(body))
	if _, err := s.f.WriteAt(body, int64(off)); err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	at := stateSlotAt[slot]
	h := s.head[at : at+stateHdrLen]
	binary.LittleEndian.PutUint64(h[0:], seq)
	binary.LittleEndian.PutUint64(h[8:], off)
	binary.LittleEndian.PutUint64(h[16:], uint64(len(body)))
	binary.LittleEndian.PutUint64(h[24:], hdrCheck(h[:24]))
	from, to := at, at+stateHdrLen
	if clear {
		s.head[stateMarkAt] = '.'
		from, to = stateMarkAt, stateSlotAt[1]+stateHdrLen
	}
	if _, err := s.f.WriteAt(s.head[from:to], from); err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	end := int64(off) + int64(len(body))
	s.hdr[slot] = stateHdr{seq: seq, off: off, n: uint64(len(body)), ok: true}
	s.newest, s.fellBack = slot, false // the newest body is good again
	s.size = max(s.size, end)
	if off == stateBodyAt && s.size > stateShrinkAt && s.size > 8*end {
		// The other header's body is cut off with the rest: it is only
		// a fallback, and the journal has everything.
		if err := s.f.Truncate(end); err == nil {
			s.size = end
			s.hdr[1-slot].ok = false
		}
	}
	return nil
}

// place is where save puts a body of n bytes: its offset, the header slot
// and the sequence number. The body goes clear of the one good body the
// file holds (a kill mid-write then leaves that one to read): the newest,
// or, once a load fell back past a newest body that did not decode, the
// one before it, whose slot then keeps it while the failed one's slot
// takes the new body.
func (s *stateFile) place(n int) (off uint64, slot int, seq uint64) {
	off, seq = stateBodyAt, 1
	if s.newest >= 0 {
		keep, slot := s.newest, 1-s.newest
		if s.fellBack && s.hdr[1-s.newest].ok {
			keep, slot = 1-s.newest, s.newest
		}
		cur := s.hdr[keep]
		if off+uint64(n) > cur.off {
			off = (cur.off + cur.n + 63) &^ 63
		}
		return off, slot, max(s.hdr[0].seq, s.hdr[1].seq) + 1
	}
	return off, slot, seq
}

// Close releases the lock and the file.
func (s *stateFile) Close() error {
	if s == nil || s.f == nil {
		return nil
	}
	return s.f.Close()
}

// InFlight reports whether a session's state file carries the mark of a
// record in flight: a hook is recording, or one was killed mid-record and
// the session's next call catches its state up.
func (h Home) InFlight(id string) bool {
	f, err := openFile(h.StatePath(id), os.O_RDONLY, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	var b [stateMarkAt + 1]byte
	n, _ := f.ReadAt(b[:], 0)
	return n == len(b) && string(b[:len(stateMagic)]) == stateMagic && b[stateMarkAt] == '!'
}
