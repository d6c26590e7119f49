#!/usr/bin/env bash
# The hook's wall time on every case of the hostile suite (cmd/cully's
# TestHookHostileSuite: payloads of all six hosts, state-dir faults, lock
# holders, hostile environments), one case at a time so that no case's
# figure is another's load: how many cases, the median, the 95th
# percentile, the slowest, and every case over 100 ms with its payload's
# size. A figure to read, not a test: the suite itself asserts what the
# hook does, never how fast.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp)
trap 'rm -f "$out"' EXIT
CULLY_LONG_TESTS=1 CULLY_HOSTILE_TIMES="$out" go test -count=1 -parallel 1 -run '^TestHookHostileSuite$' ./cmd/cully >/dev/null
sort -n "$out" | awk -F'\t' '
  { t[NR] = $1; if ($1 > 100000) slow[++n] = sprintf("| %s | %.0f ms | %d bytes |", $3, $1/1000, $2) }
  END {
    printf "| cases | median | p95 | slowest |\n| ---: | ---: | ---: | ---: |\n"
    printf "| %d | %.1f ms | %.1f ms | %.0f ms |\n\n", NR, t[int(NR/2)+1]/1000, t[int(NR*0.95)]/1000, t[NR]/1000
    if (n) { printf "over 100 ms:\n\n| case | wall | payload |\n| --- | ---: | ---: |\n"; for (i = n; i >= 1; i--) print slow[i] }
  }'
