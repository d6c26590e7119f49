#!/usr/bin/env bash
# Hook latency while another process holds the journal lock (issue: a
# repository command such as `flock -x $CULLY_HOME/journal.lock sleep 600`
# must not silence cully). bench/ratio runs, interleaved:
#   - free: cully-hook on a state dir whose lock nobody holds;
#   - held: cully-hook on a state dir whose journal.lock a background
#     `flock` holds for the whole run: its records go to pending/ (the first
#     call of the spell waits JournalWait, 50 ms, and is a warm-up round;
#     the rest only try the lock, see store/pending.go).
# The first call's wait is measured inside the process by
# `go test ./store -run '^$' -bench RecordLockHeld`.
# BEFORE=path/to/an/older/cully-hook adds that binary on a held state dir
# (one from before pending/ waits 2 s and records nothing), for
# $BEFORE_RUNS rounds of its own (default 10). RUNS sets the rounds
# (default 200).
set -euo pipefail
export CGO_ENABLED=0
cd "$(dirname "$0")/.."
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill -- "-$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
go build -o "$work/cully-hook" ./cmd/cully-hook
go build -o "$work/ratio" ./bench/ratio
post=hookbridge/claude/testdata/capture-sequence/007-PostToolUse-Read.json
for d in free held; do mkdir -m 700 "$work/$d"; done
touch "$work/held/journal.lock"
setsid flock -x "$work/held/journal.lock" sleep 100000 & pids+=($!)
common="CULLY_SNAPSHOTS=off CULLY_CONFIG=$work/none.toml CLAUDE_PROJECT_DIR=$work"
sleep 0.2
"$work/ratio" -runs "${RUNS:-200}" -stdin "$post" \
  "free=$common CULLY_HOME=$work/free $work/cully-hook" \
  "held=$common CULLY_HOME=$work/held $work/cully-hook"
n=$( { cat "$work"/held/pending/*.jsonl "$work"/held/journal.jsonl 2>/dev/null || true; } | wc -l)
echo "held: $n records kept (pending/ and journal) of $(( ${RUNS:-200} + 20 )) calls"
if [ -n "${BEFORE:-}" ]; then
  mkdir -m 700 "$work/before"
  touch "$work/before/journal.lock"
  setsid flock -x "$work/before/journal.lock" sleep 100000 & pids+=($!)
  sleep 0.2
  "$work/ratio" -runs "${BEFORE_RUNS:-10}" -warmup 1 -stdin "$post" \
    "before-held=$common CULLY_HOME=$work/before $BEFORE"
  n=$( { cat "$work"/before/journal.jsonl 2>/dev/null || true; } | wc -l)
  echo "before-held: $n records kept of $(( ${BEFORE_RUNS:-10} + 1 )) calls"
fi
