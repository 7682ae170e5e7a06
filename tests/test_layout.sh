#!/bin/sh
# The replay's layouts (issue 16): on 160x45 or more the list and four
# panes (reasoning, tool call and result, compiler output, timing), each
# following the selected event; one pane on smaller terminals; = switches
# and resizing follows the size unless = chose. At 80 columns the browser
# keeps what tells whether a run can be replayed, the replay header the
# verdict, model and outcome. Real runs of tests/fixtures/kbh.
. "$KB_SRCDIR/tests/tmux.sh"
kbh="$KB_SRCDIR/tests/fixtures/kbh"
opus="$kbh/runs/20260428_040539_claude_claude-opus-4-7_01_fp8_gemm"
glm="$kbh/runs/20260513_153015_zai-claude_glm-5.1_01_fp8_gemm"
# start_at NAME COLS LINES ARGS...: like start, at another size
start_at() {
	name=$1 w=$2 h=$3; shift 3
	tm new-session -d -s "$name" -x "$w" -y "$h" \
		"env -u NO_COLOR $* 2> '$tmp/$name.err'; echo \"kbtui exited: \$?\"; sleep 30" 2> /dev/null
}
# the header rows of the four panes: reasoning | detail above, compiler | timing below
top_heads='│ reasoning.*│ event [0-9]+  [a-z_]+ '
bottom_heads='│ compiler output.*│ GPU timing'

# ---- 160x45: four panes, following the selection -----------------------------
start f "$kb" "$opus/transcript.jsonl"
t "160x45: the four panes' headers beside the list" 'wait_for f "event 1/635" "$top_heads" "$bottom_heads"'
t "event 1: no reasoning before it, said so" 'has "│ no reasoning recorded at or before event 1 " && has "│ \(the first is at event 2\)"'
keys f 2 9 1 G
t "event 291: the detail shows its tool result" 'wait_for f "event 291/635" "│ event 291  tool_result " "result of event 288: Bash"'
t "event 291: the reasoning that led to it (event 278, hidden by the harness, said so)" 'has "│ reasoning  event 278  redacted " && has "│ event 278, 13 events before the selected one" && has "the harness hid this reasoning"'
t "event 291: the compiler output of this event, marked" 'has "│▶event 291  Bash CUDA_HOME" && has "compiler output +so far 1/8 errors"'
t "event 291: the latest benchmark at or before it (event 74), the plot" 'has "│ event 74  Bash cat " && has "1/5 benchmark runs so far" && has "peak_fraction over 5 benchmark runs"'
keys f 3 6 1 G
t "event 361: the reasoning follows (event 357)" 'wait_for f "event 361/635" "│ reasoning  event 357 " "│ event 361  tool_result "'
t "event 361: the compiler pane keeps the latest output before it (event 309)" 'has "│ event 309  Bash CUDA_HOME" && has "so far 2/8 errors" && ! has "│▶event 291"'
t "event 361: the timing pane shows this event's timing lines, marked" 'has "│▶event 361  Bash CUDA_HOME" && has "│▶  time M=4096 N=4096 K=4096"'
keys f h
t "help: = switches the layout" 'wait_for f "^ +=  +Replay: switch between the four-pane layout"'
keys f q
wait_for f "event 361/635" > /dev/null
keys f =
t "=: one pane beside the list, the detail" 'wait_for f "one pane beside the list" "│ event 361  tool_result " && ! has "│ reasoning" && ! has "compiler output"'
keys f =
t "= again: four panes" 'wait_for f "four panes: reasoning" "$top_heads" "$bottom_heads"'
keys f v
t "v in four panes: one pane, the next after the detail (compiler output)" 'wait_for f "compiler output +so far" && ! has "│ reasoning" && ! has "│ event 361  tool_result "'
keys f q
t "q quits, nothing on stderr" 'wait_for f "kbtui exited: 0" && [ ! -s "$tmp/f.err" ]'

# ---- reasoning with its text; Tab, z ---------------------------------------------
# TERM: a terminal whose mouse reports curses reads (the mouse tests below)
start r TERM=xterm-256color "$kb" "$glm/transcript.jsonl"
keys r 4 0 G
t "glm event 40: the reasoning of event 37, its text" 'wait_for r "event 40/172" "│ reasoning  event 37 +block 4/22  1-[0-9]+/" "│ - Triton 3\.6\.0 is available"'
keys r 2 0 G
t "event 20: a reasoning event shows itself" 'wait_for r "event 20/172" "│ reasoning  event 20 " "│ the selected event" "Now let me understand the hardware spec"'
keys r 4 0 G
wait_for r "event 40/172" "block 4/22  1-" > /dev/null
keys r Tab j
t "Tab: the reasoning pane has the focus, j scrolls it" 'wait_for r "block 4/22  2-[0-9]+/" "event 40/172"'
keys r Tab j
t "Tab: then the detail" 'wait_for r "event 40  tool_result +2-[0-9]+/47" "event 40/172"'
keys r Tab Tab Tab j
t "Tab through compiler and timing back to the list: j moves the selection" 'wait_for r "event 41/172" "│ reasoning  event 41 "'
keys r Tab z
t "z zooms the focused pane (reasoning) to the whole body" 'wait_for r "^ reasoning  event 41 " && ! has "compiler output" && ! has "^ events "'
keys r z
t "z again: four panes" 'wait_for r "$top_heads" "$bottom_heads"'
# the mouse (SGR reports, 1-based columns and rows): at 160x45 the list has
# columns 1-53, the reasoning 55-106, the detail 108-160; the top panes
# rows 3-23 (the banner of an incomplete run on row 2)
# (a press alone, which kbtui takes as the click: one escape sequence, not
# two that a loaded machine may deliver apart)
click() { tm send-keys -t "$1" -l "$(printf '\033[<0;%d;%dM' "$2" "$3")"; }
wheel() { b=64; [ "$2" = down ] && b=65; tm send-keys -t "$1" -l "$(printf '\033[<%d;%d;%dM' $b "$3" "$4")"; }
keys r Tab Tab Tab Tab 4 0 G
t "Tab from the reasoning pane through the others to the list: 40G selects again" 'wait_for r "event 40/172" "block 4/22  1-"'
wheel r down 70 10
t "the wheel over the reasoning pane scrolls it, not the list" 'wait_for r "block 4/22  4-[0-9]+/" "event 40/172"'
click r 130 10
keys r j
t "a click gives the detail pane the focus: j scrolls it" 'wait_for r "event 40  tool_result +2-[0-9]+/47" "event 40/172"'
keys r q
wait_for r "kbtui exited: 0" > /dev/null

# ---- smaller terminals, resizing ------------------------------------------------
start_at s 120 40 "$kb" "$opus/transcript.jsonl"
t "120x40: the one-pane layout" 'wait_for s "event 1/635" "│ event 1  system " && ! has "compiler output" && ! has "│ reasoning"'
keys s =
t "120x40, =: four panes by hand" 'wait_for s "four panes: reasoning" "$top_heads" "$bottom_heads"'
tm resize-window -t s -x 160 -y 45 2> /dev/null
tm resize-window -t s -x 110 -y 40 2> /dev/null
t "a layout chosen with = stays when the terminal changes size" 'wait_for s "$top_heads" "$bottom_heads"'
keys s q
tm kill-session -t s 2> /dev/null
start g "$kb" "$opus/transcript.jsonl"
wait_for g "$top_heads" > /dev/null
tm resize-window -t g -x 120 -y 40 2> /dev/null
t "resized to 120x40: one pane" 'wait_for g "│ event 1  system " && ! has "compiler output"'
tm resize-window -t g -x 160 -y 45 2> /dev/null
t "back to 160x45: four panes" 'wait_for g "$top_heads" "$bottom_heads"'
keys g q
start o KBTUI_LAYOUT=one "$kb" "$opus/transcript.jsonl"
t "KBTUI_LAYOUT=one: one pane at 160x45" 'wait_for o "event 1/635" "│ event 1  system " && ! has "compiler output"'
keys o q

# ---- 80 columns: the browser's columns, the replay header --------------------------
start_at b 80 24 "$kb" "$kbh"
t "80x24 browser: model, problem, OK, peak, verdict and format" 'wait_for b "run 1/85" "^ MODEL +PROBLEM +OK +PEAK +VERDICT +FORMAT *$"'
t "80x24 browser: each row says whether the run can be replayed" 'has "^ claude/.* 01_fp8_gemm .* 0\.5339  rubric_leak  claude *$" && has "^ codex/gpt-5\.5 .* held out *$"'
t "80x24 browser: flags and run id give way" '! has "RUN_ID" && ! has "FLAGS"'
keys b Enter
t "80x24 replay header: verdict, model and outcome" 'wait_for b "event 1/635" && line 1 | grep -qE "verdict rubric_leak  claude/claude-opus-4-7 \[max\]  correct 0\.5339 *$"'
keys b q q
start_at c 80 24 "$kb" "$glm"
t "80x24 replay header of a failed run: verdict, model, outcome, and the mark that result.json says otherwise" 'wait_for c "event 1/172" && line 1 | grep -qE "unannotated  zai-claude/glm-5\.1 \[2026-05-13\]  failed (≠|!=) *$"'
keys c q
start_at w 100 30 "$kb" "$glm"
t "100 columns: the header keeps the problem too" 'wait_for c "kbtui exited" && wait_for w "event 1/172" && line 1 | grep -qE "zai-claude/glm-5\.1 \[2026-05-13\]  01_fp8_gemm.*failed"'
keys w q

# every session ended by q: nothing on stderr (a sanitizer's report included)
for sn in r g o b c w; do wait_for $sn "kbtui exited: 0" > /dev/null; done
quiet() { for sn in f r s g o b c w; do [ -f "$tmp/$sn.err" ] && [ ! -s "$tmp/$sn.err" ] || return 1; done; }
t "the sessions left nothing on stderr" quiet

echo "1..$n"; exit $fail
