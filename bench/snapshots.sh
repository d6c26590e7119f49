#!/usr/bin/env bash
# Run control on a large repository, through the real binaries:
#   - a generated repository of FILES (default 10,000) files, SIZE_MB
#     (default 1,024) MB committed, plus a 20 MB untracked file that never
#     changes;
#   - PROMPTS (default 20) prompts, each followed by an agent call that
#     rewrites EDITS (default 20) files with new random content (what a
#     rollback must be able to give back), each call marked as the hook
#     marks it; after each prompt, the store's size;
#   - the hook's wall time for a PreToolUse of a mutating shell call (the
#     one that waits for its "before" mark), and of a read-only one, over
#     CALLS (default 100) calls each: median and p99.
# Store growth is read against the distinct content written (the calls'
# new files, and the untracked file once): the target is at most 1.1x.
# The committed files cost the store nothing: it borrows the repository's
# own objects. The repository lives in a
# temporary folder (about SIZE_MB of disk, twice during the commit).
set -euo pipefail
export CGO_ENABLED=0
cd "$(dirname "$0")/.."
FILES=${FILES:-10000} SIZE_MB=${SIZE_MB:-1024} PROMPTS=${PROMPTS:-20} EDITS=${EDITS:-20} CALLS=${CALLS:-100}
work=$(mktemp -d)
cleanup() { for _ in 1 2 3 4 5 6 7 8 9 10; do rm -rf "$work" 2>/dev/null && return; sleep 0.5; done; rm -rf "$work"; }
trap cleanup EXIT
go build -o "$work/cully" ./cmd/cully
go build -o "$work/cully-hook" ./cmd/cully-hook
repo=$work/repo
mkdir -p "$repo"
per=$((SIZE_MB * 1024 * 1024 / FILES))
echo "generating $FILES files of $per bytes ($SIZE_MB MB) ..." >&2
python3 - "$repo" "$FILES" "$per" <<'EOF'
import os, sys
root, n, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for i in range(n):
    d = os.path.join(root, "pkg%03d" % (i // 100))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f%05d.txt" % i), "wb") as f:
        f.write(os.urandom(per))
EOF
git -C "$repo" init -q
git -C "$repo" add -A
git -C "$repo" -c user.email=b@e -c user.name=b commit -qm init
head -c 20000000 /dev/urandom > "$repo/untracked.bin"

export HOME=$work/home CULLY_HOME=$work/state CLAUDE_PROJECT_DIR=$repo CULLY_SNAPSHOTS=on CULLY_SNAPSHOT_LINGER=2s
mkdir -p "$HOME"
n=0
hook() { # EVENT EXTRA-JSON
	n=$((n + 1))
	printf '{"session_id":"bench","hook_event_name":"%s","cwd":"%s","tool_use_id":"t%d"%s}' "$1" "$repo" "$n" "$2" |
		(cd "$repo" && "$work/cully-hook")
}
store_bytes() { du -sb "$CULLY_HOME/stores" 2>/dev/null | cut -f1; }
now_ns() { date +%s%N; }

written=0
printf '%6s  %12s  %12s  %10s  %10s\n' prompt store_bytes written_bytes baseline_s edit_call_ms
for p in $(seq 1 "$PROMPTS"); do
	t0=$(now_ns)
	hook UserPromptSubmit ',"prompt":"work"' >/dev/null
	(cd "$repo" && "$work/cully" snapshot --wait >/dev/null)
	t1=$(now_ns)
	# One agent call rewrites EDITS files: distinct new content.
	cmd=',"tool_name":"Bash","tool_input":{"command":"./regen"}'
	n0=$n
	hook PreToolUse "$cmd" >/dev/null
	for e in $(seq 1 "$EDITS"); do
		i=$(( (p * 97 + e * 13) % FILES ))
		f=$(printf '%s/pkg%03d/f%05d.txt' "$repo" $((i / 100)) "$i")
		head -c "$per" /dev/urandom > "$f"
		written=$((written + per))
	done
	n=$n0 # the post has its pre's id
	hook PostToolUse "$cmd,\"tool_response\":{\"stdout\":\"\",\"exit_code\":0}" >/dev/null
	t2=$(now_ns)
	printf '%6d  %12d  %12d  %10.2f  %10.1f\n' "$p" "$(store_bytes)" "$written" "$(echo "($t1-$t0)/1000000000" | bc -l)" "$(echo "($t2-$t1)/1000000" | bc -l)"
done
distinct=$((written + 20000000)) # the calls' new content, and the untracked file once
growth=$(store_bytes)
echo "store: $growth bytes for $distinct bytes of distinct content ($(echo "scale=3; $growth/$distinct" | bc -l)x: the untracked 20 MB file held once, trees and indexes included)"

# The hook's wall time for a PreToolUse: mutating (waits for its mark) and read-only.
time_pre() { # TOOL-JSON
	local out=()
	for _ in $(seq 1 "$CALLS"); do
		local a b
		a=$(now_ns)
		hook PreToolUse "$1" >/dev/null
		b=$(now_ns)
		out+=($(( (b - a) / 1000 )))
		n=$((n - 1))
		hook PostToolUse "$1,\"tool_response\":{\"stdout\":\"\",\"exit_code\":0}" >/dev/null
	done
	printf '%s\n' "${out[@]}" | sort -n | awk '{v[NR]=$1} END {printf "median %.1f ms, p99 %.1f ms (%d calls)\n", v[int((NR+1)/2)]/1000, v[int(NR*0.99+0.999)]/1000, NR}'
}
echo "PreToolUse, mutating shell call (echo x >> notes.txt): $(time_pre ',"tool_name":"Bash","tool_input":{"command":"echo x >> notes.txt"}')"
echo "PreToolUse, read-only shell call (git status):        $(time_pre ',"tool_name":"Bash","tool_input":{"command":"git status"}')"
