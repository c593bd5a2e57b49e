#!/usr/bin/env bash
# Terminal smoke test of ai-client: runs `ai-client --demo` in a detached tmux session
# (120x40), asks the demo model to write a file, approves the call with y from the
# approval table, and checks that the answer is on screen and the file exists in the
# demo workspace (./workspace under the current directory). Then it asks for the
# demo's help and checks that the answer streams: its first sentence is on screen
# while its last one is not yet. Prints PASS or FAIL.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
session="ailab-smoke-$$"
timeout_s=${SMOKE_TIMEOUT:-30}

cleanup() {
	tmux kill-session -t "$session" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

fail() {
	echo "FAIL: $*"
	echo "---- screen ----"
	tmux capture-pane -p -t "$session" 2>/dev/null || true
	echo "----------------"
	exit 1
}

# wait_for TEXT: poll the screen until TEXT shows, up to $timeout_s seconds.
wait_for() {
	local deadline=$((SECONDS + timeout_s))
	while ((SECONDS < deadline)); do
		if tmux capture-pane -p -t "$session" | grep -qF -- "$1"; then
			return 0
		fi
		sleep 0.5
	done
	fail "\"$1\" did not appear within ${timeout_s}s"
}

command -v tmux >/dev/null || { echo "FAIL: tmux is not installed"; exit 1; }
(cd "$repo" && go build -o "$tmp/ai-client" ./cmd/ai-client) || { echo "FAIL: ai-client does not build"; exit 1; }

mkdir -p "$tmp/home" "$tmp/state" "$tmp/config" "$tmp/cache" "$tmp/run"
# The pane stays open after ai-client exits so a crash message can be captured.
tmux new-session -d -s "$session" -x 120 -y 40 -c "$tmp/run" \
	"env HOME='$tmp/home' XDG_STATE_HOME='$tmp/state' XDG_CONFIG_HOME='$tmp/config' XDG_CACHE_HOME='$tmp/cache' AILAB_DEMO_PACE=60ms TERM=xterm-256color '$tmp/ai-client' --demo; echo \"ai-client exited with \$?\"; sleep 600"

wait_for "AI Lab"
wait_for "│ demo model (offline) │"
tmux send-keys -t "$session" -l "create a file named hello.txt with hello from tmux"
tmux send-keys -t "$session" Enter
wait_for "Tool Approval Required"
tmux capture-pane -p -t "$session" | grep -qF "write_file" || fail "the approval table does not name write_file"
tmux send-keys -t "$session" y
wait_for "✓ approved write_file"
wait_for "✓ write_file"
# The demo model's answer reports the write, and the validation line sits under it.
wait_for "wrote"
wait_for "verified"

file="$tmp/run/workspace/hello.txt"
[[ -f "$file" ]] || fail "$file was not created"
grep -qF "hello from tmux" "$file" || fail "$file does not hold the text: $(cat "$file")"

# A streamed answer: the demo's help text arrives word by word (60 ms a word here),
# so its first sentence shows while its last has not been written yet.
tmux send-keys -t "$session" -l "hello"
tmux send-keys -t "$session" Enter
deadline=$((SECONDS + timeout_s))
while ((SECONDS < deadline)); do
	screen=$(tmux capture-pane -p -t "$session")
	if grep -qF "offline stand-in" <<<"$screen"; then
		grep -qF "To use a real model" <<<"$screen" && fail "the whole answer appeared at once: nothing streamed"
		break
	fi
	sleep 0.1
done
((SECONDS < deadline)) || fail "the streamed answer's first sentence did not appear within ${timeout_s}s"
wait_for "To use a real model"

tmux send-keys -t "$session" C-c
echo "PASS: ai-client --demo wrote hello.txt after approval and streamed an answer in tmux"
