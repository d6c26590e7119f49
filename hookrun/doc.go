// Package hookrun is the hook's whole path, shared by `cully hook` and the
// lean `cully-hook` binary: read the payload, take the agent's adapter from
// the registry, decode, fold the event into its session and the journal,
// answer the agent.
//
// Invariants:
//   - Run never fails the agent: it returns nothing the caller must act on,
//     writes only the protocol answer to stdout, and records every error.
//   - Nothing here imports a TUI or CLI package: the hook binary's start-up
//     cost is the product's hot path.
package hookrun
