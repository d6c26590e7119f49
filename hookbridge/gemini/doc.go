// Package gemini is Gemini CLI's adapter: its hook payloads, its answers,
// its settings, trusted folders and skill, and the token figures of its
// session log. Everything cully knows about Gemini CLI is in this folder.
//
// The facts it relies on were read from the pinned client's package code
// (0.61.0) and measured with that client in the end-to-end tests; the
// payloads in testdata/ were captured from it. Two of them shape this
// adapter: BeforeTool's answer has no way to reach the model (only
// AfterTool, BeforeAgent and SessionStart add context), so tool events are
// marked deferred and the engine hands what is due to the AfterTool answer;
// and PreCompress fires before every turn's compression check, whether or
// not anything is compressed, so it is not a compaction and is not wired.
package gemini
