#!/usr/bin/env bash
# Hook latency per call, measured as whole processes, interleaved so machine
# drift hits every command alike (bench/ratio):
#   - minimal: a Go program that reads stdin, appends one line under flock and
#     prints {} (bench/minimal) — the baseline;
#   - cully-hook, the lean hook binary `cully install` wires in: a new
#     session on an empty journal, the same on a journal of $EVENTS (default
#     1M) events (flat in journal size), and a session at its state caps
#     (256 files, 64 commands: the most state a call decodes and encodes);
#   - `cully hook` in the full binary, for comparison;
#   - cully-hook and the minimal hook again, last, read back from disk
#     (bench/evict).
# Every binary but the read-back ones runs from COPIES (default 3) copies
# of itself in turn. EVENTS, RUNS, COPIES change the journal's size, the
# rounds and the copies.
# With hyperfine installed (Debian: apt-get install hyperfine), a hyperfine
# run follows for its statistics.
set -euo pipefail
export CGO_ENABLED=0 # as cully is built everywhere: no cgo start-up cost
cd "$(dirname "$0")/.."
root=$PWD
work=$(mktemp -d)
# Snapshot servers (`cully snapshot --serve`) may still be writing into
# their state dirs as the script ends; each stops once its dir is gone, so
# the removal is retried until they have.
cleanup() { for _ in 1 2 3 4 5 6 7 8 9 10; do rm -rf "$work" 2>/dev/null && return; sleep 0.5; done; rm -rf "$work"; }
trap cleanup EXIT
mkdir "$work/build"
go build -o "$work/build/cully" ./cmd/cully
# The hook and its baseline are built as the release builds cully-hook
# (.goreleaser.yaml): a plain build, no GC experiment, no runtime settings.
go build -o "$work/build/cully-hook" ./cmd/cully-hook
go build -o "$work/build/minimal" ./bench/minimal
go build -o "$work/ratio" ./bench/ratio
# Every measured binary is a copy, as an installed one is (an archive
# unpacked, a file copied): a binary the Go linker has just written runs
# slower on this machine until the page cache drops it (measured with
# bench/ratio: 0.09 ms per call for the minimal hook, 0.12 ms for
# cully-hook, and not always the same for two builds), so comparing two
# fresh builds compared their page-cache luck.
for b in cully cully-hook minimal; do cp "$work/build/$b" "$work/$b"; done
rm -r "$work/build"
post=hookbridge/claude/testdata/capture-sequence/007-PostToolUse-Read.json
pre=hookbridge/claude/testdata/capture-sequence/064-PreToolUse-Read.json
events=${EVENTS:-1000000}
runs=${RUNS:-300}
# Each binary runs from $COPIES copies of itself in turn (bench/ratio
# -copies): one copy's luck with where its pages landed in memory moved
# its time by up to 5% here, run after run; several measure the binary.
copies=${COPIES:-3}
mkdir -m 700 "$work/empty" "$work/big" "$work/capped" "$work/min" # state dirs must be private, whatever the umask
echo "filling two journals with $events events each…"
go build -o "$work/fill" ./bench/fill
CULLY_HOME="$work/big" "$work/fill" -events "$events" -hot fill-none # the payloads' session is not in it
CULLY_HOME="$work/capped" "$work/fill" -events "$events"            # the payloads' session is, at its caps
ls -la "$work/big" | grep journal
# The payloads' project, a directory that exists (snapshots are asked
# for every 10 calls and taken of it in the background, as by default).
mkdir -p "$work/home/dev/project"
export CLAUDE_PROJECT_DIR=$work/home/dev/project

# cully-hook runs as `cully install` wires it for Claude Code, whose
# payloads these are: with the hook's environment before the command
# (install.HookEnv, GOMAXPROCS=1, which Claude Code's shell sets before the
# runtime starts, and so do Codex's (bash, zsh or sh: all but PowerShell
# users) and Cursor's (bash or zsh; bare for a user whose shell would not
# take it, a file the team commits, and Windows); Gemini CLI and Copilot
# CLI get it in their entries' own env, opencode from cully's plugin). The
# same binary without it (as those bare cases run it) is a row of its own,
# and so is a minimal hook given it.
hookvars=GOMAXPROCS=1
mkdir -m 700 "$work/bare"
for payload in "$post" "$pre"; do
  echo; echo "payload: $(basename "$payload")"
  "$work/ratio" -runs "$runs" -copies "$copies" -beside cully -stdin "$payload" \
    "minimal=CULLY_HOME=$work/min $work/minimal" \
    "minimal, with the hook's environment=$hookvars CULLY_HOME=$work/min $work/minimal" \
    "cully-hook, empty journal=$hookvars CULLY_HOME=$work/empty $work/cully-hook" \
    "cully-hook, $events-event journal=$hookvars CULLY_HOME=$work/big $work/cully-hook" \
    "cully-hook, session at its caps=$hookvars CULLY_HOME=$work/capped $work/cully-hook" \
    "cully-hook bare, empty=CULLY_HOME=$work/bare $work/cully-hook" \
    "cully hook (full binary), $events events=$hookvars CULLY_HOME=$work/big $work/cully hook"
done

# Run control: with snapshots on, every 10th PostToolUse of the session
# asks the state dir's snapshot server (`cully snapshot --serve`, started
# by the first ask) for a snapshot of the project (here a committed git
# repository of 2,000 files, 4 KiB each on average); the hook's part is a
# small file and a lock probe. The snapshot's own git work then runs beside
# the next calls, on the same 2 cores.
if command -v git >/dev/null; then
  repo="$work/repo"
  line=$(printf 'x%.0s' $(seq 63))
  for i in $(seq 0 1999); do
    d="$repo/$(printf pkg%03d $((i / 20)))"
    mkdir -p "$d"
    printf "$line\n%.0s" $(seq $((32 + i % 64))) > "$d/$(printf file%04d.go "$i")"
  done
  (cd "$repo" && git init -q && git add -A && git -c user.email=b@e -c user.name=b commit -qm init)
  mkdir -m 700 "$work/snap-off" "$work/snap-on"
  echo; echo "run control: payload $(basename "$post"), project: a 2,000-file git repository"
  CLAUDE_PROJECT_DIR="$repo" "$work/ratio" -runs "$runs" -copies "$copies" -beside cully -stdin "$post" \
    "minimal=CULLY_HOME=$work/min $work/minimal" \
    "cully-hook, snapshots off=$hookvars CULLY_SNAPSHOTS=off CULLY_HOME=$work/snap-off $work/cully-hook" \
    "cully-hook, a snapshot every 10 calls=$hookvars CULLY_SNAPSHOTS=on CULLY_HOME=$work/snap-on $work/cully-hook"
  CULLY_HOME="$work/snap-on" "$work/cully" snapshot --wait --timeout 5m >/dev/null
  echo "snapshots written: $(ls "$work"/snap-on/runs/*/snapshot-*.json | wc -l)"
fi

# Every adapter: one tool call's after-event of each agent, from its
# captured payloads (opencode's is what its plugin sends), through
# `cully-hook --agent NAME`, each in a state dir of its own, all in one
# interleaved run (each command fed its own payload) so that every adapter
# meets the same machine, beside the minimal hook fed each payload in turn:
# as many minimal runs as cully-hook runs, so that each command follows
# either about as often (a command run right after its own binary runs
# warmer). Snapshots are off here: six state dirs would run six snapshot
# servers beside the run (the run-control section above measures what
# snapshots cost). The commands run in the project folder: the agents that
# name none in their environment take the working directory for it.
echo; echo "every adapter: one after-tool payload each"
(
  cd "$work/home/dev/project"
  set --
  mins=()
  for p in "claude hookbridge/claude/testdata/capture-sequence/007-PostToolUse-Read.json" \
    "codex hookbridge/codex/testdata/block/1796013122520003136-PostToolUse.json" \
    "gemini hookbridge/gemini/testdata/capture/006-AfterTool-read_file.json" \
    "copilot hookbridge/copilot/testdata/capture-sequence/004-postToolUse-view.json" \
    "cursor hookbridge/cursor/testdata/hooks/afterShellExecution-check-pass.json" \
    "opencode bench/payloads/opencode-tool.execute.after.json"; do
    a=${p%% *} f=$root/${p#* } vars=$hookvars # as install wires each agent
    # Copilot CLI's payloads do not name their event: install puts it in
    # each entry's environment beside the hook's.
    [ "$a" = copilot ] && vars="$vars CULLY_HOOK_EVENT=postToolUse"
    mkdir -m 700 "$work/agent-$a"
    if [ "$a" = codex ]; then
      # Codex's PostToolUse reads the session's rollout on from where the
      # last call stopped (the call's exit code is there): the captured
      # rollout, at the path the payload names. After the first call there
      # is nothing new to read, where a real call reads its few new lines.
      cp "$root/hookbridge/codex/testdata/block/rollout.jsonl" "$work/agent-codex/rollout.jsonl"
      sed "s|\"transcript_path\": *\"[^\"]*\"|\"transcript_path\":\"$work/agent-codex/rollout.jsonl\"|" "$f" >"$work/agent-codex/payload.json"
      grep -q "$work/agent-codex/rollout.jsonl" "$work/agent-codex/payload.json"
      f=$work/agent-codex/payload.json
    fi
    set -- "$@" "$a ($(basename "${p#* }" .json))=$vars CULLY_SNAPSHOTS=off CULLY_HOME=$work/agent-$a $work/cully-hook --agent $a <$f"
    mins+=("minimal, $a's payload=CULLY_HOME=$work/min $work/minimal <$f")
  done
  "$work/ratio" -runs "$runs" -copies "$copies" -beside cully "${mins[@]}" "$@"
)

# The same binaries read back from disk: each is written out and dropped
# from the page cache (bench/evict), so that the first run reads it back as
# after a reboot, or once the kernel has let an idle binary's pages go —
# where an installed hook spends most of its life. The copies measured
# above still have the pages the copy wrote, and their figure moves with
# each run's copies (docs/performance.md); read back, runs agree better.
# The hook and its baseline only: the snapshot servers the sections above
# started run cully, whose pages they keep mapped (so cannot be dropped).
if ! go build -o "$work/evict" ./bench/evict || ! "$work/evict" "$work/cully-hook" "$work/minimal" >/dev/null; then
  echo; echo "read back from disk: skipped (bench/evict could not drop the binaries from the page cache here)"
else
  echo; echo "read back from disk: payload $(basename "$post")"
  "$work/ratio" -runs "$runs" -stdin "$post" \
    "minimal=CULLY_HOME=$work/min $work/minimal" \
    "cully-hook, empty journal=$hookvars CULLY_HOME=$work/empty $work/cully-hook" \
    "cully-hook, $events-event journal=$hookvars CULLY_HOME=$work/big $work/cully-hook" \
    "cully-hook, session at its caps=$hookvars CULLY_HOME=$work/capped $work/cully-hook" \
    "cully-hook bare, empty=CULLY_HOME=$work/bare $work/cully-hook"
fi

# Every call above was recorded: a payload the hook refuses (logged to
# errors.log as the hook's, and fast, since it stops before the state and
# the journal) would measure the wrong path. (The filled session at its
# caps has a run whose start was never snapshotted, so the snapshots asked
# for it log errors of their own.)
bad=0
for d in "$work"/empty "$work"/big "$work"/capped "$work"/bare "$work"/agent-* "$work"/snap-*; do
  [ -d "$d" ] || continue # no snap-* dirs where git is missing (the run-control section is skipped)
  if grep -s -m3 '"op":"hook"' "$d/errors.log" >&2 || [ ! -s "$d/journal.jsonl" ]; then
    echo "bench: $d recorded no call or logged the hook's errors (above)" >&2
    bad=1
  fi
done
[ "$bad" = 0 ] || exit 1

if command -v hyperfine >/dev/null; then
  echo
  hyperfine -w 30 -r "$runs" \
    -n minimal "CULLY_HOME=$work/min $work/minimal < $post" \
    -n "cully-hook ($events-event journal)" "CULLY_HOME=$work/big $work/cully-hook < $post"
fi
