package store

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"
)

// A record that does not reach the journal must not be lost silently, and
// the disk being full is when that happens: about half the calls of a hook
// on a full ext4 disk still fit in the journal's last block, the rest fail,
// and errors.log, which needs new blocks too, fails with them. So what says
// "recording failed" must be writable when nothing else is.
//
// The mechanism is a counter file, recording.failed in the state dir, of a
// fixed size (recordingSize) written whole before it is ever needed: the
// first call of every session creates it when it is missing (one O_EXCL
// open that fails once it exists), and `cully doctor` makes it whole. A
// failed record rewrites it in place with one pwrite at offset 0 under a
// lock on the file itself, so it never grows and needs no new block: on
// ext4, xfs and tmpfs a write over blocks a file already has succeeds on a
// full disk (and under a file size limit, ulimit -f, below the limit). It
// holds how many records failed since the first failure, the first and
// last failure's times, the last reason, and where the journal ended at
// the last failure.
//
// Two things the counter cannot see are looked for on the read side,
// which needs no write at all: a file system that copies on write (btrfs,
// ZFS), where even an overwrite needs free space, and a counter file that
// was never made. Readers (status, the panel, doctor) also ask the file
// system how much space the state dir has left (statfs): a full disk is
// reported as recording failing whatever the counter says.
//
// When it clears: the counter is reset only once both hold: a record
// reached the journal after the last failure (the journal grew or rotated
// since, so recording works again), and a person was shown the report:
// `cully doctor` or the text form of `cully status` printed it
// (ClearRecording). A script's `cully status --json` and the panel only
// read it, so a failure is never cleared before someone saw it; the
// panel's line points at `cully doctor`.

// RecordingName is the failure counter's name in a state dir.
const RecordingName = "recording.failed"

// recordingSize is the counter file's size, fixed: every write of it is
// one block's worth of bytes over bytes it already has.
const recordingSize = 512

const recordingMagic = "cully recording-failed 1\n"

// lowSpace is the free space below which readers say recording is at
// risk: a few hundred records, or one state file grown at its caps.
const lowSpace = 1 << 20

// Kinds of recording failure (Recording.Kind).
const (
	RecNoSpace    = "no_space"
	RecQuota      = "quota"
	RecFileSize   = "file_size"
	RecPermission = "permission"
	RecReadOnly   = "read_only"
	RecLocked     = "locked"
	RecRefused    = "refused" // a symlink, FIFO or device where a file of the state dir belongs
	RecOther      = "other"
)

// Recording is what the state dir says about records that did not reach
// the journal.
type Recording struct {
	Dir string // the state dir, for the fix
	// NotRecorded is how many records failed since First (0: none, or
	// cleared since).
	NotRecorded int
	First, Last time.Time
	Kind        string // one of the Rec* kinds
	Reason      string // the last failure, in words
	// Recovered: a record reached the journal after the last failure.
	Recovered bool
	// Free is the space the state dir's file system has left for this
	// user, in bytes, when FreeKnown.
	Free      int64
	FreeKnown bool
	// Missing: no counter file yet (made by a session's first call, or
	// `cully doctor`); a failure could then go uncounted.
	Missing bool
	// Pending is what waits in pending/ for the journal lock (pending.go);
	// LockHeld says the lock was held by someone as it was read, and
	// Holder names who, where the system says ("pid 123 (flock -x …)"),
	// and HolderPIDs are their pids.
	Pending    Pending
	LockHeld   bool
	Holder     string
	HolderPIDs []int
	// Held are sessions whose own lock someone other than cully holds:
	// their calls are recorded without it (unlocked.go), and their state
	// is caught up only once the holder ends.
	Held []HeldSession
	// Refused is the state dir's refusal (it fails its trust checks, see
	// Home.Check): the hook records nothing at all until RefusedFix is
	// done.
	Refused    string
	RefusedFix string
	mark       journalMark // where the journal ended at the last failure
}

// Failing reports that records are being lost now, or kept from the
// journal: failures with none recorded since, a full disk, a state dir
// refused, or records waiting on a journal lock someone holds.
func (r Recording) Failing() bool {
	return r.NotRecorded > 0 && !r.Recovered || r.Full() || r.Blocked() || len(r.Held) > 0 || r.Refused != ""
}

// Blocked reports that records wait in pending/ while someone holds the
// journal lock (nothing is lost: the first writer to get the lock folds
// them into the journal).
func (r Recording) Blocked() bool { return r.Pending.Segments > 0 && r.LockHeld }

// Full reports that the state dir's file system has no space left.
func (r Recording) Full() bool { return r.FreeKnown && r.Free == 0 }

// Low reports that the state dir's file system is nearly full.
func (r Recording) Low() bool { return r.FreeKnown && r.Free < lowSpace }

// Shown reports whether there is anything to show: failures not yet
// cleared, or a disk that is full or nearly so.
func (r Recording) Shown() bool {
	return r.NotRecorded > 0 || r.Low() || r.Blocked() || len(r.Held) > 0 || r.Refused != ""
}

// Headline is the report in one line, the time of the first failure
// written by at: "recording failed: 3 calls not recorded since T: why".
// Without counted failures it says what the free space means.
func (r Recording) Headline(at func(time.Time) string) string {
	switch {
	case r.Refused != "":
		return "recording off: " + r.Refused
	case r.Blocked():
		who := "another process"
		if r.Holder != "" {
			who = r.Holder
		}
		return fmt.Sprintf("recording blocked: %d call%s wait in %s/ since %s (none lost): journal.lock is held by %s",
			r.Pending.Segments, plural(r.Pending.Segments), PendingName, at(r.Pending.Oldest), who)
	case len(r.Held) > 0:
		who := "another process"
		if r.Held[0].Holder != "" {
			who = r.Held[0].Holder
		}
		more := ""
		if len(r.Held) > 1 {
			more = fmt.Sprintf(" (and %d more session%s)", len(r.Held)-1, plural(len(r.Held)-1))
		}
		return fmt.Sprintf("recording without a session's lock: %s/%s%s is held by %s%s; calls are recorded (none lost), its state waits",
			"sessions", r.Held[0].Session, stateExt, who, more)
	case r.NotRecorded > 0:
		s := fmt.Sprintf("recording failed: %d call%s not recorded since %s: %s", r.NotRecorded, plural(r.NotRecorded), at(r.First), r.Reason)
		if r.Recovered {
			s += "; recording works again (last failure " + at(r.Last) + ")"
		}
		return s
	case r.Full():
		return "recording failing: the disk holding " + r.Dir + " is full, so calls are not being recorded"
	case r.Low():
		return fmt.Sprintf("recording at risk: %s free on the disk holding %s", bytesText(r.Free), r.Dir)
	}
	return ""
}

// Fix says what to do about it.
func (r Recording) Fix() string {
	switch {
	case r.Refused != "":
		if r.RefusedFix != "" {
			return r.RefusedFix
		}
		return "run `cully doctor`"
	case r.Blocked():
		how := "end the process holding " + shellWord(filepath.Join(r.Dir, "journal.lock")) + " (`fuser -v` names it)"
		var pids []string
		for _, p := range r.HolderPIDs {
			pids = append(pids, strconv.Itoa(p))
		}
		if len(pids) == 1 {
			how = "end it (kill " + pids[0] + ")"
		} else if len(pids) > 1 {
			how = "end them (kill " + strings.Join(pids, " ") + ")"
		}
		return how + ": the next call folds the waiting calls into the journal"
	case len(r.Held) > 0:
		var pids []string
		for _, hs := range r.Held {
			for _, p := range hs.PIDs {
				pids = append(pids, strconv.Itoa(p))
			}
		}
		how := "end the process holding " + shellWord(filepath.Join(r.Dir, "sessions", r.Held[0].Session+stateExt)) + " (`fuser -v` names it)"
		if len(pids) > 0 {
			how = "end it (kill " + strings.Join(pids, " ") + ")"
		}
		return how + ": the session's next call catches its state up"
	}
	kind := r.Kind
	if r.Full() || r.NotRecorded == 0 && r.Low() { // whatever failed last, nothing gets written without space
		kind = RecNoSpace
	}
	switch kind {
	case RecNoSpace:
		return "free space on the disk holding " + r.Dir
	case RecQuota:
		return "free space in your disk quota (the disk holding " + r.Dir + ")"
	case RecFileSize:
		return "raise the file size limit (ulimit -f) the agent runs under"
	case RecPermission:
		return "fix the permissions of " + r.Dir + " and its files (yours, writable by you: chmod -R u+rwX), or point CULLY_HOME elsewhere"
	case RecReadOnly:
		return r.Dir + " is on a read-only file system: remount it writable, or point CULLY_HOME elsewhere"
	case RecLocked:
		return "look for a process holding a file of " + filepath.Join(r.Dir, "sessions") + " (`fuser -v` names it) or a stuck cully process; CULLY_LOCK_TIMEOUT sets how long to wait"
	case RecRefused:
		return "remove what was planted in " + r.Dir + ": cully writes only regular files of its own there (`cully doctor` says which)"
	}
	return "run `cully doctor` (" + filepath.Join(r.Dir, ErrorsLogName) + " has the details when it could be written)"
}

// NotRecordedError is Record's error when its record did not reach the
// journal: the hook says so on stderr, whatever else it could write.
type NotRecordedError struct {
	Err    error  // what failed
	Kind   string // one of the Rec* kinds
	Reason string // Err in words
	Fix    string
	// Counted is the count of failures after this one (0 when the counter
	// could not be written either).
	Counted int
}

func (e *NotRecordedError) Error() string { return "recording failed: " + e.Err.Error() }
func (e *NotRecordedError) Unwrap() error { return e.Err }

// failAppend, when a test sets it, is the error every journal append
// fails with before it writes (a full disk, without filling one).
var failAppend error

// recordingFailed counts one record that did not reach the journal (its
// cause err) and returns the error Record returns for it. Nothing is
// written into a state dir that fails its trust checks.
func (h Home) recordingFailed(err error) error {
	kind, reason := explain(h.Dir, err)
	r := Recording{Dir: h.Dir, Kind: kind}
	nr := &NotRecordedError{Err: err, Kind: kind, Reason: reason, Fix: r.Fix()}
	if cerr := h.Check(); cerr != nil {
		return nr
	}
	nr.Counted, _ = h.countFailure(kind, reason)
	return nr
}

// countFailure adds one failure to the counter, in place. A counter file
// that is missing is created (which a full disk may refuse).
func (h Home) countFailure(kind, reason string) (int, error) {
	lk, err := lockFile(h.recordingPath(), h.journalWait(), false, os.O_RDWR|os.O_CREATE) // a hook's: bounded as the journal's
	if err != nil {
		return 0, err
	}
	defer lk.Unlock()
	if err := lk.f.stat(); err != nil {
		return 0, err
	}
	r, _ := readRecording(lk.f) // a damaged counter starts again
	now := time.Now().UTC()
	if r.NotRecorded == 0 {
		r.First = now
	}
	r.NotRecorded++
	r.Last, r.Kind, r.Reason = now, kind, reason
	r.mark = h.journalMark()
	if _, err := lk.f.WriteAt(encodeRecording(r), 0); err != nil {
		return 0, err
	}
	return r.NotRecorded, nil
}

// prepareRecording creates the counter file, whole, if it does not exist:
// later failures then only overwrite it. One open that fails with EEXIST
// once it exists (called by a session's first call).
func (h Home) prepareRecording() {
	f, err := createNew(h.recordingPath())
	if err != nil {
		return
	}
	_, _ = f.Write(encodeRecording(Recording{}))
	f.Close()
}

// PrepareRecording makes sure the counter file exists at its full size, so
// that a failure on a full disk can still be counted (cully doctor).
func (h Home) PrepareRecording() error {
	if err := h.Check(); err != nil {
		return err
	}
	lk, err := lockFile(h.recordingPath(), h.wait(), false, os.O_RDWR|os.O_CREATE)
	if err != nil {
		return err
	}
	defer lk.Unlock()
	if err := lk.f.stat(); err != nil {
		return err
	}
	if lk.f.size >= recordingSize {
		return nil
	}
	r, _ := readRecording(lk.f)
	_, err = lk.f.WriteAt(encodeRecording(r), 0)
	return err
}

// ReadRecording reads the counter (under a shared lock on it) and the
// space left on the state dir's file system. A state dir that does not
// exist yet has no failures.
func (h Home) ReadRecording() (Recording, error) {
	r := Recording{Dir: h.Dir}
	if err := h.Check(); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return r, nil
		}
		if errors.Is(err, ErrUnsafe) {
			r.Refused, r.RefusedFix = err.Error(), RefusalFix(err)
			if r.RefusedFix == "" {
				r.RefusedFix = "make " + shellWord(h.Dir) + " a directory only you own and can write, or point CULLY_HOME elsewhere"
			}
			return r, nil
		}
		return r, err
	}
	r.Free = freeSpace(h.Dir)
	r.FreeKnown = r.Free >= 0
	if r.Pending = h.PendingRecords(); r.Pending.Segments > 0 {
		if lk, err := Acquire(h.JournalLock(), 0); errors.Is(err, ErrLockTimeout) {
			r.LockHeld = true
			r.HolderPIDs, r.Holder = lockHolder(h.JournalLock())
		} else if err == nil {
			lk.Unlock()
		}
	}
	r.Held = h.heldSessions()
	lk, err := lockFile(h.recordingPath(), min(h.wait(), JournalWait), true, os.O_RDONLY)
	if errors.Is(err, fs.ErrNotExist) {
		r.Missing = true
		return r, nil
	}
	if err != nil {
		return r, err
	}
	defer lk.Unlock()
	if err := lk.f.stat(); err != nil {
		return r, err
	}
	c, err := readRecording(lk.f)
	if err != nil {
		return r, err
	}
	c.Dir, c.Free, c.FreeKnown = r.Dir, r.Free, r.FreeKnown
	c.Pending, c.LockHeld, c.Holder, c.HolderPIDs, c.Held = r.Pending, r.LockHeld, r.Holder, r.HolderPIDs, r.Held
	if c.NotRecorded > 0 {
		c.Recovered = h.journalMark() != c.mark
	}
	return c, nil
}

// ClearRecording resets the counter once its report was shown to a person
// (seen is what was shown): only when the counter still holds those
// failures and a record reached the journal since the last of them. It
// reports whether it cleared.
func (h Home) ClearRecording(seen Recording) (bool, error) {
	if seen.NotRecorded == 0 || !seen.Recovered {
		return false, nil
	}
	if err := h.Check(); err != nil {
		return false, err
	}
	lk, err := lockFile(h.recordingPath(), h.wait(), false, os.O_RDWR)
	if err != nil {
		return false, err
	}
	defer lk.Unlock()
	if err := lk.f.stat(); err != nil {
		return false, err
	}
	c, err := readRecording(lk.f)
	if err != nil || c.NotRecorded != seen.NotRecorded || !c.Last.Equal(seen.Last) || h.journalMark() == c.mark {
		return false, err
	}
	if _, err := lk.f.WriteAt(encodeRecording(Recording{}), 0); err != nil {
		return false, err
	}
	return true, nil
}

func (h Home) recordingPath() string { return filepath.Join(h.Dir, RecordingName) }

// journalMark is where the journal ends: the newest rotated file's number
// and the live journal's size. Appends only ever move it on (a rotation
// renames the live journal to the next number), so a mark that differs
// from one taken at a failure means a record was appended since. Taken
// without the journal lock (a failure may be that lock's timeout): a
// record appended between the failure and its mark is seen as recovery
// only at the next one.
type journalMark struct {
	Rotated int
	Size    int64
}

func (h Home) journalMark() journalMark {
	m := journalMark{Size: -1}
	if files, err := h.rotated(); err == nil && len(files) > 0 {
		m.Rotated = rotatedSeq(files[len(files)-1])
	}
	if fi, err := os.Lstat(h.Journal()); err == nil {
		m.Size = fi.Size()
	}
	return m
}

// encodeRecording writes the counter as recordingSize bytes of text,
// one "key value" a line, padded with spaces: `cat` shows it.
func encodeRecording(r Recording) []byte {
	b := make([]byte, 0, recordingSize)
	b = append(b, recordingMagic...)
	b = append(b, "not_recorded "...)
	b = strconv.AppendInt(b, int64(r.NotRecorded), 10)
	if r.NotRecorded > 0 {
		b = append(b, "\nfirst "...)
		b = r.First.UTC().AppendFormat(b, time.RFC3339Nano)
		b = append(b, "\nlast "...)
		b = r.Last.UTC().AppendFormat(b, time.RFC3339Nano)
		b = append(b, "\nkind "...)
		b = append(b, r.Kind...)
		b = append(b, "\njournal "...)
		b = strconv.AppendInt(b, int64(r.mark.Rotated), 10)
		b = append(b, ' ')
		b = strconv.AppendInt(b, r.mark.Size, 10)
		b = append(b, "\nreason "...)
		room := recordingSize - len(b) - 2
		reason := strings.Join(strings.Fields(r.Reason), " ")
		if len(reason) > room {
			reason = reason[:room]
			for !utf8.ValidString(reason) {
				reason = reason[:len(reason)-1]
			}
		}
		b = append(b, reason...)
	}
	b = append(b, '\n')
	for len(b) < recordingSize-1 {
		b = append(b, ' ')
	}
	return append(b, '\n')
}

// readRecording reads a counter file. An empty one (a creation the disk
// cut short) holds no failures.
func readRecording(f *sysFile) (Recording, error) {
	b := make([]byte, recordingSize)
	n, err := f.ReadAt(b, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return Recording{}, err
	}
	b = b[:n]
	if len(bytes.TrimSpace(b)) == 0 {
		return Recording{}, nil
	}
	rest, ok := bytes.CutPrefix(b, []byte(recordingMagic))
	if !ok {
		return Recording{}, fmt.Errorf("%s is not cully's failure counter", f.path)
	}
	var r Recording
	for _, line := range strings.Split(string(rest), "\n") {
		k, v, _ := strings.Cut(strings.TrimSpace(line), " ")
		var err error
		switch k {
		case "not_recorded":
			r.NotRecorded, err = strconv.Atoi(v)
		case "first":
			r.First, err = time.Parse(time.RFC3339Nano, v)
		case "last":
			r.Last, err = time.Parse(time.RFC3339Nano, v)
		case "kind":
			r.Kind = v
		case "reason":
			r.Reason = v
		case "journal":
			rot, size, _ := strings.Cut(v, " ")
			if r.mark.Rotated, err = strconv.Atoi(rot); err == nil {
				r.mark.Size, err = strconv.ParseInt(size, 10, 64)
			}
		}
		if err != nil {
			return Recording{}, fmt.Errorf("%s: damaged %s line: %w", f.path, k, err)
		}
	}
	if r.NotRecorded < 0 {
		return Recording{}, fmt.Errorf("%s: damaged count %d", f.path, r.NotRecorded)
	}
	return r, nil
}

// explain classifies a failed record's error and says it in words: the
// system's reason and the state dir file it was about.
func explain(dir string, err error) (kind, reason string) {
	kind = RecOther
	switch {
	case errors.Is(err, syscall.ENOSPC):
		kind = RecNoSpace
	case errors.Is(err, syscall.EDQUOT):
		kind = RecQuota
	case errors.Is(err, syscall.EFBIG):
		kind = RecFileSize
	case errors.Is(err, syscall.EROFS):
		kind = RecReadOnly
	case errors.Is(err, fs.ErrPermission):
		kind = RecPermission
	case errors.Is(err, ErrLockTimeout):
		kind = RecLocked
	case errors.Is(err, ErrUnsafe):
		kind = RecRefused
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		what := pe.Path
		if rel, rerr := filepath.Rel(dir, pe.Path); rerr == nil && !strings.HasPrefix(rel, "..") {
			what = rel
		}
		return kind, pe.Err.Error() + " (" + pe.Op + " " + what + ")"
	}
	if kind == RecLocked {
		return kind, "another process held a session's lock past the deadline"
	}
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return kind, msg
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// bytesText is a size for people: "0 B", "512 KiB", "3.2 MiB".
func bytesText(n int64) string {
	switch {
	case n < 1<<10:
		return strconv.FormatInt(n, 10) + " B"
	case n < 1<<20:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
}
