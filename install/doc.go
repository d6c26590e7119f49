// Package install holds what every agent's installer shares: a JSON
// settings editor that keeps the file's own bytes, plans with diffs,
// backups in the state dir, the record of what install created, the git
// exclude lines for a machine's own project settings, atomic writes and
// the skill file. Each agent's own merge (its events, its entry shape, its
// files per scope) lives in its adapter under hookbridge/.
//
// Invariants:
//   - Everything that is not cully's keeps its bytes: an edit splices
//     cully's entries into the file's own layout (indentation, spacing, line
//     ends), and removing them takes exactly what adding them put in.
//   - A second install changes nothing; every real change first backs the
//     file up in the state dir (never beside it: a project's backup would sit
//     in its work tree), keeps the newest BackupsKept per file, and is written
//     atomically (temp file + rename).
//   - Uninstall removes a file or folder only if the record says install
//     created it and nothing else is left in it; a skill only while it is
//     still a text cully wrote. An edited skill is never overwritten.
//   - cully's entries are recognised by their command (cully-hook, or
//     `cully hook`/`cully statusline`), never by position.
package install
