// Package tui is the side-pane panel: a Bubble Tea v2 program that shows
// the followed session as the engine's reducer left it (the hook's own
// persisted state) plus the live journal, and takes checkpoint
// acknowledgments from the keyboard.
//
// Invariants:
//   - It renders; it never re-implements a rule. Every figure comes from
//     engine.State as the reducer computed it, every nudge from the
//     journal's signals; the panel only restates relative times.
//   - No I/O in Update or View: loading state (and the project's branch),
//     writing an ack, reading the journal and ringing the terminal happen
//     in tea.Cmds (through the Backend, or tea.Raw), whose results come
//     back as messages. Commands never touch the model.
//   - The model holds its clock: ticks (and timers) advance it, and every
//     age is recomputed from it on each frame, never from time.Now.
//   - One root model; window size is handled at the root; text is cut by
//     display width, never by bytes; one Styles and one KeyMap. Rows are
//     plain structs rendering themselves at a width (sessionRow, itemRow,
//     activityRow); recorded text passes through clean first.
//   - Last activity is the agent's: acks and usage reports do not move it.
//   - An ack waits out an undo window before it is written (the store has
//     no un-ack); u cancels it, quitting writes it.
//   - A scripted walkthrough (cully demo) narrates through CaptionMsg and
//     ClosingMsg, sent from outside the program: the panel renders them in
//     its footer and as a closing screen; what they say is the caller's.
package tui
