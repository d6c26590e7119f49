#!/usr/bin/env bash
# The delay each hook mode adds to every tool call in the real Claude Code
# client (the pinned one the e2e tests install from npm), against no hooks:
# the mock model times the client from its tool call to the next request.
# Modes: no-op command hooks (the client's own cost), cully-hook as
# installed, cully-hook without PostToolBatch, http hooks to `cully daemon`,
# and http hooks with the daemon down. CALLS and ROUNDS set the sample
# (default 40 calls x 3 rounds per mode, interleaved).
set -euo pipefail
cd "$(dirname "$0")/.."
CULLY_DELAY_CALLS=${CALLS:-40} CULLY_DELAY_ROUNDS=${ROUNDS:-3} \
  go test -tags e2e -count=1 -run '^TestHookDelay$' -v ./e2e/ 2>&1 |
  grep -E 'delay_test.go:[0-9]+: (per tool call|mode|none|no-op|cully|http)' | sed -E 's/^ *delay_test.go:[0-9]+: //'
