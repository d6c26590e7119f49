#!/usr/bin/env bash
# 16 concurrent writers: $WRITERS processes (default 16) each running
# cully-hook $CALLS times (default 200) as fast as they can, first each in
# its own session, then all in one session (contending for its lock); the
# journal's events per second, and a check that every line arrived whole.
set -euo pipefail
export CGO_ENABLED=0
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/cully-hook" ./cmd/cully-hook
go build -o "$work/cully" ./cmd/cully
writers=${WRITERS:-16}
calls=${CALLS:-200}
payload=hookbridge/claude/testdata/capture-sequence/007-PostToolUse-Read.json
for mode in own-session one-session; do
  state="$work/$mode"
  mkdir -m 700 "$state"
  start=$(date +%s%N)
  for w in $(seq "$writers"); do
    sid="writer-$w"
    [ "$mode" = one-session ] && sid="shared"
    sed "s/\"session_id\": *\"[^\"]*\"/\"session_id\": \"$sid\"/" "$payload" > "$work/p-$w.json"
    (for _ in $(seq "$calls"); do CULLY_SNAPSHOTS=off CULLY_HOME="$state" "$work/cully-hook" < "$work/p-$w.json" > /dev/null; done) &
  done
  wait
  end=$(date +%s%N)
  n=$(wc -l < "$state/journal.jsonl")
  ms=$(( (end - start) / 1000000 ))
  bad=$(CULLY_HOME="$state" "$work/cully" doctor 2>/dev/null | grep -c 'corrupt' || true)
  echo "$mode: $writers writers x $calls calls: $n records in $ms ms = $(( n * 1000 / ms )) events/s; $(CULLY_HOME="$state" "$work/cully" doctor 2>/dev/null | grep 'journal:' | head -1 | sed 's/^ *//')"
  [ "$n" -eq $(( writers * calls )) ] || { echo "lost records: $n of $(( writers * calls ))"; exit 1; }
done
