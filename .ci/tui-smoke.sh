#!/usr/bin/env bash
# Terminal smoke test of ai-client: runs `ai-client --demo` in a detached tmux session
# (120x40), asks the demo model to write a file, approves the call with y from the
# approval table, and checks that the answer is on screen and the file exists in the
# demo workspace (./workspace under the current directory). Then it asks for the
# demo's help and checks that the answer streams: its first sentence is on screen
# while its last one is not yet. Then, scrolled up, it sends a message and finds the
# reply through the "new messages below (End)" notice and End. Under the moderate
# preset it approves a batch of two writes with s (approve and grant for the session)
# and checks that a later write in the same folder runs without asking. Last it quits,
# starts `ai-client --demo --session ID` and checks that the resumed session shows its
# decisions, marks and "verified"; there /undo, approved with y, removes the last
# written file from disk and marks its run "undone". Prints PASS or FAIL.
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

# start ARGS...: runs ai-client in the tmux session, with the test's own home, state
# and config folders. The pane stays open after ai-client exits so a crash message
# can be captured.
start() {
	tmux kill-session -t "$session" 2>/dev/null || true
	tmux new-session -d -s "$session" -x 120 -y 40 -c "$tmp/run" \
		"env HOME='$tmp/home' XDG_STATE_HOME='$tmp/state' XDG_CONFIG_HOME='$tmp/config' XDG_CACHE_HOME='$tmp/cache' AILAB_DEMO_PACE=60ms TERM=xterm-256color '$tmp/ai-client' $*; echo \"ai-client exited with \$?\"; sleep 600"
}

# send TEXT: types TEXT into the TUI and presses Enter.
send() {
	tmux send-keys -t "$session" -l "$1"
	tmux send-keys -t "$session" Enter
}

screen() { tmux capture-pane -p -t "$session"; }

# idle: wait until no turn runs (the busy line is gone), for a turn known to have
# started; a message sent while one runs would be refused.
idle() {
	local deadline=$((SECONDS + timeout_s))
	while ((SECONDS < deadline)); do
		if ! screen | grep -qE "(working|cancelling)… [0-9]+s"; then
			return 0
		fi
		sleep 0.2
	done
	fail "the turn did not end within ${timeout_s}s"
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
start --demo

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

# Scrolled up, a new message and its reply stay below the view, and the view says
# so; End goes to them. /help first makes the conversation taller than the screen.
send "/help"
wait_for "/grants"
for _ in 1 2 3; do tmux send-keys -t "$session" PPage; done
send "list files"
wait_for "new messages below (End)"
screen | grep -qF "✓ list_directory" && fail "the reply came into a view scrolled up"
tmux send-keys -t "$session" End
wait_for "✓ list_directory"
idle
screen | grep -qF "new messages below" && fail "the notice stays after End"

# A session grant: under moderate, s on the first write of a batch approves it and
# grants writes in its folder, which approves the batch's second write too; a later
# write there runs without asking. /preset says which file it rewrote: the demo's
# own copy of the config, never the repository's.
send "/preset moderate"
wait_for "Safety preset is now moderate"
wait_for "Written to $tmp/state/ai-lab/demo/demo-config.yaml"
send "create a file named a.txt with x and create a file named b.txt with y"
wait_for "Tool Approval Required"
tmux send-keys -t "$session" s
wait_for "Session grant: write files anywhere in the workspace for this session"
tmux send-keys -t "$session" y
wait_for "Granted for this session"
wait_for "✓ write_file path=b.txt, content=y"
idle
[[ -f "$tmp/run/workspace/a.txt" && -f "$tmp/run/workspace/b.txt" ]] || fail "a.txt and b.txt were not both written"
send "create a file named c.txt with z"
wait_for "path=c.txt, content=z (granted)"
idle
screen | grep -qF "Tool Approval Required" && fail "the write the grant covers was asked about"
[[ -f "$tmp/run/workspace/c.txt" ]] || fail "c.txt was not written"

# A resumed session reads as the live one did: decisions, marks and "verified".
id=$(screen | grep -oE 'session s_[0-9a-f]+' | head -1 | cut -d' ' -f2)
[[ -n "$id" ]] || fail "no session id in the status bar"
tmux send-keys -t "$session" C-c
wait_for "ai-client exited with 0"
start --demo --session "$id"
wait_for "Resumed session $id."
for want in "✓ approved write_file(path=a.txt, content=x)" "✓ approved write_file(path=b.txt, content=y)" "(granted)" "verified"; do
	screen | grep -qF -- "$want" || fail "the resumed session lacks \"$want\""
done

# /undo takes back the last turn that changed files (the write of c.txt): its
# preview names the file, y undoes it, the file is gone from disk, and the run's
# mark under the answer says "undone".
send "/undo"
wait_for "Undo turn"
wait_for "removed     c.txt"
wait_for "Undo these changes? y undoes them"
[[ -f "$tmp/run/workspace/c.txt" ]] || fail "the preview of /undo removed c.txt already"
tmux send-keys -t "$session" y
wait_for "Undid turn"
wait_for "· undone ·"
[[ -e "$tmp/run/workspace/c.txt" ]] && fail "c.txt is still there after /undo"
[[ -f "$tmp/run/workspace/a.txt" ]] || fail "/undo of the last turn took a.txt of an earlier turn too"

tmux send-keys -t "$session" C-c
echo "PASS: ai-client --demo wrote hello.txt after approval, streamed an answer, showed a reply below a scrolled view, granted writes for the session, resumed the session with its marks and undid its last write in tmux"
