// Package config loads cully's rule thresholds: the user's config file
// (its path resolved by package env), then an optional project file
// (<project>/.cully.toml) that may tune thresholds only, and only once the
// user allowed its exact content (trust.go: cully allow / deny).
//
// Invariants:
//   - A missing file is not an error; a bad file yields the defaults for
//     what it could not say, plus problems to record (with file and line,
//     at most MaxProblems) — never a crash, never a wait.
//   - Every file is read bounded and only if it is a regular file; a
//     project file's symlink must resolve inside the project.
//   - A project file can never name a command: check patterns, read-only
//     command names and the unattended default come from the user alone.
//   - Every threshold is held to its range (ranges.go, docs/rules.md).
//   - The hook's per-call cost is the cache's (cache.go): a stat of each
//     file and one small read; TOML is parsed at session start or on change.
package config
