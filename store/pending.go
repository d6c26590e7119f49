package store

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// What a writer does when it cannot have the journal lock.
//
// The journal lock is a flock on journal.lock, and a flock is a lock any
// process of the same user can take: `flock -x journal.lock sleep 600`,
// run by an agent talked into it, held every writer for its whole wait and
// then lost the record. So a writer waits for the journal lock at most
// JournalWait (50 ms: a writer holds it for well under a millisecond), and
// then writes its records to a file of its own in pending/, a segment:
// created under a temporary name, written whole in one write and renamed
// to <seq>-<pid>-<n>+<session>.jsonl. The rename is the acknowledgement; a
// writer killed before it leaves only a temporary file, which no reader
// reads and which is removed once it is an hour old.
//
// The next writer that does get the lock folds the segments into the
// journal, oldest first, ahead of its own records, in the same one write:
// each segment is first renamed to <name>.fold-<offset>, the offset in the
// live journal where its bytes go, then the write is made, then the
// segments are removed. A writer killed in between leaves .fold files,
// which the next lock holder checks against the journal before anything
// else: the lines that reached the journal stay, and what did not goes
// back to pending/ under the segment's own name. So every acknowledged
// record lands in the journal once, and a record never passes a pending
// one: when more is pending than one fold takes (foldMax segments), the
// writer's own records go to pending/ too.
//
// Readers (ReadAll, a rebuild, a session's catch-up) read the journal
// files and then the segments: a fold renames a segment away before it
// writes its bytes into the journal, so a reader that lists a segment read
// the journal before those bytes were there, and never sees a record
// twice. A record is missed only by a read that overlaps a fold (it is
// then in the journal for the next read).
//
// A session whose record went to pending/ saves its state with no journal
// position: its next call that gets the lock appends after the folded
// segments and saves a position again; a catch-up before that replays the
// session whole, segments included.
//
// Readers say that recording is blocked (Recording.Blocked) when segments
// wait and the lock is held as they look; where the system says who holds
// it (/proc/locks), they name the process.

// JournalWait bounds a writer's wait for the journal lock (and a reader's,
// which then reads without it). CULLY_LOCK_TIMEOUT shortens it, never
// lengthens it.
const JournalWait = 50 * time.Millisecond

// PendingName is the folder of segments in a state dir.
const PendingName = "pending"

const (
	segmentExt = ".jsonl"
	foldMark   = ".fold-"
	tmpExt     = ".tmp"
	toldExt    = ".told"
	// blockedName marks a spell in which a writer waited in vain.
	blockedName = "blocked"
	// foldMax and foldBytes bound one fold (a hook's share of a backlog).
	foldMax   = 128
	foldBytes = 8 << 20
	// staleTmp is the age of a temporary segment no live writer holds.
	staleTmp = time.Hour
)

// errPendingAhead is an append that folded what it could while more
// segments wait: its records go to pending/ too, behind them.
var errPendingAhead = errors.New("older records still pending")

// PendingDir is the folder of segments.
func (h Home) PendingDir() string { return filepath.Join(h.Dir, PendingName) }

func (h Home) journalWait() time.Duration {
	if h.LockWait > 0 && h.LockWait < JournalWait {
		return h.LockWait
	}
	return JournalWait
}

// appendWait is how long an append waits for the journal lock: JournalWait,
// or only a try once a writer of this spell has waited that long in vain
// (it leaves pending/blocked, see spellBlocked): every call of a blocked
// spell would otherwise pay the whole wait again. A free lock is taken at
// once either way, and its taker folds the backlog and ends the spell.
// One Lstat.
func (h Home) appendWait() time.Duration {
	if _, err := os.Lstat(filepath.Join(h.PendingDir(), blockedName)); err == nil {
		return 0
	}
	return h.journalWait()
}

// spellBlocked notes, after a whole wait for the journal lock in vain,
// that the lock is held past a writer's wait (appendWait).
func (h Home) spellBlocked() {
	if f, err := createNew(filepath.Join(h.PendingDir(), blockedName)); err == nil {
		f.Close()
	}
}

var segmentN atomic.Int64

// appendPending writes recs as a new segment of session (see above). It
// returns only once the segment is in place, or with nothing of it there.
func (h Home) appendPending(session string, recs [][]byte) error {
	out := joinLines(nil, recs)
	dir := h.PendingDir()
	var err error
	for try := 0; try < 16; try++ {
		if err = ensureDir(dir, "pending folder"); errors.Is(err, fs.ErrNotExist) {
			continue // made, then removed by a fold that emptied it
		} else if err != nil {
			return err
		}
		name := fmt.Sprintf("%020d-%d-%d+%s%s", nextSeq(dir), os.Getpid(), segmentN.Add(1), SafeName(session), segmentExt)
		tmp := filepath.Join(dir, name+tmpExt)
		var f *sysFile
		f, err = createNew(tmp)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrExist) {
			continue // the folder was emptied and removed by a fold meanwhile; or a name taken
		}
		if err != nil {
			return fmt.Errorf("pending record: %w", err)
		}
		if failAppend != nil {
			err = failAppend
		} else if _, err = f.Write(out); err == nil && h.Durable {
			err = f.Sync()
		}
		f.Close()
		if err == nil {
			err = os.Rename(tmp, filepath.Join(dir, name))
		}
		if err != nil {
			os.Remove(tmp)
			return fmt.Errorf("pending record: %w", err)
		}
		if h.Durable { // the rename too, where the system can sync a folder
			if d, err := os.Open(dir); err == nil {
				_ = d.Sync()
				d.Close()
			}
		}
		return nil
	}
	return fmt.Errorf("pending record: %w", err)
}

// nextSeq is a segment's sequence number: the clock in nanoseconds, but
// past every segment already there, so that a clock set back never puts a
// session's record before its earlier one.
func nextSeq(dir string) int64 {
	seq := time.Now().UnixNano()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if n, ok := segmentSeq(e.Name()); ok && n >= seq {
			seq = n + 1
		}
	}
	return seq
}

// segmentSeq reads the sequence number a segment's name starts with.
func segmentSeq(name string) (int64, bool) {
	if len(name) < 21 || name[20] != '-' {
		return 0, false
	}
	n, err := strconv.ParseInt(name[:20], 10, 64)
	return n, err == nil
}

// joinLines is recs, each ending with one newline.
func joinLines(out []byte, recs [][]byte) []byte {
	for _, r := range recs {
		out = append(out, bytes.TrimRight(r, "\n")...)
		out = append(out, '\n')
	}
	return out
}

// segment is one pending file a fold takes.
type segment struct {
	name string // its name in pending/, a .jsonl one
	data []byte
	fold string // its name once renamed for the fold
}

// takePending, with the journal lock held and the live journal open as f,
// first recovers what an interrupted fold left (recoverFolds), then reads
// the oldest segments, at most foldMax and foldBytes of them. more says
// that segments remain beyond them. A folder that does not exist costs one
// Lstat: the writer's usual case.
func (h Home) takePending(f *sysFile) (segs []segment, more bool) {
	dir := h.PendingDir()
	fi, err := os.Lstat(dir)
	if err != nil || checkDir(dir, fi) != nil {
		return nil, false
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, false
	}
	if h.recoverFolds(f, ents) {
		if ents, err = os.ReadDir(dir); err != nil {
			return nil, false
		}
	}
	var size int
	for _, e := range ents {
		name := e.Name()
		if !isSegment(name) {
			continue
		}
		if len(segs) == foldMax || size >= foldBytes {
			return segs, true
		}
		b, err := ReadSmallFile(filepath.Join(dir, name), maxLine*4)
		if err != nil || len(b) == 0 || b[len(b)-1] != '\n' {
			// Not one of ours as written (a writer writes whole lines, in
			// one write, before the rename): it is set aside, and nothing
			// passes it unread.
			h.logSession("fold pending", fmt.Errorf("pending/%s set aside: %v", name, errOr(err, "not whole lines")), "")
			os.Rename(filepath.Join(dir, name), filepath.Join(dir, name+".bad"))
			continue
		}
		segs = append(segs, segment{name: name, data: b})
		size += len(b)
	}
	return segs, false
}

func errOr(err error, s string) string {
	if err != nil {
		return err.Error()
	}
	return s
}

func isSegment(name string) bool {
	_, ok := segmentSeq(name)
	return ok && strings.HasSuffix(name, segmentExt)
}

// recoverFolds checks each <name>.fold-<offset> an interrupted fold left
// against the live journal: its lines that are there at that offset stay,
// the rest goes back to pending/<name>. It reports whether it changed the
// folder.
func (h Home) recoverFolds(f *sysFile, ents []os.DirEntry) bool {
	dir := h.PendingDir()
	changed := false
	for _, e := range ents {
		name, off, ok := strings.Cut(e.Name(), foldMark)
		if !ok || !isSegment(name) {
			continue
		}
		at, err := strconv.ParseInt(off, 10, 64)
		path := filepath.Join(dir, e.Name())
		data, rerr := ReadSmallFile(path, maxLine*4)
		if err != nil || rerr != nil {
			continue
		}
		changed = true
		// How much of data the journal holds at its offset.
		var have int
		if at >= 0 && at < f.size {
			got := make([]byte, min(int64(len(data)), f.size-at))
			if n, _ := f.ReadAt(got, at); n > 0 {
				for have < n && got[have] == data[have] {
					have++
				}
			}
		}
		if have == len(data) {
			os.Remove(path)
			continue
		}
		// Whole lines only: the rest of a line cut short goes back whole
		// (the cut piece is closed by the next append; see tornCloser).
		rest := data[bytes.LastIndexByte(data[:have], '\n')+1:]
		if len(rest) == len(data) {
			if err := os.Rename(path, filepath.Join(dir, name)); err != nil {
				h.logSession("fold pending", err, "")
			}
			continue
		}
		tmp := filepath.Join(dir, name+tmpExt)
		os.Remove(tmp)
		nf, err := createNew(tmp)
		if err == nil {
			_, err = nf.Write(rest)
			nf.Close()
			if err == nil {
				err = os.Rename(tmp, filepath.Join(dir, name))
			}
		}
		if err != nil {
			os.Remove(tmp)
			h.logSession("fold pending", err, "")
			continue
		}
		os.Remove(path)
	}
	return changed
}

// markFolds renames each segment for the fold, with the offset its bytes
// go to; it stops at the first it cannot rename (nothing passes it) and
// returns how many it renamed.
func (h Home) markFolds(segs []segment, at int64) int {
	dir := h.PendingDir()
	for i := range segs {
		s := &segs[i]
		s.fold = s.name + foldMark + strconv.FormatInt(at, 10)
		if err := os.Rename(filepath.Join(dir, s.name), filepath.Join(dir, s.fold)); err != nil {
			h.logSession("fold pending", err, "")
			return i
		}
		at += int64(len(s.data))
	}
	return len(segs)
}

// doneFolds removes the folded segments; when nothing else waits, it
// empties the folder (notices given, temporary files of dead writers) and
// removes it, so the next append's Lstat finds none.
func (h Home) doneFolds(segs []segment, more bool) {
	dir := h.PendingDir()
	for _, s := range segs {
		os.Remove(filepath.Join(dir, s.fold))
	}
	if more {
		return
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if isSegment(e.Name()) || strings.Contains(e.Name(), foldMark) {
			return
		}
	}
	for _, e := range ents {
		name := e.Name()
		switch {
		case strings.HasSuffix(name, toldExt), name == blockedName:
			os.Remove(filepath.Join(dir, name))
		case strings.HasSuffix(name, tmpExt):
			if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > staleTmp {
				os.Remove(filepath.Join(dir, name))
			}
		}
	}
	os.Remove(dir) // fails while a writer's temporary file is there: it is then folded next time
}

// readPending hands fn every line of the segments waiting in pending/,
// oldest first, and returns how many lines it handed on. Segments are
// listed after the journal was read (see the comment at the top).
func (h Home) readPending(st *ReadStats, fn func(line []byte) error) (int, error) {
	dir := h.PendingDir()
	fi, err := os.Lstat(dir)
	if err != nil || checkDir(dir, fi) != nil {
		return 0, nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0, nil
	}
	n := 0
	for _, e := range ents {
		if !isSegment(e.Name()) {
			continue
		}
		b, err := ReadSmallFile(filepath.Join(dir, e.Name()), maxLine*4)
		if err != nil {
			continue // folded since it was listed
		}
		if _, err := scanLines(bytes.NewReader(b), 0, st, func(line []byte, _ int64) error {
			n++
			return fn(line)
		}); err != nil {
			return n, err
		}
	}
	return n, nil
}

// Pending is what waits in pending/: how many segments and the oldest's
// time.
type Pending struct {
	Segments int
	Oldest   time.Time
}

// PendingRecords reads what waits in pending/ (nothing when the folder is
// missing or refused).
func (h Home) PendingRecords() Pending {
	var p Pending
	dir := h.PendingDir()
	fi, err := os.Lstat(dir)
	if err != nil || checkDir(dir, fi) != nil {
		return p
	}
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		if isSegment(e.Name()) {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	p.Segments = len(names)
	if len(names) > 0 {
		seq, _ := segmentSeq(names[0])
		p.Oldest = time.Unix(0, seq).UTC()
	}
	return p
}

// NoticeDue reports whether session is to be told that its records wait
// in pending/ (hookrun tells it once, then NoticeGiven): not yet told, and
// the journal lock held now by something other than cully's own writers
// (where the system says, on Linux; elsewhere any wait in vain is told).
func (h Home) NoticeDue(session string) bool {
	_, err := os.Lstat(filepath.Join(h.PendingDir(), SafeName(session)+toldExt))
	return errors.Is(err, fs.ErrNotExist) && heldByOtherFn(h.JournalLock())
}

// NoticeGiven notes that session was told; the note goes with the folder
// once the backlog is folded, so a later block is told again.
func (h Home) NoticeGiven(session string) {
	if f, err := createNew(filepath.Join(h.PendingDir(), SafeName(session)+toldExt)); err == nil {
		f.Close()
	}
}
