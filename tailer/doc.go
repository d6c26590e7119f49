// Package tailer follows the event journal as it grows and hands on whole
// records, for the panel. It imports no TUI code.
//
// Invariants:
//   - It watches the journal's directory, not the file, so it survives the
//     file being absent at start, rotated (renamed away) or recreated.
//   - It reads only complete lines from a byte offset: a line being written
//     is left for the next wake-up, never handed on in halves.
//   - Truncation (the file shrank and is still the same file) restarts at 0; on
//     rotation the old file is drained to its end before the new one is read.
//   - Bursts of writes are debounced; while nothing is written it does no
//     work at all (no polling). It ends when its context ends.
package tailer
