#!/usr/bin/env bash
# cully's token figures for Claude Code sessions against ccusage's, on the
# same transcripts: every Claude Code transcript of CORPUS_DIR (as cully
# identifies them, bench/replaycorpus) read as the hook reads it
# (bench/tokens: each assistant message once, its last line's figures)
# and by `ccusage session --json --offline` alone (ccusage 20.0.24, from
# npm into a cache outside the repository on first use); and cully's
# estimated cost (package usage's price table) against ccusage's. Exits
# non-zero when a file's input, output, cache-write or cache-read figure
# differs, or when both price a file and the costs are more than 1% apart.
#
#   bench/tokens.sh CORPUS_DIR
set -euo pipefail
corpus=$(cd "${1:?usage: bench/tokens.sh CORPUS_DIR}" && pwd)
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. bench/ccusage.sh # sets $ccusage
go run ./bench/replaycorpus -corpus "$corpus" -out "$work/config" >/dev/null
go run ./bench/tokens -projects "$work/config/projects" -ccusage "$ccusage"
