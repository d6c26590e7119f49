// Package ledger owns the advisor's persistent accounting and the impact
// ledger, both in the state dir's advisor/ folder.
//
// Invariants:
//   - budget.json holds timestamps (Unix seconds) and evidence hashes only,
//     never signal text. Every read-modify-write of it happens under an
//     exclusive flock on budget.lock (never deleted), with a deadline, and
//     the new file replaces the old by a rename: concurrent hook-started
//     processes never exceed the budget and a kill leaves the old file or
//     the new one, whole.
//   - An unreadable budget.json is never reset or rewritten: every budget
//     decision is a deferral until the file reads again (the user can see
//     it, move it aside, or fix it). A clock earlier than the latest
//     recorded timestamp defers too, until the clock passes it again.
//   - Decide is pure: the budget, the time and the evidence in, a verdict
//     out. Per session key: at most MaxPerHour accepted automatic requests
//     in any rolling hour, at least Spacing between them, an identical
//     evidence hash suppressed within Window; with discovery on, an
//     identical snapshot may refresh after Window. Discovery: one attempt
//     per Window per (session, agent), counted when it starts, so a failed
//     attempt starts the cooldown too.
//   - ledger.jsonl is append-only (under budget.lock): one line per skipped
//     analysis, deferral or spent request, with the prompt's size and its
//     estimated tokens (bytes/4, labelled as an estimate), never its text.
package ledger
