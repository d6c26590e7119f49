// Package redact removes secrets from what cully keeps: commands (Text),
// paths and the working directory (Path), and bounds a redacted preview
// without cutting a marker in two (Clip). Every adapter, the snapshots'
// path lists and the advisor's prompt pass their text through it before
// anything is written anywhere.
//
// Invariants:
//   - Only the secret is replaced, by [REDACTED]; the rest of the text
//     keeps its structure.
//   - Text and Path are idempotent and run in linear time (TestRedactLinear,
//     FuzzRedact, FuzzRedactPath); the regression corpus of every shape ever
//     found is testdata/secrets.txt (read through package secretcorpus).
//   - No regular expressions and nothing of cully's imported: the hook
//     binary redacts on every call, and its start-up is the hot path.
package redact
