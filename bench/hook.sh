#!/usr/bin/env bash
# Hook latency: `cully hook` per call against a minimal Go program that reads
# stdin, appends one line under flock and prints {} (bench/minimal), on an
# empty journal and on one of 1M events. Uses hyperfine when present
# (Debian: apt-get install hyperfine), else Go's benchmark harness.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/cully" ./cmd/cully
go build -o "$work/minimal" ./bench/minimal
payload=hookbridge/testdata/claude/capture-sequence/064-PreToolUse-Read.json
post=hookbridge/testdata/claude/capture-sequence/007-PostToolUse-Read.json
events=${EVENTS:-1000000}

mkdir -p "$work/empty" "$work/big" "$work/min"
echo "filling a journal with $events events…"
CULLY_HOME="$work/big" go run ./bench/fill -events "$events"

if command -v hyperfine >/dev/null; then
  hyperfine -N --version >/dev/null 2>&1 || true
  hyperfine -w 30 -r "${RUNS:-300}" \
    -n minimal "CULLY_HOME=$work/min $work/minimal < $post" \
    -n "cully hook (empty journal)" "CULLY_HOME=$work/empty $work/cully hook < $post" \
    -n "cully hook ($events-event journal)" "CULLY_HOME=$work/big $work/cully hook < $post" \
    -n "cully hook PreToolUse ($events-event journal)" "CULLY_HOME=$work/big $work/cully hook < $payload"
else
  CULLY_BENCH_BIN="$work" go test -run '^$' -bench . -benchtime "${RUNS:-300}x" ./bench/
fi
