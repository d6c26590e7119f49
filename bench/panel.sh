#!/usr/bin/env bash
# Panel measurements: time to first full frame on a journal of $EVENTS
# (default 1M) events, resident memory, and CPU used over $IDLE (default
# 60) idle seconds. Needs tmux.
set -euo pipefail
export CGO_ENABLED=0 # as cully is built everywhere: no cgo start-up cost
cd "$(dirname "$0")/.."
work=$(mktemp -d)
sock="$work/tmux.sock"
trap 'tmux -S "$sock" kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
events=${EVENTS:-1000000}
idle=${IDLE:-60}
go build -o "$work/cully" ./cmd/cully
echo "filling a journal with $events events…"
CULLY_HOME="$work/state" go run ./bench/fill -events "$events"
ls -la "$work/state"/journal*.jsonl | awk '{s+=$5} END {printf "journal: %.0f MiB\n", s/1048576}'

start=$(date +%s%N)
tmux -S "$sock" new-session -d -s p -x 60 -y 40 "env CULLY_HOME=$work/state $work/cully panel --session 0e9b095a-15ce-4954-9bab-4ee72ac1d24e"
until tmux -S "$sock" capture-pane -p -t p | grep -q 'Recent'; do sleep 0.005; done
end=$(date +%s%N)
echo "time to first full frame: $(( (end - start) / 1000000 )) ms"
# The pane's own process (env execs cully): on a shared machine the newest
# process named cully may be someone else's.
pid=$(tmux -S "$sock" display-message -p -t p '#{pane_pid}')
cpu() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
echo "resident memory: $(awk '/VmRSS/ {print $2, $3}' /proc/$pid/status)"
c0=$(cpu)
sleep "$idle"
c1=$(cpu)
tck=$(getconf CLK_TCK)
echo "CPU over $idle idle seconds: $(( (c1 - c0) * 1000 / tck )) ms"
echo "resident memory after: $(awk '/VmRSS/ {print $2, $3}' /proc/$pid/status)"
