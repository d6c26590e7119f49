// Package advisor runs the model-backed advisor: it builds the prompt from
// a session's recorded evidence, takes the budget decision (package
// ledger) and runs the user's worker command under its deadline. It is
// never on the hook's path: the hook only starts `cully advise --auto` in
// the background when the evidence changed (hookrun), and this package
// runs there.
//
// Invariants:
//   - The prompt holds evidence only: the rules' signals, counts and the
//     recent calls' redacted previews. Never a transcript, a file's
//     contents or a secret; every text in it passes redact.Text.
//   - The evidence hash covers the signals alone (not the counts, which
//     change on every call), so an unchanged situation hashes the same.
//   - A worker runs in its own process group with the prompt on stdin; at
//     its deadline the whole group is killed. One worker per session at a
//     time (a lock per session) and at most MaxWorkers at once (slot
//     locks): a request that finds neither free is skipped as busy.
//   - Every run ends as one journal event (engine.KindAdvice): the advice,
//     or why there is none; the reducer folds it and the next nudge
//     carries unseen advice once. A discovery or tool-gap research attempt
//     before it is one more such event, with no advice: its outcome and
//     the searches it reported, in its note.
//   - Discovery and tool-gap research run on the [discovery] command,
//     under discovery's rules (ledger.Discover, ledger.Research): one
//     attempt an hour per session and agent each, research once per gap,
//     a 45-second deadline, and an answer that reports one to three
//     searches or is refused (SearchOutcome). Their findings reach the
//     agent only through the advice, as notes in the advisor's prompt.
package advisor
