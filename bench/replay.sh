#!/usr/bin/env bash
# Replay throughput against ccusage, the usage tool Claude Code users know,
# on the same transcripts:
#   - ccusage 20.0.24 (`ccusage session --json --offline`), installed from
#     npm into a cache outside the repository on first use;
#   - `cully replay` (built without cgo), which also runs every rule.
# The Claude Code transcripts of CORPUS_DIR (as cully identifies them) are
# laid out as a projects/ folder in a temporary CLAUDE_CONFIG_DIR, which
# both read (bench/replaycorpus: hard links, since ccusage follows no
# symbolic link). The two run interleaved, $ROUNDS (default 3) rounds each,
# order alternating, so machine drift hits both alike; it prints MB,
# seconds, MB/s and CPU seconds for each (medians), their ratio, and cully's
# peak resident memory (/usr/bin/time -v where installed, else getrusage
# through bench/timeit).
#
#   bench/replay.sh CORPUS_DIR
set -euo pipefail
export CGO_ENABLED=0 # as cully is built everywhere: no cgo start-up cost
corpus=$(cd "${1:?usage: bench/replay.sh CORPUS_DIR}" && pwd)
rounds=${ROUNDS:-3}
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

. bench/ccusage.sh # sets $ccusage

go build -o "$work/cully" ./cmd/cully
go build -o "$work/timeit" ./bench/timeit
go build -o "$work/replaycorpus" ./bench/replaycorpus
read -r files bytes all < <("$work/replaycorpus" -corpus "$corpus" -out "$work/config")
mb=$(awk -v b="$bytes" 'BEGIN {printf "%.1f", b / 1e6}')
echo "corpus: $corpus: $files Claude Code transcripts ($mb MB) of $all files"
export CLAUDE_CONFIG_DIR=$work/config # both read $CLAUDE_CONFIG_DIR/projects
"$work/cully" replay 2>/dev/null | tail -n 5 | head -n 4 | sed 's/^/cully: /'

gnutime=
[ -x /usr/bin/time ] && /usr/bin/time -v true 2>/dev/null && gnutime=/usr/bin/time
run_ccusage() { "$work/timeit" "$ccusage" session --json --offline; }
run_cully() {
  if [ -n "$gnutime" ]; then
    local out
    out=$("$work/timeit" "$gnutime" -v -o "$work/time.txt" "$work/cully" replay)
    echo "${out% *} $(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/time.txt")"
  else
    "$work/timeit" "$work/cully" replay
  fi
}
run_ccusage >/dev/null # warm the page cache and the binaries
run_cully >/dev/null
: >"$work/ccusage.t"
: >"$work/cully.t"
for ((r = 1; r <= rounds; r++)); do
  if ((r % 2)); then
    run_ccusage >>"$work/ccusage.t"
    run_cully >>"$work/cully.t"
  else
    run_cully >>"$work/cully.t"
    run_ccusage >>"$work/ccusage.t"
  fi
  printf 'round %d: ccusage %s s, cully %s s\n' "$r" "$(tail -n 1 "$work/ccusage.t" | cut -d' ' -f1)" "$(tail -n 1 "$work/cully.t" | cut -d' ' -f1)"
done

# median of column $1 of a file
median() { cut -d' ' -f"$1" "$2" | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
cc_wall=$(median 1 "$work/ccusage.t")
cu_wall=$(median 1 "$work/cully.t")
echo
printf '%-8s %8s %9s %9s %9s\n' tool MB "wall s" "MB/s" "CPU s"
for t in ccusage cully; do
  w=$(median 1 "$work/$t.t")
  awk -v t="$t" -v mb="$mb" -v w="$w" -v c="$(median 2 "$work/$t.t")" \
    'BEGIN {printf "%-8s %8.1f %9.3f %9.0f %9.3f\n", t, mb, w, mb / w, c}'
done
awk -v a="$cc_wall" -v b="$cu_wall" 'BEGIN {printf "cully/ccusage throughput: %.2f (wall time ccusage/cully)\n", a / b}'
rss=$(cut -d' ' -f3 "$work/cully.t" | sort -n | tail -n 1)
src="getrusage"
[ -n "$gnutime" ] && src="/usr/bin/time -v"
awk -v k="$rss" -v s="$src" 'BEGIN {printf "cully peak RSS: %.1f MB (%s)\n", k / 1024, s}'
