// Package runs keeps a run's recovery snapshots (seed 001) and rolls its
// files back to one of them. A snapshot is a file in the seed's format
// (run_id, step, timestamp, state_snapshot, files_modified) in the run's
// folder of the state dir; the content it stands for is a git tree in the
// repository's store (repo.go), shared by all its runs, which borrows the
// user's repository's objects read-only.
//
// Invariants:
//   - The user's repository is only read: every git command that writes
//     runs with GIT_DIR set to the store, GIT_INDEX_FILE to the run's own
//     index, and the work tree given explicitly; the user's object dir is
//     an alternate, which git never writes. Commands on the user's
//     repository itself are rev-parse, config, ls-files and ls-tree; its
//     index is copied (a first baseline's seed), never written. Only a
//     rollback writes the working tree, and only the files it names.
//   - Content is stored once, by hash, byte for byte (no line-ending
//     conversion, no filter); files are the user's only. A store is
//     bounded (Policy): a prune removes whole runs, then what no kept run
//     refers to, under the store's lock, which every snapshot and
//     rollback holds shared.
//   - files_modified is what git sees in the work tree against the run's
//     start (its baseline tree): any way a file changed (an Edit, a
//     heredoc, sed -i, a formatter, mv, rm) is found, by the index's file
//     metadata first and content hashes where that changed. What git
//     ignored at the run's start is never the run's; an untracked secret
//     is never stored; no path list holds a token unredacted.
//   - A tree never claims content it does not hold: a file that cannot
//     be captured leaves the index, and a rollback never changes a path
//     whose current content no snapshot holds.
//   - Marks (marks.go) tell the agent's changes from everyone else's; a
//     rollback of a marked run reverts only the agent's, and marks its own.
//   - One snapshot or mark at a time per run, under the run's lock; a
//     snapshot file is written whole (a temporary file renamed into place).
//   - A rollback checks every path before it changes any, never deletes a
//     file no snapshot holds, never writes through a symlink, and puts back
//     what it changed when a change fails midway; its first snapshot undoes
//     it.
package runs
