// Package tui is the side-pane panel: a Bubble Tea v2 program that shows
// the followed session as the engine's reducer left it (the hook's own
// persisted state) plus the live journal, and takes checkpoint
// acknowledgments from the keyboard.
//
// Invariants:
//   - It renders; it never re-implements a rule. Every figure comes from
//     engine.State as the reducer computed it.
//   - No I/O in Update or View: loading state, writing an ack and reading
//     the journal happen in tea.Cmds (through the Backend), whose results
//     come back as messages. Commands never touch the model.
//   - One root model; window size is handled at the root; text is cut by
//     display width, never by bytes; one Styles and one KeyMap.
package tui
