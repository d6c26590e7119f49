// Package checkout reads what a check's own output says about it: pass, fail
// or unknown, and the counts the runner printed.
//
// It exists because a check whose exit status is hidden (`go test ./... |
// tail -20`, `pytest; echo done`) still states its result in its output, and
// cully should not record such a run as unknown when the runner said plainly
// that it passed or failed.
//
// Invariants:
//
//   - Pure: no I/O, no clock, no package state that changes. Read is a
//     function of its arguments.
//   - No regexp: the hook binary must not link it (its start-up tables cost
//     every hook call). Every reader is a small scanner over bytes.
//   - Bounded input: Read looks at the head and the tail it is given and
//     nothing else; the caller bounds them (Split cuts an output into the
//     windows Read expects). Work is linear in their length, and the memory
//     Read uses does not grow with them (lines are judged in a fixed buffer;
//     a line longer than it is judged by its first bytes).
//   - Unknown rather than a guess: a pass needs the runner's own evidence,
//     seen in a part of the output that can carry it. Output that settles
//     nothing (empty where silence proves nothing, unrelated text, truncated
//     before any verdict) is unknown.
//   - Which evidence wins: a fail signal anywhere in the visible output (a
//     failing summary, a FAIL line, a compiler error, a wrapper's error line)
//     beats every pass signal. A pass then comes from, strongest first: the
//     runner's whole-run summary (pytest's `2 passed in 0.1s`, jest's `Test
//     Suites:`), which counts wherever it is seen, even through `| grep`; a
//     line that settles the run only at the end of the output (go test's last
//     package line, with no closing `FAIL`; cargo's last `test result: ok`;
//     mocha's `N passing` with no `failing` after it), which counts only when
//     the end of the output is visible (the command does not cut it with
//     `| head` or filter it with `| grep`); per-unit lines (go test's `ok`
//     lines), which count only when the whole output is visible; and silence,
//     for runners that print nothing on success (go vet, go build, tsc,
//     eslint, golangci-lint v1), which counts only when the command names the
//     runner itself, keeps its stderr and filters nothing.
//   - Outcome follows the exit status the runner would have given: pytest's
//     `no tests ran` (exit 5) and jest's `No tests found, exiting with code
//     1` are fails; go test's `[no test files]`, cargo's `0 passed` and
//     rspec's `0 examples, 0 failures` are passes (Counted, with zero counts,
//     so a caller can tell a vacuous pass).
//
// The command line picks the readers: a runner named in it (`go test`, `npx
// jest`, `uv run pytest`, `python -m mypy`, `bundle exec rspec`) is read by its
// own reader; a wrapper whose script cully cannot see (`make test`, `npm
// test`, `task test`, an unknown script) is read by every reader, and the
// output tells which runner ran. Wrappers' own error lines (`make: ***`,
// `npm ERR!`, `ELIFECYCLE`, `error Command failed`) and the shell's `command
// not found` are read always, and are fails.
package checkout
