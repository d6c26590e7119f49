// Package copilot is GitHub Copilot CLI's adapter: its hook payloads, its
// answers, its hook files and skill. Everything cully knows about Copilot
// CLI is in this folder.
//
// The facts it relies on were measured in the real client (version 1.0.102,
// driven by a loopback mock model through its bring-your-own-model
// settings; e2e/copilot_test.go pins them) and are kept as payloads in
// testdata/: a run of real tool calls in order, one file per hook call,
// named after the event it was registered for.
//
// Invariants: Copilot CLI's own (camelCase) hook events carry no event
// name in their payload, so every entry cully installs names its event in
// the entry's environment (EventVar), and Decode reads it from there. The
// hook answers with additionalContext, with a permission decision only to
// deny a halted run's call, and never with a stop block (agentStop's block
// continues the turn).
package copilot
