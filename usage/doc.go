// Package usage turns the token figures a host writes in its own record of
// a session (Claude Code's transcript, Codex's rollout, Gemini CLI's
// session log) into a session's tokens per model, its context and an
// estimated cost, priced from a small table of published per-model prices
// (prices.go, with its date).
//
// Invariants:
//   - Pure: no I/O and no clock. The adapters (hookbridge/<agent>) parse
//     their host's lines into a Tally; the store keeps a Cache between
//     reads; cmd/cully and the panel read on from the Cache's offsets, off
//     the hook's path.
//   - A cost is an estimate and says so (Figures.Estimated): it is given
//     only when every model the session used has a price in the table, and
//     never replaces a figure the host reported itself (a status line's
//     cost wins).
//   - Long-context surcharges (a request above a model's tier: 200k input
//     tokens for some Claude and Gemini models, 272k for some GPT ones) are
//     not modelled: the estimate prices every request at the base rate.
package usage
