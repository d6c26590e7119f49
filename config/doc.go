// Package config loads cully's rule thresholds: the user's config file
// (its path resolved by package env), then an optional project file
// (<project>/.cully.toml) that may tune thresholds only.
//
// Invariants:
//   - A missing file is not an error; a bad file yields the defaults for
//     what it could not say, plus an error to record — never a crash.
//   - A project file can never name a command: check patterns, read-only
//     command names and the unattended default come from the user alone.
package config
