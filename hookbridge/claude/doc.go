// Package claude is Claude Code's adapter: its hook payloads, its answers,
// its settings and skill, its transcripts and its status line. Everything
// cully knows about Claude Code is in this folder.
//
// The facts it relies on were captured from the real client (pinned in the
// end-to-end tests) and are kept as payloads in testdata/: every hook event,
// a run of real tool calls in order, and the answers the model was shown.
package claude
