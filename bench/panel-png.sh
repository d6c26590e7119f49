#!/usr/bin/env bash
# Pictures of the panel, to look at it as a user would: the real `cully
# panel` on a demo state dir (the scripted `cully demo` session, plus two
# more sessions in other projects), run in tmux at 32, 56, 80, 120 and 200
# columns in a dark and a light terminal; each pane captured with its
# escapes (tmux capture-pane -e -p), turned into HTML by bench/ansi2html,
# and photographed by headless Chromium. Writes docs/img/panel-W.png and
# panel-W-light.png, and a few views after keys (details, help).
#
# Needs tmux, git and chromium (Debian: apt-get install -y chromium).
# OUT=dir writes elsewhere; ROWS sets the height (default 40); KEEP=dir
# keeps each capture and page there (NAME.ansi, NAME.html).
set -euo pipefail
export CGO_ENABLED=0
cd "$(dirname "$0")/.."
out=${OUT:-docs/img}
rows=${ROWS:-40}
browser=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
if [ -z "$browser" ]; then
	echo "panel-png: no chromium (Debian: apt-get install -y chromium)" >&2
	exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
go build -o "$work/cully" ./cmd/cully
go build -o "$work/ansi2html" ./bench/ansi2html
go build -o "$work/pngshrink" ./bench/pngshrink

# The demo session, kept: its state dir and project.
"$work/cully" demo --headless --keep >"$work/demo.txt"
home=$(sed -n 's/^state dir: //p' "$work/demo.txt")
project=$(dirname "$home")/project
trap 'for s in "$work"/*.sock; do tmux -S "$s" kill-server 2>/dev/null || true; done; rm -rf "$work" "$(dirname "$home")"' EXIT
git -C "$project" init -q -b fix-empty-input
# Stop the story before the fix (the last edit, the passing test, the end
# of the turn: five records), so the pictures show what needs the user.
head -n -5 "$home/journal.jsonl" >"$work/journal" && cat "$work/journal" >"$home/journal.jsonl"
session=$(sed -n 's/.*"session":"\(demo-[^"]*\)".*/\1/p' "$home/journal.jsonl" | head -1)
rm -f "$home/sessions/"*.json
CULLY_HOME="$home" CULLY_CONFIG="$home/none.toml" "$work/cully" status --rebuild --session "$session" >/dev/null

# Two more sessions through the real hook: webapp on track, infra ended.
hook() { # session cwd minutes-ago json-tail
	local now
	now=$(date -u -d "-$3 min" +%Y-%m-%dT%H:%M:%SZ)
	printf '{"session_id":"%s","cwd":"%s",%s}' "$1" "$2" "$4" |
		CULLY_HOME="$home" CULLY_CONFIG="$home/none.toml" CULLY_NOW="$now" "$work/cully" hook >/dev/null
}
web="$work/src/webapp"
infra="$work/src/infra"
mkdir -p "$web" "$infra"
git -C "$web" init -q -b main
hook web-5d2e "$web" 41 '"hook_event_name":"UserPromptSubmit","prompt":"add the settings page"'
for i in 1 2 3 4 5 6; do
	hook web-5d2e "$web" $((40 - i)) '"hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":{"file_path":"'"$web"'/src/settings'$i'.tsx","old_string":"a","new_string":"b"},"tool_use_id":"w'$i'"'
	hook web-5d2e "$web" $((40 - i)) '"hook_event_name":"PostToolUse","tool_name":"Edit","tool_input":{"file_path":"'"$web"'/src/settings'$i'.tsx","old_string":"a","new_string":"b"},"tool_response":{},"tool_use_id":"w'$i'"'
done
hook web-5d2e "$web" 33 '"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"npm test"},"tool_use_id":"w9"'
hook web-5d2e "$web" 33 '"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"npm test"},"tool_response":{"stdout":"Tests: 14 passed, 14 total","stderr":"","interrupted":false},"tool_use_id":"w9"'
hook infra-9a1b "$infra" 190 '"hook_event_name":"UserPromptSubmit","prompt":"plan the staging change"'
hook infra-9a1b "$infra" 189 '"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"terraform plan"},"tool_use_id":"i1"'
hook infra-9a1b "$infra" 188 '"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"terraform plan"},"tool_response":{"stdout":"","stderr":"","interrupted":false},"tool_use_id":"i1"'
hook infra-9a1b "$infra" 187 '"hook_event_name":"SessionEnd","reason":"exit"'

# shot NAME COLS THEME [KEYS...]: run the panel, press the keys, capture.
shot() {
	local name=$1 cols=$2 theme=$3
	shift 3
	local fg bg
	if [ "$theme" = light ]; then fg='#1f1f1f' bg='#fafafa'; else fg='#d8d8d8' bg='#1e1e2e'; fi
	local sock="$work/$name.sock"
	# The window style is what tmux answers the panel's background query
	# with, so the panel picks its light or dark colours as in a real terminal.
	tmux -S "$sock" -f /dev/null start-server \; set -g window-style "bg=$bg,fg=$fg" \; \
		new-session -d -s p -x "$cols" -y "$rows" \
		"env CULLY_HOME=$home CULLY_CONFIG=$home/none.toml TERM=xterm-256color COLORTERM=truecolor $work/cully panel --session $session; sleep 60"
	until tmux -S "$sock" capture-pane -p -t p | grep -q 'Recent'; do sleep 0.05; done
	sleep 0.4 # the background colour's answer restyles the panel
	for k in "$@"; do
		tmux -S "$sock" send-keys -t p "$k"
		sleep 0.15
	done
	tmux -S "$sock" capture-pane -e -p -t p >"$work/$name.ansi"
	"$work/ansi2html" -cols "$cols" -rows "$rows" -fg "$fg" -bg "$bg" <"$work/$name.ansi" >"$work/$name.html"
	# 13px DejaVu Sans Mono advances 7.83px a cell; lines are 17px; 12px padding.
	local w h
	w=$(awk -v c="$cols" 'BEGIN { printf "%d", c * 7.83 + 24 + 8 }')
	h=$((rows * 17 + 24))
	"$browser" --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update \
		--disable-sync --no-first-run --hide-scrollbars --user-data-dir="$(mktemp -d -p "$work")" \
		--screenshot="$out/$name.png" --window-size="$w,$h" "file://$work/$name.html" >/dev/null 2>&1
	"$work/pngshrink" "$out/$name.png"
	tmux -S "$sock" kill-server 2>/dev/null || true
	if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP" && cp "$work/$name.ansi" "$work/$name.html" "$KEEP/"; fi
	echo "$out/$name.png ($(stat -c %s "$out/$name.png") bytes)"
}

for cols in 32 56 80 120 200; do
	shot "panel-$cols" "$cols" dark
	shot "panel-$cols-light" "$cols" light
done
# After keys: a guard read in full, and the help overlay, at the --split width.
shot panel-56-guard 56 dark j j j Enter
shot panel-56-help 56 dark '?'
