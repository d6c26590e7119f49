// Package hookbridge is the seam between cully and the agents it watches.
// Each agent's protocol is one implementation of Agent, in its own folder
// below this one (hookbridge/claude for Claude Code), listed once in
// hookbridge/agents; the hook, install, doctor, statusline and replay take
// the adapter from there and know nothing agent-specific themselves. What
// every adapter shares lives here: the decoding environment, command
// previews (redacted by package redact), path helpers, and the salvage of
// an oversize payload.
//
// Invariants:
//   - Decoding is tolerant: unknown fields are ignored, missing ones stay
//     unknown (nil), and nothing from the payload is used as a path without
//     the caller sanitizing it.
//   - No file contents, tool output or prompt text leave an adapter: only
//     metadata, fingerprints and redacted previews.
//   - Encoders write exactly one JSON object or nothing; in advise mode they
//     never emit a permission decision or a block.
//   - Nothing here or in an adapter imports a TUI or CLI package: the lean
//     hook binary links every adapter.
package hookbridge
