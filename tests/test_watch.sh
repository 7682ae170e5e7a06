#!/bin/sh
# kbtui watch: a transcript that grows while it is shown. Events appended
# from the shell appear, the view follows the tail unless the user moved
# away (G follows again), a truncated or vanished file is read again,
# escape sequences arriving live stay visible escapes (helpers in
# tests/tmux.sh).
. "$KB_SRCDIR/tests/tmux.sh"

run="$tmp/run"
f="$run/transcript.jsonl"
mkdir -p "$run"
# grok lines: consecutive text (or thought) lines are one event growing
ev() { printf '{"type":"text","data":"%s"}\n' "$1" >> "$f"; }
th() { printf '{"type":"thought","data":"%s"}\n' "$1" >> "$f"; }

# ---- a file that is not there yet, then grows -------------------------------
start w "$kb" watch "$f"
t "before the file exists the indicator says it waits" 'wait_for w "WAITING for the file \\| event 0/0"'
printf '%s\n' '{"type":"thought","data":"Read the reference first."}' >> "$f"
ev "Plan: tile the GEMM."
t "appended events appear" 'wait_for w "think +Read the reference first\\." "text +Plan: tile the GEMM\\."'
t "the live indicator is shown" 'wait_for w "^ LIVE \\| event 2/2"'
t "the header says the file is watched, not replayed" 'line 1 | grep -qE "^ kbtui watch +$f" && ! has "kbtui replay"'
t "the run is still being written: the banner says so" 'has "STILL BEING WRITTEN"'
th "Third event arrives."
t "the selection follows the tail" 'wait_for w "LIVE \\| event 3/3" "│ Third event arrives\\."'

# ---- moved away: the selection stays, the count grows ------------------------
keys w k
t "k moves up: event 2/3, no longer following" 'wait_for w "LIVE \\(G follows\\) \\| event 2/3"'
ev "Fourth event."
th "Fifth event."
t "new events do not move the selection; i/N grows" 'wait_for w "\\(G follows\\) \\| event 2/5" "5 +think +Fifth event\\."'
t "the detail still shows the selected event" 'has "event 2 +text" && has "│ Plan: tile the GEMM\\."'
keys w G
t "G follows the tail again" 'wait_for w "^ LIVE \\| event 5/5" "│ Fifth event\\."'
ev "Sixth event."
t "... and new events are selected as they come" 'wait_for w "^ LIVE \\| event 6/6" "│ Sixth event\\."'
ev " More of it."
t "text added to the last event shows in its detail" 'wait_for w "^ LIVE \\| event 6/6" "│ Sixth event\\. More of it\\."'

# ---- truncated and written again with other content --------------------------
cat > "$f" <<'EOF'
{"type":"system","subtype":"init","session_id":"sess-d","cwd":"/w","model":"claude-x","tools":["Write","Bash"]}
{"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[{"type":"text","text":"I will write the kernel."}],"usage":{"input_tokens":100,"output_tokens":20}},"session_id":"sess-d"}
EOF
t "a rewritten file is read again from the start, said in the status bar" \
	'wait_for w "LIVE: file (truncated|rewritten|replaced), read again from the start" "I will write the kernel\\."'
t "the old events are gone" '! has "Sixth event" && ! has "Plan: tile the GEMM"'
t "the new content is read in its own format" 'wait_for w "claude-x .* claude *$"'

# ---- escape sequences arriving live -------------------------------------------
printf '%s\n' '{"type":"assistant","message":{"id":"msg_2","type":"message","role":"assistant","model":"claude-x","content":[{"type":"text","text":"evil \u001b]0;pwned\u0007 title \u001b[2J clear"}],"usage":{"input_tokens":100,"output_tokens":20}},"session_id":"sess-d"}' >> "$f"
t "escape sequences appended live show as visible escapes" 'wait_for w "evil \\^\\[\\]0;pwned\\^G title \\^\\[\\[2J clear"'
t "... and did not clear the screen" 'line 1 | grep -q "kbtui watch" && has "I will write the kernel"'

# ---- the file goes away, and comes back ---------------------------------------
rm -f "$f"
t "a vanished file: the run stays, the indicator says so" 'wait_for w "LIVE: file gone, waiting for it" "I will write the kernel"'
ev "Back again."
t "the file that came back is read from its start" 'wait_for w "│ Back again\\." "event 1/1"'
keys w q
t "q ends the watch with status 0" 'wait_for w "kbtui exited: 0"'

# ---- a run directory; --format ---------------------------------------------------
mkdir -p "$tmp/run2"
printf '%s\n' '{"type":"text","data":"In a run directory."}' > "$tmp/run2/transcript.jsonl"
start d "$kb" watch --format grok "$tmp/run2"
t "a run directory: its transcript is followed" 'wait_for d "│ In a run directory\\." "grok *$"'
printf '%s\n' '{"type":"thought","data":"Appended in the directory."}' >> "$tmp/run2/transcript.jsonl"
t "... as it grows" 'wait_for d "LIVE \\| event 2/2" "│ Appended in the directory\\."'
keys d q
t "q ends it" 'wait_for d "kbtui exited: 0"'

# ---- auto-flags on events that arrive ---------------------------------------------
# a run directory of a dataset (runs/ID, problems/ beside it): its problem,
# 01_fp8_gemm, comes from the name, its forbidden list from problem.yaml
fd="$tmp/fds/runs/20260101_000000_claude_m_01_fp8_gemm"
mkdir -p "$fd" "$tmp/fds/problems"
cp -r "$KB_SRCDIR/data/sample/problems/01_fp8_gemm" "$tmp/fds/problems/"
ff="$fd/transcript.jsonl"
cl() { printf '{"type":"assistant","message":{"id":"msg_%s","type":"message","role":"assistant","model":"claude-x","content":[%s],"usage":{"input_tokens":10,"output_tokens":5}},"session_id":"s"}\n' "$1" "$2" >> "$ff"; }
printf '%s\n' '{"type":"system","subtype":"init","session_id":"s","cwd":"/w","model":"claude-x","tools":["Write","Bash"]}' > "$ff"
cl 1 '{"type":"text","text":"Reading the reference."}'
start g "$kb" watch "$fd"
# each claude message is its event and a usage event after it
t "a clean run: no flag" 'wait_for g "LIVE \\| event 3/3" "Reading the reference" && ! has "! FLAG" && ! has "^ *[0-9]+ ! "'
keys g f
t "f: no flagged event yet" 'wait_for g "no flagged event after this one"'
cl 2 '{"type":"text","text":"Writing the kernel now."}'
cl 3 '{"type":"tool_use","id":"toolu_1","name":"Write","input":{"file_path":"/w/solution.py","content":"import torch\\ndef run(a, b):\\n    return torch._scaled_mm(a, b)\\n"}}'
cl 4 '{"type":"text","text":"Done."}'
t "an appended call that writes a forbidden op is flagged: ! in the list" 'wait_for g "LIVE \\| event 9/9" "^ *6 ! call +Write solution\\.py"'
t "... and only that event" '[ $(grep -cE "^ *[0-9]+ ! " "$scr") -eq 1 ]'
keys g g f
t "f jumps to it; the detail says which rule" 'wait_for g "event 6/9" "! FLAG forbidden-op"'
cl 5 '{"type":"tool_use","id":"toolu_2","name":"Write","input":{"file_path":"/w/solution.py","content":"def run(a, b):\\n    return torch.ops.aten._scaled_mm(a, b)\\n"}}'
t "a second one later: flagged too" 'wait_for g "event 6/11" "^ *10 ! call +Write solution\\.py"'
keys g f
t "f goes on to it" 'wait_for g "event 10/11" "! FLAG forbidden-op"'
keys g F
t "F goes back to the first" 'wait_for g "event 6/11" "! FLAG forbidden-op"'
keys g q
t "q ends it" 'wait_for g "kbtui exited: 0"'

# ---- the compiler pane grows with the run (only the new events scanned) ----------
cw="$tmp/cw/transcript.jsonl"
mkdir -p "$tmp/cw"
printf '%s\n' '{"type":"system","subtype":"init","session_id":"s","cwd":"/w","model":"claude-x","tools":["Bash"]}' > "$cw"
cr() { printf '{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%s","content":"%s"}]},"session_id":"s"}\n' "$1" "$2" >> "$cw"; }
cc() { printf '{"type":"assistant","message":{"id":"msg_%s","type":"message","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"toolu_%s","name":"Bash","input":{"command":"python check.py"}}],"usage":{"input_tokens":10,"output_tokens":5}},"session_id":"s"}\n' "$1" "$1" >> "$cw"; }
start c "$kb" watch "$cw"
t "a watch of a run with no event yet" 'wait_for c "LIVE \\| event 0/0"'
keys c v
t "v in a watch: the compiler pane, nothing found yet" 'wait_for c "compiler output" "over the run: errors 0, warnings 0"'
cc 1
cr 1 "FAILED: cuda.cuda.o"
t "an appended build failure is found" 'wait_for c "over the run: errors 1, warnings 0" "cpp_ext +error +FAILED: cuda\\.cuda\\.o"'
cc 2
t "more events after it: the old hit is not counted twice" 'wait_for c "LIVE \| event 6/6" && sleep 0.5 && cap c && has "over the run: errors 1, warnings 0"'
cr 2 "ninja: build stopped: subcommand failed."
t "a second one is added to the first" 'wait_for c "over the run: errors 2, warnings 0" "cpp_ext +error +ninja: build stopped"'
keys c q
t "q ends it" 'wait_for c "kbtui exited: 0"'

# ---- a long run: the header's statistics made again in slices, then shown --------
# 120k events (over REPLAY_STATS_SLICE, 50k): a growing run this long has
# its statistics made again a slice a draw, the old ones shown meanwhile
long="$tmp/long.jsonl"
awk 'BEGIN { for (i = 1; i <= 60000; i++) printf "{\"type\":\"thought\",\"data\":\"tile %d\"}\n{\"type\":\"text\",\"data\":\"step %d\"}\n", i, i }' > "$long"
start L "$kb" watch "$long"
KB_WAIT=300 t "a 120k-event run watched: its header counts its 60000 reasoning blocks" \
	'wait_for L "LIVE \| event 120000/120000" "reasoning visible: 60000 blocks"'
awk 'BEGIN { for (i = 60001; i <= 60010; i++) printf "{\"type\":\"thought\",\"data\":\"tile %d\"}\n{\"type\":\"text\",\"data\":\"step %d\"}\n", i, i }' >> "$long"
KB_WAIT=300 t "ten blocks more: the statistics made again in slices count them all" \
	'wait_for L "LIVE \| event 120020/120020" "reasoning visible: 60010 blocks"'
keys L q
t "q ends it, nothing on stderr" 'wait_for L "kbtui exited: 0" && [ ! -s "$tmp/L.err" ]'

# ---- usage -------------------------------------------------------------------------
"$kb" watch > /dev/null 2> "$tmp/usage.err" < /dev/null
rc=$?
t "watch without FILE is a usage error" '[ $rc -eq 2 ] && grep -q "watch needs exactly one FILE or RUN_DIR" "$tmp/usage.err"'
start m "$kb" watch "$tmp/no/such/dir/transcript.jsonl"
t "a file whose directory does not exist is an error (status 1)" 'wait_for m "kbtui exited: 1" && grep -q "no such file" "$tmp/m.err"'

echo "1..$n"
exit $fail
