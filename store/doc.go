// Package store owns the files cully persists under a lock in its state
// dir: the event journal, the per-session derived state, the error log and
// the count of records that could not be written (recording.go);
// the checked folders (runs/<id>) that package runs keeps snapshots in; and
// the queue of snapshots the hook asks for (asks/, asks.go).
// The advisor's budget accounting and the impact ledger are not its
// business: package ledger keeps them (using this package's locks).
//
// Invariants:
//   - Every write to a shared file happens under an exclusive flock,
//     taken with a deadline (DefaultLockWait, or CULLY_LOCK_TIMEOUT): on a
//     sidecar ".lock" file that is never deleted (the journal's), or on the
//     file itself where it is only ever written in place (a session's state).
//     The journal lock is one any process of the user can hold, so it is
//     waited on at most JournalWait (50 ms); a writer that cannot have it
//     writes its record whole to pending/, and the next writer that gets
//     the lock folds it into the journal, exactly once and in order;
//     readers read pending/ after the journal and never wait on the lock
//     longer than a writer does (pending.go).
//   - The journal is append-only JSON Lines; a reader never hands on half a
//     line, skips and counts corrupt lines, and tolerates a torn last line.
//     A torn line is closed with an ASCII record separator before the next
//     append, so it can never parse as a record: every reader, whenever it
//     reads, agrees which lines are records. The journal rotates by size
//     into journal-NNNNNN.jsonl without losing a line.
//   - A session's state is derived from the journal and cannot drift from
//     it. It is saved only after the event's journal append succeeded, so
//     it never runs ahead; it carries the position of the last journal
//     line it is complete up to (offset, length and hash of that line,
//     found again after a rotation). A session's lock, in-flight mark and
//     state are one file, sessions/<id>.state (statefile.go), written in
//     place: while a record is in flight its mark byte is set, and a call
//     that finds it set (a hook was killed mid-record) replays the records
//     after the state's position before its own. A new state body is
//     written where it overlaps nothing the newest header points at, then
//     a header with the next sequence number into the other header slot,
//     so a kill leaves the old state or the new one, whole, never half of
//     one and never none; an unreadable state is rebuilt from the journal
//     and set aside only as a copy. Rebuild takes each session's lock to
//     finish it, so live hooks lose nothing to it. A session of the layout
//     before this one (<id>.json, .lock, .json.spare) is read, caught up
//     and moved on its next call (legacy.go).
//     No fsync anywhere: see Home.update for why.
//   - Every record's times round-trip: Record drops an mtime and clamps a
//     clock that encoding/json could not read back (clampTimes), and the
//     record's note says so. With Home.Now set, the event's time is read
//     under the session lock.
//   - The state dir is a trust boundary. It and its sessions folder must
//     be real directories owned by the current user and writable by nobody
//     else (Check; on Windows only the symlink check applies): a state dir
//     another user can write lets them plant links and FIFOs in it. Every
//     entry point runs that check (two Lstats) and refuses the dir with an
//     error matching ErrUnsafe; the hook then writes nothing and exits 0.
//   - Every file of the state dir (journal and rotated files, lock files,
//     errors.log, state files) is opened without following a symlink
//     (O_NOFOLLOW; on Windows an Lstat first) and used only if it is a
//     regular file: it is opened non-blocking and fstat-ed, so a FIFO or a
//     device is refused by every writer and reader instead of hanging it.
//     On Unix these are bare file descriptors: os.OpenFile would cost the
//     hook four fcntl calls and an epoll registration per file.
//   - A record that did not reach the journal is never silent: Record
//     returns a NotRecordedError and counts it in recording.failed, a file
//     of a fixed size made in advance and overwritten in place under a
//     lock on itself, so the count needs no free space (recording.go).
//   - Directories are created 0700 and files 0600; a session id never
//     becomes a path without being sanitized (SafeName).
//
// The codec. Journal records and session state are written by hand
// (AppendEvent, AppendState: byte for byte what encoding/json writes, held
// equal by tests) and state is read back with jsonlite (decodeState; the
// journal's readers use encoding/json, off the hot path). A state file's
// body keeps the state's two large maps apart, in binary with a checksum,
// after the rest of its JSON (statemaps.go): at its caps they were most of
// what a call decoded and encoded. The hook is a
// process that lives a few milliseconds, so encoding/json's reflection
// warm-up is paid on every call: measured against encoding/json, goccy/go-json,
// gjson and sonic in the same hook, the hand-written codec saves 0.3 ms per
// call on a small session, 0.7 ms with the state at its caps and 1.7 ms on
// a 230 KB payload.
package store
