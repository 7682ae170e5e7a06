#!/bin/sh
# The terminal interface as a person sees it: kbtui runs in a tmux pane,
# keys go in with send-keys, the screen comes back with capture-pane and is
# checked for what should be on it (helpers in tests/tmux.sh).
. "$KB_SRCDIR/tests/tmux.sh"

# ---- a small dataset written here ----------------------------------------
ds="$tmp/ds"
mkdir -p "$ds/runs/alpha" "$ds/runs/beta" "$ds/runs/delta"
# alpha: six events; the first one long enough to scroll; one error
{
	printf '{"type":"thought","data":"Read the reference first.'
	i=2; while [ $i -le 80 ]; do printf '\\nnote line %d' $i; i=$((i+1)); done
	printf '"}\n'
	printf '%s\n' '{"type":"text","data":"Plan: tile the GEMM."}' \
		'{"type":"thought","data":"Check the shapes."}' \
		'{"type":"text","data":"Writing solution.py now."}' \
		'{"type":"error","data":"rate limited by the provider"}' \
		'{"type":"text","data":"Done: solution.py holds a tiled kernel."}' \
		'{"type":"end","sessionId":"sess-a","stopReason":"EndTurn"}'
} > "$ds/runs/alpha/transcript.jsonl"
# beta: escape sequences that would retitle and clear a terminal
printf '%s\n' '{"type":"text","data":"evil \u001b]0;pwned\u0007 title \u001b[2J clear \u001b]52;c;aGk=\u0007 clip"}' \
	'{"type":"end","sessionId":"sess-b","stopReason":"EndTurn"}' > "$ds/runs/beta/transcript.jsonl"
# delta: Claude Code stream-json with two tool calls, one failing
cat > "$ds/runs/delta/transcript.jsonl" <<'EOF'
{"type":"system","subtype":"init","session_id":"sess-d","cwd":"/w","model":"claude-x","tools":["Write","Bash"]}
{"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[{"type":"text","text":"I will write the kernel."}],"usage":{"input_tokens":100,"output_tokens":20}},"session_id":"sess-d"}
{"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"toolu_1","name":"Write","input":{"file_path":"/w/solution.py","content":"import torch\nx = 1\n"}}],"usage":{"input_tokens":100,"output_tokens":20}},"session_id":"sess-d"}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"File created successfully at: /w/solution.py"}]},"session_id":"sess-d"}
{"type":"assistant","message":{"id":"msg_2","type":"message","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"toolu_2","name":"Bash","input":{"command":"nvcc --version","description":"check nvcc"}}],"usage":{"input_tokens":150,"output_tokens":30}},"session_id":"sess-d"}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_2","content":"bash: nvcc: command not found","is_error":true}]},"session_id":"sess-d"}
{"type":"assistant","message":{"id":"msg_3","type":"message","role":"assistant","model":"claude-x","content":[{"type":"text","text":"Done."}],"usage":{"input_tokens":200,"output_tokens":10}},"session_id":"sess-d"}
{"type":"result","subtype":"success","is_error":false,"result":"Done.","session_id":"sess-d","usage":{"input_tokens":450,"output_tokens":60}}
EOF
cat > "$ds/runs.jsonl" <<'EOF'
{"run_id":"20260101_000000_grok_alpha-model_01_fp8_gemm","harness":"grok","model":"alpha-model","problem":"01_fp8_gemm","correct":true,"peak_fraction":0.25,"format":"grok","transcript":"runs/alpha/transcript.jsonl"}
{"run_id":"20260101_000001_grok_beta-model_02_kda_cutlass","harness":"grok","model":"beta-model","problem":"02_kda_cutlass","correct":false,"peak_fraction":null,"format":"grok","transcript":"runs/beta/transcript.jsonl"}
{"run_id":"20260101_000002_grok_gamma-model_03_paged_attention","harness":"grok","model":"gamma-model","problem":"03_paged_attention","correct":true,"peak_fraction":0.75,"format":"grok","transcript":"runs/gamma/transcript.jsonl"}
{"run_id":"20260101_000003_claude_delta-model_05_topk_bitonic","harness":"claude","model":"delta-model","problem":"05_topk_bitonic","correct":true,"peak_fraction":0.5,"format":"claude","transcript":"runs/delta/transcript.jsonl"}
EOF
cat > "$ds/problem_baselines.json" <<'EOF'
{"problems":{"01_fp8_gemm":{"eager":{"ms":0.4725},"compiled":{"ms":0.4381},"sota":{"ms":0.2}}}}
EOF

# ---- the browser -----------------------------------------------------------
# the one-pane layout (KBTUI_LAYOUT=one): this part is about the detail pane beside the list
start b KBTUI_LAYOUT=one "$kb" "$ds"
t "browser shows the dataset and its run count" 'wait_for b "kbtui .*/ds +4 runs"'
t "browser lists every run id" 'has 20260101_000000_grok_alpha-model_01_fp8_gemm && has 20260101_000001_grok_beta-model && has 20260101_000002_grok_gamma-model && has 20260101_000003_claude_delta-model'
t "rows show model, problem, peak and format" 'has "alpha-model +01_fp8_gemm .* 0\.2500 .* grok "'
t "the first row under sort by problem is 01_fp8_gemm" 'line 4 | grep -q alpha-model'
t "reference line shows the baselines of the selected problem" 'line 2 | grep -qE "01_fp8_gemm: eager 0\.4725 ms +compiled 0\.4381 ms +SOTA 0\.2 ms"'
t "status bar says run 1/4" 'has "run 1/4"'
tm capture-pane -e -p -t b > "$tmp/colour" 2> /dev/null
t "without NO_COLOR the screen has colours" 'grep -qE "$colour_sgr" "$tmp/colour"'
keys b j
t "j selects the next run and the reference line follows it" 'wait_for b "run 2/4" && line 2 | grep -q "02_kda_cutlass: no baselines"'
keys b s
t "s sorts by model" 'wait_for b "sort: model"'
keys b s
t "s again sorts by peak_fraction, best first" 'wait_for b "sort: peak_fraction" && line 4 | grep -q gamma-model && line 5 | grep -q delta-model'
keys b s
t "s again is back to problem" 'wait_for b "sort: problem" && line 4 | grep -q alpha-model'
keys b / b e t a
t "/ filters as you type" 'wait_for b "showing 1 of 4" && has "^/beta" && ! has alpha-model'
keys b Enter
t "Enter keeps the filter" 'wait_for b "filter: beta" && has "run 1/1"'
keys b / BSpace BSpace BSpace BSpace Enter
t "an empty filter shows every run again" 'wait_for b "run [0-9]/4" && ! has "showing" && has alpha-model'
keys b g
wait_for b "run 1/4" > /dev/null
keys b h
t "h shows the browser keys" 'wait_for b "Keys" && has "^ +s +Sort by" && has "^ +/ +Browser: show only runs" && has "^ +v +Browser: switch"'
t "the browser help leaves out replay keys" '! has "Search backward" && ! has "Play or pause"'
keys b x
t "any key closes the help" 'wait_for b "MODEL +PROBLEM" && ! has "Sort by problem" && has "run 1/4"'

# ---- the replay ----------------------------------------------------------------
keys b Enter
t "Enter opens the replay: event 1/6" 'wait_for b "event 1/6"'
t "replay header names the run" 'line 1 | grep -q "20260101_000000_grok_alpha-model_01_fp8_gemm"'
t "event list: index, kind, first line" 'has "^ *1 +think +Read the reference first\." && has "^ *2 +text +Plan: tile the GEMM\."'
t "detail pane shows the selected event in full" 'has "note line 80" || has "note line 4[0-9]"'
keys b j
t "j: event 2/6" 'wait_for b "event 2/6"'
keys b G
t "G: event 6/6" 'wait_for b "event 6/6" && has "Done: solution.py holds a tiled kernel"'
keys b g
t "g: event 1/6" 'wait_for b "event 1/6"'
keys b e
t "e: next error is event 5" 'wait_for b "event 5/6" && has "rate limited by the provider"'
keys b t
t "t with no tool call ahead says so" 'wait_for b "no tool call after this one" && has "event 5/6"'
keys b g Tab j j
t "Tab then j scrolls the detail pane, not the list" 'wait_for b " 3-[0-9]+/[0-9]+ *$" && has "event 1/6"'
keys b z
t "z zooms the detail pane to the whole screen" 'wait_for b "^ event 1 +reasoning" && ! has "^ *2 +text +Plan"'
keys b z Tab
t "z again and Tab: both panes, list focused" 'wait_for b "^ events" && has "^ *2 +text +Plan"'
keys b h
t "h shows help with the keys for tool calls, search and playback" 'wait_for b "^ +t +Next tool call" && has "^ +e +Next error" && has "^ +/ +Replay: search forward" && has "^ +\\? +Search backward" && has "^ +P +Play or pause"'
keys b Escape
t "a key closes the help" 'wait_for b "^ events" && ! has "Next tool call" && has "event 1/6"'
keys b q
t "q goes back to the browser" 'wait_for b "Enter replay" && has "run 1/4"'

# ---- untrusted text ---------------------------------------------------------------
title_before=$(tm display -p -t b '#{pane_title}' 2> /dev/null)
keys b j Enter
t "the run with escape sequences opens" 'wait_for b "event 1/1"'
t "ESC is shown as ^[ and BEL as ^G" 'grep -qF "evil ^[]0;pwned^G title ^[[2J clear ^[]52;c;aGk=^G" "$scr"'
t "the screen was not cleared by ESC [2J" 'line 1 | grep -q "kbtui replay" && has "event 1/1"'
t "the pane title is unchanged" '[ "$(tm display -p -t b "#{pane_title}")" = "$title_before" ] && ! tm display -p -t b "#{pane_title}" | grep -q pwned'
keys b q
wait_for b "Enter replay" > /dev/null

# ---- a run that cannot be loaded ----------------------------------------------------
keys b j Enter
t "a missing transcript is reported in the status line" 'wait_for b "runs/gamma/transcript.jsonl" && grep -v "^$" "$scr" | tail -1 | grep -q "runs/gamma/transcript.jsonl"'
keys b k
t "the browser still works after it" 'wait_for b "run 2/4" && ! has "runs/gamma/transcript.jsonl"'

# ---- tool calls (needs the claude parser) ---------------------------------------
if "$kb" dump --jsonl "$ds/runs/delta/transcript.jsonl" 2> /dev/null | grep -q '"kind":"tool_call"'; then
	N=$("$kb" dump --jsonl "$ds/runs/delta/transcript.jsonl" 2> /dev/null | wc -l | tr -d ' ')
	keys b G Enter
	t "the Claude run opens at event 1/$N" 'wait_for b "event 1/$N"'
	keys b t
	t "t: the Write call, its path and arguments" 'wait_for b "tool calls 1" && has "tool_call" && has "path: /w/solution.py" && has "file_path: /w/solution.py"'
	t "the call shows its linked result" 'has "result \(event [0-9]+\)" && has "File created successfully at: /w/solution.py"'
	t "the call shows its diff" 'has "^.*\+import torch" && has "^.*\+x = 1"'
	keys b t
	t "t again: the Bash call with its failed result" 'wait_for b "tool calls 2" && has "command: nvcc --version" && has "result \(event [0-9]+\): error" && has "nvcc: command not found"'
	keys b T
	t "T: back to the Write call" 'wait_for b "tool calls 1" && has "path: /w/solution.py"'
	keys b g e
	t "e: the failed tool result" 'wait_for b "^ *[0-9]+ +result +Bash +bash: nvcc: command not found" "tool_result +line [0-9]+ +error"'
	t "the status bar sums tokens so far" 'has "tokens in [0-9]+ out [0-9]+"'
	keys b q
	wait_for b "Enter replay" > /dev/null
else
	echo "# SKIP tool-call screens: the claude parser does not read tool calls yet"
fi

keys b q
t "q in the browser quits with status 0" 'wait_for b "kbtui exited: 0"'
t "nothing was written to stderr" '[ ! -s "$tmp/b.err" ]'
tm kill-session -t b 2> /dev/null

# ---- NO_COLOR --------------------------------------------------------------------
start c NO_COLOR=1 "$kb" "$ds"
wait_for c "run 1/4" > /dev/null
tm capture-pane -e -p -t c > "$tmp/mono" 2> /dev/null
t "NO_COLOR: no colour on screen" 'grep -q "alpha-model" "$tmp/mono" && ! grep -qE "$colour_sgr" "$tmp/mono"'
t "NO_COLOR: the selection is still visible (reverse video)" 'grep -qE "$esc\\[([0-9]+;)*7(;[0-9]+)*m" "$tmp/mono"'
tm kill-session -t c 2> /dev/null

# ---- a transcript given directly ---------------------------------------------------
start d "$kb" "$ds/runs/alpha/transcript.jsonl"
t "a transcript path of a dataset opens its replay, named by its run id" 'wait_for d "event 1/6" && line 1 | grep -q "20260101_000000_grok_alpha-model_01_fp8_gemm"'
keys d q
t "q in a direct replay quits with status 0" 'wait_for d "kbtui exited: 0" && [ ! -s "$tmp/d.err" ]'
tm kill-session -t d 2> /dev/null

# ---- Ctrl-C leaves through endwin --------------------------------------------------
start i "$kb" "$ds"
wait_for i "run 1/4" > /dev/null
keys i Enter
wait_for i "event 1/6" > /dev/null
keys i C-c
t "Ctrl-C in the replay ends kbtui with status 130" 'wait_for i "kbtui exited: 130"'
tm kill-session -t i 2> /dev/null

# ---- a second dataset: the grid, compiler output, GPU timing, timeline ----------
# Sessions here run with LC_ALL=C: glyphs are ASCII (+ x 0 h ~ | # >), so
# the assertions do not depend on the terminal's locale.
ds2="$tmp/ds2"
mkdir -p "$ds2/runs/eps" "$ds2/runs/zeta" "$ds2/runs/eta" "$ds2/annotations"
eps_id=20260102_000000_claude_eps-model_01_fp8_gemm
# eps: Claude stream-json with timestamps (7 minutes), a failed build, two
# benchmark runs, no final result line (so: incomplete)
cat > "$ds2/runs/eps/transcript.jsonl" <<'EOT'
{"type":"system","subtype":"init","session_id":"sess-e","cwd":"/w","model":"claude-x","tools":["Bash"],"timestamp":"2026-01-02T00:00:00Z"}
{"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[{"type":"text","text":"I will build the extension."}],"usage":{"input_tokens":100,"output_tokens":20}},"session_id":"sess-e","timestamp":"2026-01-02T00:00:05Z"}
{"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"python check.py"}}],"usage":{"input_tokens":100,"output_tokens":20}},"session_id":"sess-e","timestamp":"2026-01-02T00:00:10Z"}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"[1/2] /usr/local/cuda/bin/nvcc -c cuda.cu -o cuda.cuda.o\n/tmp/ext/cuda.cu(42): error: identifier \"tile\" is undefined\n/tmp/ext/cuda.cu(50): warning #177-D: variable \"k\" was declared but never referenced\n1 error detected in the compilation of \"/tmp/ext/cuda.cu\".\nninja: build stopped: subcommand failed.\nTraceback (most recent call last):\n  File \"check.py\", line 3, in <module>\nRuntimeError: Error building extension 'fp8_ext'","is_error":true}]},"session_id":"sess-e","timestamp":"2026-01-02T00:01:00Z"}
{"type":"assistant","message":{"id":"msg_2","type":"message","role":"assistant","model":"claude-x","content":[{"type":"text","text":"Fixing the tile variable."}],"usage":{"input_tokens":150,"output_tokens":30}},"session_id":"sess-e","timestamp":"2026-01-02T00:01:30Z"}
{"type":"assistant","message":{"id":"msg_2","type":"message","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"toolu_2","name":"Bash","input":{"command":"python benchmark.py"}}],"usage":{"input_tokens":150,"output_tokens":30}},"session_id":"sess-e","timestamp":"2026-01-02T00:02:00Z"}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_2","content":"shape=0 variant=eager tflops=10.500 gbps=120.000 ms=0.900\nshape=0 variant=solution tflops=42.000 gbps=480.000 ms=0.225\nshape=0 solution_peak_fraction=0.2100\npeak_fraction: 0.2100\nRESULT: LOW"}]},"session_id":"sess-e","timestamp":"2026-01-02T00:03:00Z"}
{"type":"assistant","message":{"id":"msg_3","type":"message","role":"assistant","model":"claude-x","content":[{"type":"text","text":"Tuning the tiles."}],"usage":{"input_tokens":200,"output_tokens":40}},"session_id":"sess-e","timestamp":"2026-01-02T00:04:00Z"}
{"type":"assistant","message":{"id":"msg_3","type":"message","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"toolu_3","name":"Bash","input":{"command":"python benchmark.py"}}],"usage":{"input_tokens":200,"output_tokens":40}},"session_id":"sess-e","timestamp":"2026-01-02T00:05:00Z"}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_3","content":"shape=0 variant=solution tflops=84.000 gbps=960.000 ms=0.1125\npeak_fraction: 0.4200\nRESULT: OK"}]},"session_id":"sess-e","timestamp":"2026-01-02T00:06:00Z"}
{"type":"assistant","message":{"id":"msg_4","type":"message","role":"assistant","model":"claude-x","content":[{"type":"text","text":"Done: the kernel reaches 0.42 of peak."}],"usage":{"input_tokens":250,"output_tokens":50}},"session_id":"sess-e","timestamp":"2026-01-02T00:07:00Z"}
EOT
printf '{\n  "correct": true,\n  "peak_fraction": 0.42,\n  "session_complete": false\n}\n' > "$ds2/runs/eps/result.json"
cp "$ds/runs/alpha/transcript.jsonl" "$ds2/runs/zeta/transcript.jsonl"
cp "$ds/runs/alpha/transcript.jsonl" "$ds2/runs/eta/transcript.jsonl"
printf 'verdict: rubric_leak\n' > "$ds2/annotations/$eps_id.yaml"
cat > "$ds2/runs.jsonl" <<EOT
{"run_id":"$eps_id","harness":"claude","model":"eps-model","effort":"max","problem":"01_fp8_gemm","correct":true,"has_solution":true,"peak_fraction":0.42,"session_complete":false,"format":"claude","transcript":"runs/eps/transcript.jsonl"}
{"run_id":"20260102_000001_claude_eps-model_02_kda_cutlass","harness":"claude","model":"eps-model","effort":"max","problem":"02_kda_cutlass","correct":false,"has_solution":true,"peak_fraction":null,"session_complete":true,"format":"grok","transcript":"runs/zeta/transcript.jsonl"}
{"run_id":"20260102_000002_grok_eta-model_01_fp8_gemm","harness":"grok","model":"eta-model","problem":"01_fp8_gemm","correct":false,"has_solution":false,"peak_fraction":null,"elapsed_seconds":2700,"session_complete":true,"format":"grok","transcript":"runs/eta/transcript.jsonl"}
EOT
cat > "$ds2/leaderboard.json" <<EOT
{"hardware":{"name":"Test GPU"},"problems":["01_fp8_gemm","02_kda_cutlass"],"models":[
 {"harness":"grok","model":"eta-model","results":{
  "01_fp8_gemm":{"run_id":"20260102_000002_grok_eta-model_01_fp8_gemm","correct":false,"has_solution":false,"peak_fraction":null},
  "02_kda_cutlass":{"run_id":"20260102_000003_grok_eta-model_02_kda_cutlass","correct":true,"has_solution":true,"peak_fraction":0.125}}}]}
EOT
cat > "$ds2/problem_baselines.json" <<'EOT'
{"problems":{"01_fp8_gemm":{"eager":{"ms":0.4725},"compiled":{"ms":0.4381},"sota":{"ms":0.2}},"02_kda_cutlass":{"eager":{"ms":61.89},"compiled":{"ms":7.425}}}}
EOT
# event numbers as the replay counts them (1-based), from the dump
eps_file="$ds2/runs/eps/transcript.jsonl"
evno() { "$kb" dump --jsonl "$eps_file" 2> /dev/null | grep -n -- "$1" | sed -n "${2:-1}p" | cut -d: -f1; }
E_N=$("$kb" dump --jsonl "$eps_file" 2> /dev/null | wc -l | tr -d ' ')
E_BUILD=$(evno '"is_error":true')           # the failed build
E_FIX=$(evno 'Fixing the tile')
E_BENCH1=$(evno 'peak_fraction: 0.2100')
E_TUNE=$(evno 'Tuning the tiles')
E_BENCH2=$(evno 'peak_fraction: 0.4200')
col() { sed -n "$1p" "$scr" | cut -c"$2"; }

# ---- the leaderboard grid --------------------------------------------------------
start g LC_ALL=C "$kb" "$ds2"
t "the second dataset opens: 4 runs, one held out" 'wait_for g "kbtui .*/ds2 +4 runs +2 correct +1 held out"'
keys g v
# the status line is the last row curses writes: when it is there, all is
t "v shows the grid, problem names whole when there is room" 'wait_for g "^ claude/eps-model \[max\] x 01_fp8_gemm" "grid *$" "^ MODEL +01_fp8_gemm +02_kda_cutlass *$"'
t "reference rows: the baselines of each problem" 'has "^ eager ms +0\.4725 +61\.89" && has "^ compiled ms +0\.4381 +7\.425" && has "^ SOTA ms +0\.2 +- *$"'
t "a model row: correct 0.420 with its verdict L (rubric_leak), then failed" 'has "^ claude/eps-model \[max\] *\[ *\+ 0\.420 L *\] +x   -"'
t "the cursor is marked in characters, [ and ], on the selected cell only" '[ "$(grep -o "\[ *[-+x0.h~] [ !]*[ 0-9.-]* [A-Z?h ]*\]" "$scr" | wc -l)" -eq 1 ]'
t "the other model: no solution, then a held-out run (h) at 0.125" 'has "^ grok/eta-model +0   - +\+ 0\.125 h"'
t "the legend names every glyph, the flag mark too" 'has "\+ correct  x failed  0 no solution  \. no result  h held out  ~ incomplete  ! flagged"'
t "the status line describes the selected cell" 'has "claude/eps-model \[max\] x 01_fp8_gemm: correct  peak 0\.4200  verdict rubric_leak  $eps_id"'
keys g Right
t "Right: the next problem, and the reference line follows it" 'wait_for g "x 02_kda_cutlass: failed" && line 2 | grep -q "02_kda_cutlass: eager 61.89 ms"'
tm capture-pane -e -p -t g > "$tmp/grid" 2> /dev/null
t "cells are coloured by peak_fraction (0.42: green background)" 'grep "eps-model" "$tmp/grid" | grep -qE "$esc\\[([0-9]+;)*42(;[0-9]+)*m[^$esc]*\+ 0\.420"'
keys g j
t "j: the held-out cell" 'wait_for g "grok/eta-model x 02_kda_cutlass: correct  peak 0\.1250  verdict none  held out"'
keys g Enter
t "Enter on a held-out cell says why it cannot open" 'wait_for g "20260102_000003_grok_eta-model_02_kda_cutlass: no transcript in this dataset \(held out\)" "grid *$"'
keys g Left Enter
t "Enter on a cell replays its run" 'wait_for g "event 1/6" && line 1 | grep -q 20260102_000002_grok_eta-model_01_fp8_gemm'
t "the replay header ends with the run's outcome and wall time" 'line 1 | grep -qE " eta-model  01_fp8_gemm  grok  no solution  45:00 *$"'
tm resize-window -t g -x 100 -y 45 2> /dev/null
t "100 columns: the run id is cut in the middle, the outcome stays" 'wait_for g "^ kbtui replay  2026[0-9_]*~[^ ]*_01_fp8_gemm .* eta-model  01_fp8_gemm  grok  no solution  45:00 *$"'
tm resize-window -t g -x 160 -y 45 2> /dev/null
keys g q
t "q goes back to the grid" 'wait_for g "grid *$" "grok/eta-model x 01_fp8_gemm: no solution"'
keys g v
t "v goes back to the list with the same run selected" 'wait_for g "sort: problem" "run 2/4" && line 5 | grep -q "eta-model"'
keys g / e t a Enter v
t "the grid shows only the models of the filtered runs" 'wait_for g "grid *$" "showing 2 of 4" "^ grok/eta-model" && ! has "^ claude/eps-model"'
keys g q
t "q quits from the grid, nothing on stderr" 'wait_for g "kbtui exited: 0" && [ ! -s "$tmp/g.err" ]'
tm kill-session -t g 2> /dev/null

# ---- long model names that differ only at their end, on a narrow screen ----------
ds4="$tmp/ds4"
mkdir -p "$ds4/runs/a" "$ds4/runs/b"
cp "$ds/runs/alpha/transcript.jsonl" "$ds4/runs/a/transcript.jsonl"
cp "$ds/runs/alpha/transcript.jsonl" "$ds4/runs/b/transcript.jsonl"
cat > "$ds4/runs.jsonl" <<EOT
{"run_id":"20260103_000000_opencode_qwen-27b_01_fp8_gemm","harness":"opencode","model":"openrouter-pinned/qwen/qwen3.6-27b","problem":"01_fp8_gemm","correct":true,"peak_fraction":0.5,"format":"grok","transcript":"runs/a/transcript.jsonl"}
{"run_id":"20260103_000001_opencode_qwen-35b_01_fp8_gemm","harness":"opencode","model":"openrouter-pinned/qwen/qwen3.6-35b-a3b","problem":"01_fp8_gemm","correct":true,"peak_fraction":0.75,"format":"grok","transcript":"runs/b/transcript.jsonl"}
EOT
start w LC_ALL=C "$kb" "$ds4"
t "wide: the list shows the model names whole" 'wait_for w "run 1/2" "^ opencode/openrouter-pinned/qwen/qwen3\.6-35b-a3b  "'
tm resize-window -t w -x 140 -y 45 2> /dev/null
t "140 columns: the run ids cut in the middle" 'wait_for w "^ opencode/openrouter-pinned/qwen/qwen3\.6-27b .* 20260103_0000[^ ]*~[^ ]*_01_fp8_gemm *$"'
keys w x
t "blind: a masked run id that fits is shown once, whole" 'wait_for w "^ model [0-9]+ .* 20260103_000000_\[model [0-9]+\]_01_fp8_gemm *$" && ! has "~"'
keys w x
tm resize-window -t w -x 160 -y 45 2> /dev/null
wait_for w "^ opencode/openrouter-pinned/qwen/qwen3\.6-27b .* 20260103_000000_opencode_qwen-27b_01_fp8_gemm *$" > /dev/null
keys w Enter
wait_for w "event 1/" > /dev/null
keys w v v
t "timing pane, no benchmark line in the transcript: the harness's own number" 'wait_for w "no peak_fraction line in this run.s tool results; the harness measured 0\.5000 after the run"'
keys w q
wait_for w "run 1/2" > /dev/null
tm resize-window -t w -x 80 -y 24 2> /dev/null
t "80 columns: names cut in the middle keep their different ends" 'wait_for w "^ opencode/~.*qwen3\.6-27b " "^ opencode/~.*qwen3\.6-35b-a3b "'
keys w v
tm resize-window -t w -x 50 -y 24 2> /dev/null
t "50 columns, grid: labels cut in the middle, the two rows still differ" 'wait_for w "^ MODEL +01_fp8_g~" "^ opencode/.*~.*qwen3\.6-27b *\[? *\+ 0\.500" "^ opencode/.*~.*-35b-a3b *\[? *\+ 0\.750"'
tm resize-window -t w -x 160 -y 45 2> /dev/null
t "wide again: grid labels whole" 'wait_for w "^ opencode/openrouter-pinned/qwen/qwen3\.6-35b-a3b *\[? *\+ 0\.750"'
t "grid rows by name: 27b above 35b" 'line 7 | grep -q "qwen3\.6-27b" && line 8 | grep -q "qwen3\.6-35b-a3b"'
keys w s s
t "s to peak_fraction: the grid ranks its rows by mean peak_fraction" 'wait_for w "grid: rows by mean peak_fraction *$" && line 7 | grep -qE "qwen3\.6-35b-a3b *\\[? *\\+ 0\.750" && line 8 | grep -qE "qwen3\.6-27b *\\[? *\\+ 0\.500"'
keys w s
keys w q
t "q quits, nothing on stderr" 'wait_for w "kbtui exited: 0" && [ ! -s "$tmp/w.err" ]'
tm kill-session -t w 2> /dev/null

# ---- the replay: timeline, incomplete banner, jumps -------------------------------
start e LC_ALL=C "$kb" "$eps_file"
t "the incomplete run shows a banner under the header" 'wait_for e "event 1/$E_N" && line 2 | grep -q "INCOMPLETE RUN: the transcript ends without the harness.s completion marker"'
t "timeline: wall-clock time into the run, of the whole run" 'has "event 1/$E_N +0%  time \+0s/7:00"'
keys e G
t "G: the last event, 7 minutes in" 'wait_for e "event $E_N/$E_N 100%  time \+7:00/7:00"'
keys e 3 G
t "3G: event 3" 'wait_for e "event 3/$E_N "'
keys e 5 0 %
half=$(( ((E_N - 1) * 50 + 50) / 100 + 1 ))
t "50%: the middle event ($half)" 'wait_for e "event $half/$E_N "'
keys e p
t "p alone asks for a percentage" 'wait_for e "^Go to percent: "'
keys e 1 0 0 Enter
t "100 Enter: the last event" 'wait_for e "event $E_N/$E_N "'
keys e p x Enter
t "a percentage that is not a number is refused" 'wait_for e "a percentage is a number from 0 to 100" "event $E_N/$E_N "'
keys e g c
t "c: the next tool result with a compiler error ($E_BUILD)" 'wait_for e "event $E_BUILD/$E_N " "identifier \"tile\" is undefined"'
keys e c
t "c again: none after it" 'wait_for e "no compiler error after this one"'
keys e m
t "m: the next benchmark output ($E_BENCH1)" 'wait_for e "event $E_BENCH1/$E_N " "peak_fraction: 0\.2100"'
keys e m
t "m again: the second benchmark ($E_BENCH2)" 'wait_for e "event $E_BENCH2/$E_N "'
keys e M M
t "M M: back to the first benchmark" 'wait_for e "event $E_BENCH1/$E_N "'

# ---- compiler output pane ----------------------------------------------------------
keys e g v
t "v: the compiler output pane beside the list" 'wait_for e "\| compiler output +so far 0/4 errors 0/1 warnings" "cpp_ext +error +RuntimeError: Error building extension"'
t "it counts over the run and by tool" 'has "over the run: errors 4, warnings 1, notes 3 \([0-9]+ rules\)" && has "errors by tool: nvcc 2, cpp_ext 2"'
t "errors and warnings as found, with their tool, under their event" 'has "event $E_BUILD  Bash python check.py" && has "nvcc +error +/tmp/ext/cuda.cu\(42\): error: identifier \"tile\" is undefined" && has "nvcc +warning /tmp/ext/cuda.cu\(50\): warning #177-D" && has "python +note +Traceback \(most recent call last\):" && has "cpp_ext +error +RuntimeError: Error building extension"'
t "a long message wraps under its text column, not under the tool" 'has "[|>] {19,20}[^ ]*(.* )?referenced"'
tm capture-pane -e -p -t e > "$tmp/cc" 2> /dev/null
t "error lines are red, warning lines yellow" 'grep -qE "$esc\\[([0-9]+;)*31(;[0-9]+)*m[^$esc]*/tmp/ext/cuda.cu\(42\)" "$tmp/cc" && grep -qE "$esc\\[([0-9]+;)*33(;[0-9]+)*m[^$esc]*/tmp/ext/cuda.cu\(50\)" "$tmp/cc"'
keys e Tab Enter
t "Tab, Enter in the compiler pane: the event of its top row ($E_BUILD)" 'wait_for e "event $E_BUILD/$E_N " "^ events .*\| compiler output"'
keys e Tab g c
t "c: the counts so far follow the selection, its rows are marked" 'wait_for e "so far 4/4 errors 1/1 warnings" "\|>  nvcc +error"'
keys e Tab z
t "Tab z: the compiler pane zoomed to the whole screen" 'wait_for e "^ compiler output" && ! has "^ *1 +system"'
keys e z Tab V
t "V: back to the event detail" 'wait_for e "\| event $E_BUILD +tool_result"'

# ---- GPU timing pane ---------------------------------------------------------------
keys e v v m
t "v v: the GPU timing pane" 'wait_for e "\| GPU timing +1/2 benchmark runs so far" "\"session_complete\": false"'
t "summary: best peak_fraction and where, best so far" 'has "peak_fraction over 2 benchmark runs: best 0\.4200 \(event $E_BENCH2\), best so far 0\.2100"'
t "the plot: a y axis to 0.50, bars, the runs on the x axis" 'has "0\.50\|" && has "0\.00\|##" && has "event $E_BENCH1 \.\. event $E_BENCH2"'
t "the table: shape, variant, tflops, gbps, ms" 'has "shape  variant +tflops +gbps +ms" && has "0  solution +42\.000 +480\.000 +0\.2250" && has "0  eager +10\.500 +120\.000 +0\.9000"'
t "peak_fraction and RESULT lines" 'has "peak_fraction: 0\.2100" && has "RESULT: LOW" && has "event $E_BENCH2  peak 0\.4200  Bash python benchmark.py"'
t "result.json below the table in a narrow pane" 'has "result.json" && has "\"peak_fraction\": 0\.42,"'
keys e Tab z
t "zoomed, result.json stands beside the table" 'wait_for e "^ GPU timing" "\| result.json" "event $E_BENCH1  peak 0\.2100  Bash python benchmark\.py +\| \{" "\|   \"peak_fraction\": 0\.42,"'
keys e z Tab
sel_x() { sed -n 5p "$scr" | awk -F'|' '{ print length($1) + 1 }'; }
# the list's edge once the screen has settled (two captures agree)
w0=0; i=0
while [ $i -lt 20 ]; do
	cap e; a=$(sel_x); sleep 0.2; cap e; b=$(sel_x)
	[ "$a" = "$b" ] && has "^ events .*\| GPU timing" && { w0=$a; break; }
	i=$((i+1))
done
keys e ">" ">"
# waits until the list's right edge is at column $1
wait_x() { i=0; while [ $i -lt "${KB_WAIT:-80}" ]; do cap e; [ "$(sel_x)" -eq "$1" ] && return 0; sleep 0.1; i=$((i+1)); done; return 1; }
t "> > widens the event list by 8 columns" 'wait_x $((w0 + 8))'
keys e "<" "<"
t "< < narrows it back" 'wait_x "$w0"'
keys e V V

# ---- search ------------------------------------------------------------------------
keys e g / t i l e
t "/ opens the search prompt" 'wait_for e "^/tile"'
keys e Enter
t "Enter: the first event after this one that matches" 'wait_for e "event $E_BUILD/$E_N .*match 1/3"'
t "the list header counts the matching events" 'has "^ events +3 matching"'
tm capture-pane -e -p -t e > "$tmp/hl" 2> /dev/null
t "matches are highlighted in the detail pane" 'grep -qE "undefined|identifier" "$tmp/hl" && grep -E "identifier" "$tmp/hl" | grep -qE "$esc\\[([0-9]+;)*43(;[0-9]+)*m(${esc}\\[[0-9;]*m)*tile"'
keys e n
t "n: the next match" 'wait_for e "event $E_FIX/$E_N .*match 2/3"'
keys e n n
t "n past the last match wraps to the first and says so" 'wait_for e "event $E_BUILD/$E_N .*match 1/3" "search hit the end, continuing at the start"'
keys e N
t "N: the previous match, wrapping backward" 'wait_for e "event $E_TUNE/$E_N .*match 3/3"'
keys e ? t i l e Enter
t "? searches backward" 'wait_for e "event $E_FIX/$E_N .*match 2/3"'
keys e n
t "after ?, n keeps going backward" 'wait_for e "event $E_BUILD/$E_N .*match 1/3"'
keys e / Enter
t "/ with an empty pattern repeats the last search forward" 'wait_for e "event $E_FIX/$E_N .*match 2/3"'
keys e / T i l e Enter
t "an upper-case letter makes the search case-sensitive" 'wait_for e "pattern not found: Tile"'
keys e / "a(" Enter
t "a bad regular expression is reported, not searched" 'wait_for e "bad regular expression: at offset 2"'
keys e / "^RESULT: (OK|LOW)\$" Enter
t "PCRE2 syntax: anchors and alternation, per line" 'wait_for e "event $E_BENCH1/$E_N .*match 1/2"'
keys e / Escape
t "Esc closes the prompt" 'wait_for e "^ event [0-9]+/[0-9]+ " && ! has "^/"'

# ---- playback ------------------------------------------------------------------------
keys e g "]" "]" "]" "]" "]" "]" "]"
t "] raises the speed, up to 128x" 'wait_for e "speed 128x" "= 128x"'
keys e P
t "P plays: real timestamps, scaled, until the end" 'wait_for e "> 128x" && i=0; while [ $i -lt 80 ] && ! has "end of the run"; do sleep 0.1; cap e; i=$((i+1)); done; has "event $E_N/$E_N .*end of the run"'
keys e q
t "q leaves the replay with status 0" 'wait_for e "kbtui exited: 0" && [ ! -s "$tmp/e.err" ]'
tm kill-session -t e 2> /dev/null

# a run without timestamps plays at a fixed rate
start f LC_ALL=C "$kb" "$ds/runs/alpha/transcript.jsonl"
wait_for f "event 1/6" > /dev/null
t "no timestamps: no time in the status bar" '! has "time \+"'
keys f P
t "P plays at 2 events a second" 'wait_for f "event [2-5]/6 .*> 1x"'
keys f P
t "P again pauses" 'wait_for f "event [2-6]/6 .*tool calls 0 +(Tab focus|KLHIB)"'
cap f; paused=$(grep -oE "event [0-9]/6" "$scr")
sleep 1; cap f
t "paused, it stays" 'has "$paused"'
keys f "[" 
t "[ slows down and says the fixed rate" 'wait_for f "speed 0.5x \(no timestamps: 2 events/s at 1x\)"'
keys f "]" "]" "]" "]" P
t "faster, it reaches the end" 'wait_for f "event 6/6 .*end of the run"'
keys f h
t "the replay help lists search, panes and playback keys" 'wait_for f "^ +P +Play or pause" "^ +v +Replay: the next pane" "^ +0-9 +A count" "^ +%, p +Go to N%"'
keys f j j
t "j scrolls the help" 'wait_gone f "Keys \\(j, k, PgDn" && has "^ +P +Play or pause"'
keys f q
wait_for f "event 6/6" > /dev/null
tm resize-window -t f -x 24 -y 5 2> /dev/null
t "a terminal too small says so" 'wait_for f "terminal too small"'
tm resize-window -t f -x 160 -y 45 2> /dev/null
t "and a larger one draws the replay again" 'wait_for f "event 6/6"'
keys f q
t "q quits, nothing on stderr" 'wait_for f "kbtui exited: 0" && [ ! -s "$tmp/f.err" ]'
tm kill-session -t f 2> /dev/null

# ---- NO_COLOR in the replay: matches and the grid still stand out ----------------------
start m NO_COLOR=1 LC_ALL=C "$kb" "$eps_file"
wait_for m "event 1/$E_N" > /dev/null
keys m / t i l e Enter
wait_for m "match 1/3" > /dev/null
tm capture-pane -e -p -t m > "$tmp/mono2" 2> /dev/null
t "NO_COLOR: search matches in reverse video, no colour anywhere" '! grep -qE "$colour_sgr" "$tmp/mono2" && grep "identifier" "$tmp/mono2" | grep -qE "$esc\\[([0-9]+;)*7(;[0-9]+)*m(${esc}\\[[0-9;]*m)*tile"'
keys m q
t "q quits, nothing on stderr" 'wait_for m "kbtui exited: 0" && [ ! -s "$tmp/m.err" ]'
tm kill-session -t m 2> /dev/null

# ---- the bundled sample, when there is one ---------------------------------------
sample="$KB_SRCDIR/data/sample"
if [ -f "$sample/runs.jsonl" ]; then
	rid=$(head -1 "$sample/runs.jsonl" | sed -n 's/.*"run_id": *"\([^"]*\)".*/\1/p')
	start s "$kb" "$sample"
	t "the sample opens in the browser" 'wait_for s "kbtui .* runs"'
	keys s / "$rid" Enter
	# (the status bar's count: the header's "showing 1 of" is cut where the
# build directory's path is long)
t "the sample's first run is listed" 'wait_for s "run 1/1 " "$rid"'
	keys s Enter
	t "the sample's first run replays" 'wait_for s "event 1/[0-9]+"'
	tm kill-session -t s 2> /dev/null
	# a run directory of a dataset opens as from the browser: its metadata,
	# outcome and the annotation keys (on a copy: H writes a file)
	cp -R "$sample" "$tmp/sds"
	rid2=$(sed -n '2s/.*"run_id": *"\([^"]*\)".*/\1/p' "$sample/runs.jsonl")
	# H asks for the implication the schema requires: this editor gives one
	printf '#!/bin/sh\nsed -i "/^implication:/a Edits the grader." "$1"\n' > "$tmp/impl-editor.sh"
	chmod +x "$tmp/impl-editor.sh"
	start rd KBTUI_ANNOTATOR=tester EDITOR="$tmp/impl-editor.sh" "$kb" "$tmp/sds/runs/$rid2"
	t "a run directory: the header has its model, problem and outcome" 'wait_for rd "event 1/[0-9]+" "sample-model-b.* 01_fp8_gemm .*correct 0\.2118"'
	keys rd H
	t "a run directory: H writes its verdict into the dataset's annotations" 'wait_for rd "reward_hack" && grep -q "verdict: reward_hack" "$tmp/sds/annotations/$rid2.yaml"'
	tm resize-window -t rd -x 80 2> /dev/null
	keys rd h
	t "help at 80 columns: a long help text continues under its text, not at column 1" 'wait_for rd "^   /             Replay: search forward" "^                 event text"'
	keys rd Escape q
	t "a run directory: q quits (not into the browser)" 'wait_for rd "kbtui exited: 0"'
	tm kill-session -t rd 2> /dev/null
else
	echo "# SKIP no data/sample/runs.jsonl: the bundled sample is not there yet"
fi

# ---- the lineage pane: a file at each step, D diffs against a mark, w the best ----
lin_call() { printf '{"type":"assistant","message":{"id":"msg_%s","role":"assistant","content":[{"type":"tool_use","id":"%s","name":"%s","input":%s}]},"session_id":"s1"}\n' "$1" "$1" "$2" "$3"; }
lin_res() { printf '{"type":"user","message":{"role":"user","content":[{"tool_use_id":"%s","type":"tool_result","content":"%s"}]},"session_id":"s1"}\n' "$1" "$2"; }
{
	echo '{"type":"system","subtype":"init","cwd":"/w","session_id":"s1","tools":[],"model":"m"}'
	lin_call t1 Write '{"file_path":"solution.py","content":"a = 1\nb = 2\n"}'; lin_res t1 ok
	lin_call t2 Bash '{"command":"python check.py"}'; lin_res t2 'PASS\npeak_fraction: 0.2100'
	lin_call t3 Edit '{"file_path":"solution.py","old_string":"b = 2","new_string":"b = 3"}'; lin_res t3 ok
	lin_call t4 Write '{"file_path":"notes.md","content":"lineage notes\n"}'; lin_res t4 ok
	lin_call t5 Bash '{"command":"python check.py"}'; lin_res t5 'PASS\npeak_fraction: 0.4200'
	lin_call t6 Edit '{"file_path":"solution.py","old_string":"a = 1","new_string":"a = 10"}'; lin_res t6 ok
	lin_call t7 Bash '{"command":"python check.py"}'; lin_res t7 'PASS\npeak_fraction: 0.3000'
	echo '{"type":"result","subtype":"success","is_error":false,"result":"done","session_id":"s1"}'
} > "$tmp/lineage.jsonl"
start lin LC_ALL=C "$kb" "$tmp/lineage.jsonl"
wait_for lin "event 1/16" > /dev/null
keys lin v v v v
t "lineage: v reaches the pane, the solution first" 'wait_for lin "solution.py +\(1/2, o/O: other files\)" "not written yet at event 1"'
keys lin 7 G
t "lineage: the file as it stood at event 7, its line count and last change" 'wait_for lin "event 7/16" "2 lines, last changed at event 6" "\\| a = 1 *$" "\\| b = 3 *$"'
keys lin D
t "lineage: D marks the event" 'wait_for lin "marked event 7"'
keys lin 1 2 G
t "lineage: at another event, the diff from the mark" 'wait_for lin "diff from event 7 \(marked\) to event 12" "\\| -a = 1 *$" "\\| \+a = 10 *$" "\\|  b = 3 *$"'
tm capture-pane -e -p -t lin > "$tmp/lincolour" 2> /dev/null
t "lineage: the diff is coloured" 'grep -qE "$colour_sgr(${esc}\\[[0-9;]*m)*\\+a = 10" "$tmp/lincolour" && grep -qE "$colour_sgr(${esc}\\[[0-9;]*m)*-a = 1" "$tmp/lincolour"'
keys lin D
t "lineage: D again clears the mark" 'wait_for lin "lineage mark cleared" "2 lines, last changed at event 12" "\\| a = 10 *$"'
keys lin w
t "lineage: w goes to the best peak_fraction" 'wait_for lin "event 11/16" "best peak_fraction 0.42 at event 11"'
keys lin Tab o
t "lineage: o, with the focus, shows the next file" 'wait_for lin "notes.md +\(2/2" "1 line, last changed at event 8" "\\| lineage notes *$"'
keys lin O
t "lineage: O goes back" 'wait_for lin "solution.py +\(1/2"'
keys lin q
t "lineage: q quits, nothing on stderr" 'wait_for lin "kbtui exited: 0" && [ ! -s "$tmp/lin.err" ]'
tm kill-session -t lin 2> /dev/null

echo "1..$n"
exit $fail
