#!/bin/sh
# The terminal interface as a person sees it: kbtui runs in a tmux pane,
# keys go in with send-keys, the screen comes back with capture-pane and is
# checked for what should be on it. Every wait is bounded (about 5 s).
kb="$KB_BUILDDIR/kbtui"
n=0; fail=0
t() { n=$((n+1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fail=1; fi; }

if ! command -v tmux > /dev/null 2>&1; then
	echo "1..0 # SKIP tmux is not installed"
	echo "# SKIP tmux is not installed"
	exit 0
fi

sock="kbtui-test-$$"
tm() { tmux -L "$sock" -f /dev/null "$@"; }
tmp=$(mktemp -d)
trap 'tm kill-server > /dev/null 2>&1; rm -rf "$tmp"' EXIT

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

# ---- helpers --------------------------------------------------------------
scr="$tmp/screen"
# start NAME [VAR=value...] KBTUI ARGS: a fresh 160x45 session; stderr kept
# in $tmp/NAME.err, the exit status printed when kbtui ends
start() {
	name=$1; shift
	tm new-session -d -s "$name" -x 160 -y 45 \
		"env -u NO_COLOR $* 2> '$tmp/$name.err'; echo \"kbtui exited: \$?\"; sleep 30" 2> /dev/null
}
cap() { tm capture-pane -p -t "$1" > "$scr" 2> /dev/null; }
# waits until the screen of session $1 matches the grep -E pattern $2
wait_for() {
	i=0
	while [ $i -lt 50 ]; do
		cap "$1"
		grep -qE -- "$2" "$scr" && return 0
		sleep 0.1; i=$((i+1))
	done
	return 1
}
keys() { s=$1; shift; tm send-keys -t "$s" "$@"; }
has() { grep -qE -- "$1" "$scr"; }
line() { sed -n "$1p" "$scr"; }
esc=$(printf '\033')
colour_sgr="$esc\\[([0-9]+;)*(3[0-7]|4[0-7])(;[0-9]+)*m"

# ---- the browser -----------------------------------------------------------
start b "$kb" "$ds"
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
keys b ?
t "? shows the browser keys" 'wait_for b "Keys" && has "^ +s +Sort by" && has "^ +/ +Show only runs"'
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
keys b n
t "n with no tool call ahead says so" 'wait_for b "no tool call after this one" && has "event 5/6"'
keys b g Tab j j
t "Tab then j scrolls the detail pane, not the list" 'wait_for b " 3-[0-9]+/[0-9]+ *$" && has "event 1/6"'
keys b z
t "z zooms the detail pane to the whole screen" 'wait_for b "^ event 1 +reasoning" && ! has "^ *2 +text +Plan"'
keys b z Tab
t "z again and Tab: both panes, list focused" 'wait_for b "^ events" && has "^ *2 +text +Plan"'
keys b ?
t "? shows help with the key for next tool call" 'wait_for b "^ +n +Next tool call" && has "^ +e +Next error"'
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
	keys b n
	t "n: the Write call, its path and arguments" 'wait_for b "tool calls 1" && has "tool_call" && has "path: /w/solution.py" && has "file_path: /w/solution.py"'
	t "the call shows its linked result" 'has "result \(event [0-9]+\)" && has "File created successfully at: /w/solution.py"'
	t "the call shows its diff" 'has "^.*\+import torch" && has "^.*\+x = 1"'
	keys b n
	t "n again: the Bash call with its failed result" 'wait_for b "tool calls 2" && has "command: nvcc --version" && has "result \(event [0-9]+\): error" && has "nvcc: command not found"'
	keys b N
	t "N: back to the Write call" 'wait_for b "tool calls 1" && has "path: /w/solution.py"'
	keys b g e
	t "e: the failed tool result" 'wait_for b "^ *[0-9]+ +result +Bash +bash: nvcc: command not found" && has "tool_result +line [0-9]+ +error"'
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
t "a transcript path opens its replay" 'wait_for d "event 1/6" && line 1 | grep -q "alpha/transcript.jsonl"'
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

# ---- the bundled sample, when there is one ---------------------------------------
sample="$KB_SRCDIR/data/sample"
if [ -f "$sample/runs.jsonl" ]; then
	rid=$(head -1 "$sample/runs.jsonl" | sed -n 's/.*"run_id": *"\([^"]*\)".*/\1/p')
	start s "$kb" "$sample"
	t "the sample opens in the browser" 'wait_for s "kbtui .* runs"'
	keys s / "$rid" Enter
	t "the sample's first run is listed" 'wait_for s "showing 1 of" && has "$rid"'
	keys s Enter
	t "the sample's first run replays" 'wait_for s "event 1/[0-9]+"'
	tm kill-session -t s 2> /dev/null
else
	echo "# SKIP no data/sample/runs.jsonl: the bundled sample is not there yet"
fi

echo "1..$n"
exit $fail
