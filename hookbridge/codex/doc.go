// Package codex is the adapter of OpenAI's Codex CLI: its hook payloads,
// its answers, its hooks.json and the trust Codex asks for, its skill, and
// its session rollouts. Everything cully knows about Codex is in this
// folder; the facts come from real runs of Codex 0.171.0 (the version the
// end-to-end test pins), kept as payloads and rollouts in testdata/, and
// from its hook schemas (testdata/schemas), which reject unknown fields.
//
// What Codex leaves out of its hook payloads, its rollout holds: a
// command's exit code and the token counts. The hook reads the rollout on
// from where the session's last call stopped (Complete, under the session
// lock), never more than maxRead bytes a call.
//
// Invariants:
//   - No init-time work: this package is linked into cully-hook for every
//     agent's every call, so it has no package-level maps, no variables
//     built by function calls, no regexp and no crypto.
//   - Answers are exactly what the 0.171.0 output schemas accept: context
//     for the model on the events that carry it, nothing otherwise; never a
//     block, a permission decision or a stop.
package codex
