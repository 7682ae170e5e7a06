#!/bin/sh
# Hostile datasets through the terminal front end: a one-line event of
# 8 MB (it once overflowed the stack in the wrap code), an annotation that
# is a YAML alias bomb, and a solution.py linked out of the dataset.
# Inputs are generated here, at test time.
. "$KB_SRCDIR/tests/tmux.sh"
export LC_ALL=C

# ---- an 8 MB one-line text event ---------------------------------------------
{
	printf '{"type":"thought","data":"short"}\n{"type":"text","data":"'
	head -c 8500000 /dev/zero | tr '\0' 'w' | sed 's/wwwww/word /g'
	printf 'THE-END"}\n{"type":"end","sessionId":"s"}\n'
} > "$tmp/big.jsonl"
t "the transcript's one text event is over 8 MB" '[ $(wc -c < "$tmp/big.jsonl") -gt 8000000 ]'
# the one-pane layout: the detail pane beside the list takes Tab
start big KBTUI_LAYOUT=one "$kb" "$tmp/big.jsonl"
t "the replay opens" 'wait_for big "event 1/2"'
keys big j
t "selecting the 8 MB event shows it, wrapped into tens of thousands of rows" \
	'wait_for big "event 2  text" "1-[0-9]+/[0-9]{5,} *$" "word word word"'
keys big Tab G
t "G in the detail pane reaches its last row, the event's end" 'wait_for big "THE-END"'
keys big q
t "q quits with status 0, nothing on stderr" 'wait_for big "kbtui exited: 0" && [ ! -s "$tmp/big.err" ]'
tm kill-session -t big 2> /dev/null

# ---- a dataset with an alias bomb and a linked-out solution ----------------------
ds="$tmp/ds"
R=20260101_000000_grok_m_01_fp8_gemm
mkdir -p "$ds/runs/R" "$ds/annotations"
printf '%s\n' '{"type":"text","data":"Writing the kernel."}' '{"type":"end","sessionId":"s","stopReason":"EndTurn"}' \
	> "$ds/runs/R/transcript.jsonl"
printf 'root:$6$SECRET-HASH:19000:0:99999:7:::\n' > "$tmp/shadow"
ln -s "$tmp/shadow" "$ds/runs/R/solution.py"
printf 'PASS shape 0\n' > "$ds/runs/R/check.log"
printf '{"run_id":"%s","harness":"grok","model":"m","problem":"01_fp8_gemm","correct":true,"peak_fraction":0.25,"format":"grok","transcript":"runs/R/transcript.jsonl"}\n' "$R" > "$ds/runs.jsonl"
{
	printf 'run_id: %s\nverdict: clean\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n' "$R"
	for k in 1 2 3 4 5 6 7 8; do
		j=$((k - 1))
		printf 'a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n' $k $k $j $j $j $j $j $j $j $j $j $j
	done
} > "$ds/annotations/$R.yaml"
t "the bomb is under 600 bytes" '[ $(wc -c < "$ds/annotations/$R.yaml") -lt 600 ]'

start bomb "$kb" "$ds"
t "the browser opens on the dataset with the bomb in it" 'wait_for bomb "kbtui .*/ds +1 runs" "grok/m +01_fp8_gemm"'
keys bomb Enter
t "Enter replays the run" 'wait_for bomb "kbtui replay +$R"'
vs=0
while [ $vs -lt 8 ] && ! has "solution\.py \(refused\)"; do
	keys bomb v; KB_WAIT=10 wait_for bomb "solution\.py \(refused\)"; vs=$((vs+1))
done
t "the artifact pane lists solution.py as refused" 'wait_for bomb "solution\.py \(refused\) +\(1/"'
t "and says why" 'has "solution\.py refused: a link that resolves outside the dataset; not read"'
t "the linked file's bytes are not on screen" '! has "SECRET-HASH"'
keys bomb Tab Q
t "Q on it says there is nothing to quote, and why" 'wait_for bomb "nothing to quote: this file was refused"'
keys bomb o
t "o goes on to the next file, which is read" 'wait_for bomb "check\.log +\(2/" "1 PASS shape 0"'
keys bomb q q
t "q q quits with status 0" 'wait_for bomb "kbtui exited: 0"'
tm kill-session -t bomb 2> /dev/null
t "the annotation was not changed" 'grep -q "^a8: &a8" "$ds/annotations/$R.yaml" && ! grep -q SECRET "$ds/annotations/$R.yaml"'

# ---- a call whose arguments hide their rest behind a \u0000 -----------------------
# codex keeps a call's arguments as JSON text; a NUL in a value must not end
# what the detail pane shows of it
printf '%s\n' '{"type":"session_meta","payload":{"id":"s"}}' \
	'{"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"echo ok\\u0000 cat ../other_run/solution.py\"]}","call_id":"c1"}}' \
	> "$tmp/nulargs.jsonl"
start nul KBTUI_LAYOUT=one "$kb" --format codex "$tmp/nulargs.jsonl"
t "the replay of the run with a NUL in a call's arguments opens" 'wait_for nul "event 1/2"'
keys nul j
t "the detail pane shows what follows the NUL (the argument in its array, to its end)" 'wait_for nul "\"-lc\", \"echo ok.* cat \.\./other_run/solution\.py\"\]"'
keys nul q
t "q quits with status 0, nothing on stderr" 'wait_for nul "kbtui exited: 0" && [ ! -s "$tmp/nul.err" ]'
tm kill-session -t nul 2> /dev/null

echo "1..$n"
exit $fail
