#!/usr/bin/env bash
# cully's token figures for Claude Code sessions against ccusage's, on the
# same transcripts: every Claude Code transcript of CORPUS_DIR (as cully
# identifies them, bench/replaycorpus) read as the hook reads it
# (bench/tokens: each assistant message once, its last line's figures)
# and by `ccusage session --json --offline` alone (ccusage 20.0.24, from
# npm into a cache outside the repository on first use). Exits non-zero
# when a file's input, output, cache-write or cache-read figure differs.
#
#   bench/tokens.sh CORPUS_DIR
set -euo pipefail
corpus=$(cd "${1:?usage: bench/tokens.sh CORPUS_DIR}" && pwd)
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
version=20.0.24
cache=${XDG_CACHE_HOME:-$HOME/.cache}/cully-bench/ccusage
ccusage=$cache/node_modules/.bin/ccusage
if ! grep -qs "\"version\": \"$version\"" "$cache/node_modules/ccusage/package.json"; then
  command -v npm >/dev/null || { echo "bench/tokens.sh needs npm (Node.js) to install ccusage"; exit 1; }
  echo "installing ccusage@$version into $cache…"
  mkdir -p "$cache"
  npm install --prefix "$cache" --no-audit --no-fund --loglevel=error "ccusage@$version" >/dev/null
fi
go run ./bench/replaycorpus -corpus "$corpus" -out "$work/config" >/dev/null
go run ./bench/tokens -projects "$work/config/projects" -ccusage "$ccusage"
