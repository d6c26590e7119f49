// Package runs keeps a run's recovery snapshots (seed 001) and rolls its
// files back to one of them. A snapshot is a file in the seed's format
// (run_id, step, timestamp, state_snapshot, files_modified) in the run's
// folder of the state dir; the content it stands for is a git tree in a
// private repository beside it, which borrows the user's repository's
// objects read-only.
//
// Invariants:
//   - The user's repository is only read: every git command that writes
//     runs with GIT_DIR set to the run's own repository (its index, its
//     objects, its refs) and the work tree given explicitly; the user's
//     object dir is an alternate, which git never writes. Commands on the
//     user's repository itself are rev-parse, ls-files and ls-tree. No
//     command touches the user's index, HEAD, refs or working tree; only a
//     rollback writes the working tree, and only the files it names.
//   - files_modified is what git sees in the work tree against the run's
//     start (its baseline tree): any way a file changed (an Edit, a
//     heredoc, sed -i, a formatter, mv, rm) is found, by the index's file
//     metadata first and content hashes where that changed. Ignored files
//     (.gitignore, info/exclude, core.excludesFile) are not the run's.
//   - One snapshot at a time per run, under the run's lock; a snapshot
//     file is written whole (a temporary file renamed into place).
//   - A rollback changes only the paths that differ between the target
//     snapshot and the state it snapshots first (so that it can be
//     undone). It checks every path before it changes any, never deletes a
//     file no snapshot holds, never writes through a symlink, and puts back
//     what it changed when a change fails midway.
package runs
