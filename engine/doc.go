// Package engine is cully's pure rule core: a reducer from (session state,
// event) to (session state, signals).
//
// Invariants:
//   - Pure: every function computes from its arguments alone. Apply writes
//     only the state it is given and the event's Task. No I/O (no files, no
//     network, no environment), no time.Now.
//   - Time, file sizes and modification times arrive inside the Event; the
//     reducer compares them, it never looks them up.
//   - No globals that change: the package-level rule lists, command tables
//     and Action are fixed at initialization and never written.
//   - Deterministic: replaying a session's journal records through Apply
//     rebuilds the state the hook built live (cully status --rebuild does
//     exactly that). The panel renders that state and re-implements no rule.
//   - The state holds no file contents, tool output or prompt text: only
//     what events carry, which is metadata, fingerprints and previews the
//     caller has already redacted.
//
// Layout: apply.go dispatches each event kind and books tool calls (counts,
// command history, files read); rules.go lists the rules, runs them and
// deduplicates what they raise; each rule is one rule_*.go file with its
// threshold use, dedup key and text. shell_lex.go, shell_tables.go and
// shell.go classify shell command lines; classify.go other tools, command
// fingerprints and failure signatures. docs/rules.md describes the rules
// for users.
package engine
