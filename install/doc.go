// Package install holds what every agent's installer shares: an
// order-preserving JSON settings editor, plans with diffs, backups, atomic
// writes and the skill file. Each agent's own merge (its events, its entry
// shape) lives in its adapter under hookbridge/.
//
// Invariants:
//   - Everything that is not cully's stays exactly as it was: key order is
//     kept, other hooks and settings are untouched, and an uninstall that
//     leaves the file as it was before install restores its exact bytes.
//   - A second install changes nothing; every real change first backs the
//     file up beside itself and is written atomically (temp file + rename).
//   - cully's entries are recognised by their command (cully-hook, or
//     `cully hook`/`cully statusline`), never by position.
package install
