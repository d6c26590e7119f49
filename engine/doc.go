// Package engine is cully's pure rule core: a reducer from (session state,
// event) to (session state, signals).
//
// Invariants:
//   - Pure: every function computes from its arguments alone. Apply writes
//     only the state it is given and the event's Task. No I/O (no files, no
//     network, no environment), no time.Now.
//   - Time, file sizes and modification times arrive inside the Event; the
//     reducer compares them, it never looks them up.
//   - No globals that change: the package-level tables (command lists,
//     Action) are fixed at initialization and never written.
//   - Deterministic: replaying a session's journal records through Apply
//     rebuilds the state the hook built live (cully status --rebuild does
//     exactly that). The panel renders that state and re-implements no rule.
//   - The state holds no file contents, tool output or prompt text: only
//     what events carry, which is metadata, fingerprints and previews the
//     caller has already redacted.
package engine
