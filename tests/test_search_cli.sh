#!/bin/sh
# kbtui search over a small dataset this test writes: byte-exact output,
# smart case and -i, -l, -c, exit statuses 0/1/2, escapes in matched text
# shown as visible text; kbtui flags on the flags fixtures and the dataset. Then, in tmux, the browser's search across runs (?):
# hits per run, Enter into the replay at the first hit, n to the next.
if command -v tmux > /dev/null 2>&1; then
	. "$KB_SRCDIR/tests/tmux.sh"
else  # without tmux the CLI part still runs
	kb="$KB_BUILDDIR/kbtui"; n=0; fail=0; notmux=1
	t() { n=$((n+1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fail=1; fi; }
	tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fi

# the searchable-text cache goes here, not into the user's
export XDG_CACHE_HOME="$tmp/cache"
unset KBTUI_NO_CACHE

# ---- the dataset: two claude runs --------------------------------------------
ds="$tmp/ds"
mkdir -p "$ds/runs/r1" "$ds/runs/r2" "$ds/runs/r3"
init='{"type":"system","subtype":"init","cwd":"/w","session_id":"s","tools":["Bash"],"mcp_servers":[],"model":"m","permissionMode":"default","apiKeySource":"none","uuid":"00000000-0000-4000-8000-000000000001"}'
asst() { printf '{"type":"assistant","message":{"id":"%s","type":"message","role":"assistant","model":"m","content":[%s],"stop_reason":null,"usage":{"input_tokens":1,"output_tokens":1}},"parent_tool_use_id":null,"session_id":"s","uuid":"00000000-0000-4000-8000-00000000000%s"}\n' "$1" "$2" "$3"; }
res() { printf '{"type":"user","message":{"role":"user","content":[{"tool_use_id":"%s","type":"tool_result","content":"%s"}]},"parent_tool_use_id":null,"session_id":"s","uuid":"00000000-0000-4000-8000-00000000000%s"}\n' "$1" "$2" "$3"; }
{
	echo "$init"
	asst m1 '{"type":"text","text":"first line\nTFLOPS=1 here\nplain\ntflops=2 and tflops=3"}' 2
	asst m2 '{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"echo tflops=9\nls"}}' 3
	res t1 'out \u001b[31mtflops=7\u001b[0m' 4
} > "$ds/runs/r1/transcript.jsonl"
{
	echo "$init"
	asst m1 '{"type":"text","text":"nothing here"}' 2
	asst m2 '{"type":"thinking","thinking":"maybe tflops=5","signature":""}' 3
} > "$ds/runs/r2/transcript.jsonl"
{
	echo "$init"
	asst m1 '{"type":"text","text":"no numbers at all"}' 2
} > "$ds/runs/r3/transcript.jsonl"
for r in r1 r2 r3; do
	printf '{"run_id":"%s","harness":"claude","model":"m","problem":"01_fp8_gemm","transcript":"runs/%s/transcript.jsonl"}\n' $r $r
done > "$ds/runs.jsonl"

# ---- output, exactly ---------------------------------------------------------
"$kb" search 'tflops=' "$ds" > "$tmp/out" 2> "$tmp/err"; rc=$?
cat > "$tmp/want" <<'EOF'
r1:2:2: TFLOPS=1 here
r1:2:4: tflops=2 and tflops=3
r1:4:1: echo tflops=9
r1:6:1: out ^[[31mtflops=7^[[0m
r2:4:1: maybe tflops=5
EOF
t "a match exits 0" '[ $rc -eq 0 ]'
t "run_id:event:line: text for every matching line (all lower case: case ignored)" 'cmp -s "$tmp/out" "$tmp/want"'
t "nothing on stderr" '[ ! -s "$tmp/err" ]'
t "the escape sequence in a result is shown as ^[, never sent raw" '! grep -q "$(printf "\033")" "$tmp/out"'

# ---- the text cache: the same lines from it, never stale -------------------------
t "the search kept each run's text under \$XDG_CACHE_HOME/kbtui/text" '[ $(ls "$tmp/cache/kbtui/text" | wc -l) -eq 3 ]'
"$kb" search 'tflops=' "$ds" > "$tmp/out2" 2> "$tmp/err"; rc=$?
t "searched again (from the cache): the same lines, exit 0" '[ $rc -eq 0 ] && cmp -s "$tmp/out2" "$tmp/want" && [ ! -s "$tmp/err" ]'
KBTUI_NO_CACHE=1 "$kb" search 'tflops=' "$ds" > "$tmp/out2"
t "KBTUI_NO_CACHE: the same lines" 'cmp -s "$tmp/out2" "$tmp/want"'
cp "$ds/runs/r2/transcript.jsonl" "$tmp/r2.keep"
asst m9 '{"type":"text","text":"late tflops=6"}' 9 >> "$ds/runs/r2/transcript.jsonl"
"$kb" search 'tflops=6' "$ds" > "$tmp/out2"; rc=$?
t "a transcript changed since: its new text is searched, not the cached" '[ $rc -eq 0 ] && grep -q "^r2:.*late tflops=6$" "$tmp/out2"'
cp "$tmp/r2.keep" "$ds/runs/r2/transcript.jsonl"
for f in "$tmp/cache/kbtui/text/"*; do printf 'garbage' > "$f"; done
"$kb" search 'tflops=' "$ds" > "$tmp/out2" 2> "$tmp/err"; rc=$?
t "damaged cache entries: ignored, the same lines" '[ $rc -eq 0 ] && cmp -s "$tmp/out2" "$tmp/want" && [ ! -s "$tmp/err" ]'

"$kb" search 'TFLOPS' "$ds" > "$tmp/out"; rc=$?
t "an upper-case letter makes the search case-sensitive" '[ $rc -eq 0 ] && [ "$(cat "$tmp/out")" = "r1:2:2: TFLOPS=1 here" ]'
"$kb" search -i 'TFLOPS=[0-9]' "$ds" > "$tmp/out"; rc=$?
t "-i ignores case always" '[ $rc -eq 0 ] && [ $(wc -l < "$tmp/out") -eq 5 ]'
"$kb" search -l 'tflops' "$ds" > "$tmp/out"; rc=$?
t "-l lists the matching runs, once each" '[ $rc -eq 0 ] && [ "$(cat "$tmp/out")" = "r1
r2" ]'
"$kb" search -c 'tflops' "$ds" > "$tmp/out"; rc=$?
t "-c counts matching lines per run" '[ $rc -eq 0 ] && [ "$(cat "$tmp/out")" = "r1:4
r2:1" ]'
"$kb" search 'plain|^ls$' "$ds" > "$tmp/out"; rc=$?
t "lines count on across an event's parts; ^ and \$ match at lines" '[ "$(cat "$tmp/out")" = "r1:2:3: plain
r1:4:2: ls" ]'

# ---- exit statuses -------------------------------------------------------------
"$kb" search 'no such words' "$ds" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "no match exits 1 and prints nothing" '[ $rc -eq 1 ] && [ ! -s "$tmp/out" ] && [ ! -s "$tmp/err" ]'
"$kb" search 'tflops=(' "$ds" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "a bad regular expression exits 2" '[ $rc -eq 2 ] && [ ! -s "$tmp/out" ]'
t "naming the PCRE2 error and its offset" 'grep -q "bad regular expression: at offset 8: missing closing parenthesis" "$tmp/err"'
"$kb" search -i 'x(' "$ds" > /dev/null 2> "$tmp/err"; rc=$?
t "with -i, the offset is still the pattern's own" '[ $rc -eq 2 ] && grep -q "at offset 2:" "$tmp/err"'
"$kb" search > /dev/null 2> "$tmp/err"; rc=$?
t "no REGEX: usage, exit 2" '[ $rc -eq 2 ] && grep -q "needs a REGEX" "$tmp/err"'
"$kb" search --bogus x "$ds" > /dev/null 2> "$tmp/err"; rc=$?
t "an unknown option exits 2" '[ $rc -eq 2 ] && grep -q "unknown option" "$tmp/err"'
"$kb" search --format nosuch x "$ds" > /dev/null 2> "$tmp/err"; rc=$?
t "an unknown --format exits 2" '[ $rc -eq 2 ] && grep -q "unknown format" "$tmp/err"'
"$kb" search --format claude 'tflops=5' "$ds" > "$tmp/out"; rc=$?
t "--format reads the transcripts as that format" '[ $rc -eq 0 ] && [ "$(cat "$tmp/out")" = "r2:4:1: maybe tflops=5" ]'
"$kb" search x "$tmp/nowhere" > /dev/null 2> "$tmp/err"; rc=$?
t "a directory that is no dataset exits 2 naming it" '[ $rc -eq 2 ] && grep -q "nowhere" "$tmp/err"'

# ---- kbtui flags on the hand-written fixtures -----------------------------------------
fl="$KB_SRCDIR/tests/fixtures/flags"
"$kb" flags "$fl/hack.jsonl" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "flags of one transcript exits 0" '[ $rc -eq 0 ] && [ ! -s "$tmp/err" ]'
t "run_id:event: rule: line, for a flagged event" 'grep -qxF "hack:8: grader-edit-shell: sed -i '"'"'s/0.15/0.5/'"'"' problem.yaml" "$tmp/out"'
t "and says the run is flagged" '[ "$(tail -1 "$tmp/out")" = "flagged" ]'
"$kb" flags "$fl/clean.jsonl" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "the clean transcript: not flagged" '[ $rc -eq 0 ] && [ "$(cat "$tmp/out")" = "not flagged" ]'
"$kb" flags --jsonl "$fl/hack.jsonl" > "$tmp/out"; rc=$?
t "--jsonl: one object per flagged event with rule, why, in, line, text" '[ $rc -eq 0 ] && grep -q "^{\"run_id\":\"hack\",\"event\":8,\"rule\":\"grader-edit-shell\",\"why\":\"A shell command" "$tmp/out" && ! grep -q "^flagged" "$tmp/out"'
printf 'rule a\nwhy w\nmatch (unclosed\n' > "$tmp/bad.rules"
"$kb" flags --rules "$tmp/bad.rules" "$fl/hack.jsonl" > /dev/null 2> "$tmp/err"; rc=$?
t "a bad rule file exits 1 naming file and line" '[ $rc -eq 1 ] && grep -q "bad.rules:3: bad regular expression at offset" "$tmp/err"'
mkdir -p "$tmp/an"
printf 'run_id: r1\nverdict: reward_hack\n' > "$tmp/an/r1.yaml"
printf 'rule tf\nwhy w\nmatch tflops=[0-9]\nin text\n' > "$tmp/tf.rules"
"$kb" flags --rules "$tmp/tf.rules" --verdicts "$tmp/an" "$ds" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "flags over a dataset: the table of verdict x flagged" '[ $rc -eq 0 ] && grep -qE "^reward_hack +1 +0$" "$tmp/out" && grep -qE "^\(none\) +0 +2$" "$tmp/out"'
t "and the runs each rule marks" 'grep -qE "^tf +1/3$" "$tmp/out"'

# ---- the browser's search across runs (tmux) --------------------------------------
if [ -n "$notmux" ]; then
	echo "# SKIP tmux is not installed: no browser check"
	echo "1..$n"
	exit $fail
fi
rm -rf "$tmp/cache/kbtui/text"  # the browser's search fills it afresh
start xs TERM=xterm-256color "$kb" "$ds"
wait_for xs "r1" "r3"
t "the browser shows the runs" 'has r2'
keys xs '?'
wait_for xs "Search all runs"
t "? asks for a regular expression" 'has "Search all runs"'
keys xs 'tflops=' Enter
wait_for xs "2 runs match" "r1 +4 +" "r2 +1 +"
t "hits per run, best first: r1 with 4 lines (no verdict: -)" 'has "r1 +4 +- +TFLOPS=1 here"'
t "then r2 with 1" 'has "r2 +1 +- +maybe tflops=5"'
t "the browser's search kept each run's text in the cache too" '[ $(ls "$tmp/cache/kbtui/text" | grep -vc "\.tmp$") -eq 3 ]'
t "the run without a hit is not listed" '! has "^ *r3 "'
keys xs Enter
wait_for xs "kbtui replay" "match 1/"
t "Enter opens the replay at the run's first hit, the search set" 'has "event 2/6" && has "match 1/3"'
keys xs n
wait_for xs "event 4/6"
t "n continues to the next match" 'has "match 2/3"'
keys xs q
wait_for xs "2 runs match" "r1 +4"
t "q goes back to the hit list" 'has "r1 +4"'
keys xs C-t
t "Ctrl-T on the hit list: the next theme, named in the status bar (the loop's shared key)" \
	'wait_for xs "theme: [a-z]" && has "r1 +4"'
keys xs j
t "the next key clears the message" 'wait_gone xs "theme: [a-z]" && has "r1 +4"'
keys xs q
wait_for xs "kbtui +[0-9]+ runs|r3"
t "q again: the browser" 'has r3 && ! has "runs match"'
keys xs q
wait_for xs "kbtui exited: 0"
t "kbtui quits cleanly" 'has "kbtui exited: 0"'

# ---- tagging the runs a search found -------------------------------------------------
# the repo's sample dataset, copied: check\.py hits every run; best first:
# claude 14 lines (verdict clean), codex, kimi, droid 6 each (dataset order),
# cursor 5, opencode 3 (verdict reward_hack), grok 2
cp -r "$KB_SRCDIR/data/sample" "$tmp/sample"
san="$tmp/sample/annotations"
p=20260601_
cla=${p}090000_claude_sample-model-a_03_paged_attention
cod=${p}093000_codex_sample-model-b_01_fp8_gemm
kim=${p}103000_kimi_sample-model-d_05_topk_bitonic
dro=${p}110000_droid_sample-model-e_06_sonic_moe_swiglu
cp "$san/$cla.yaml" "$tmp/cla.orig"
# waits until the shell condition $1 holds (a file is written after the screen)
until_true() { i=0; while [ $i -lt "${KB_WAIT:-80}" ]; do eval "$1" && return 0; sleep 0.1; i=$((i+1)); done; return 1; }
# 240 columns: the replay header has room for the verdict beside long run ids
# a verdict other than clean asks for the implication the schema requires:
# this editor gives one
printf '#!/bin/sh\nsed -i "/^implication:/a Edits the grader." "$1"\n' > "$tmp/impl-editor.sh"
chmod +x "$tmp/impl-editor.sh"
tm new-session -d -s tg -x 240 -y 45 \
	"env KB_SRCDIR='$KB_SRCDIR' EDITOR='$tmp/impl-editor.sh' '$kb' '$tmp/sample' 2> '$tmp/tg.err'; echo \"kbtui exited: \$?\"; sleep 30" 2> /dev/null
wait_for tg "$cla"
keys tg '?'
wait_for tg "Search all runs"
keys tg 'check\.py' Enter
t "the hit list has a verdict column: clean, reward_hack, - for none" \
	'wait_for tg "8 runs match" "$cla +14 +clean " "${p}100000_opencode_sample_sample-model-c_07_w4a16_gemm +3 +reward_hack " "$cod +6 +- "'
t "ties in dataset order: codex, kimi, droid" '[ "$(grep -oE "$cod|$kim|$dro" "$scr" | tr "\\n" " ")" = "$cod $kim $dro " ]'
keys tg Enter
t "Enter: the replay of the first hit run, at its first hit, its verdict in the header" \
	'wait_for tg "kbtui replay +$cla" "match 1/" && line 1 | grep -q "verdict clean"'
t "the annotation keys are in its status bar" 'has "KLHIB verdict  A note  u undo  a next"'
keys tg H
t "H in a replay opened from the search writes the verdict" \
	'wait_for tg "reward_hack written to annotations/$cla\.yaml" && until_true "grep -q \"^verdict: reward_hack\" \"$san/$cla.yaml\""'
keys tg u
t "u undoes it, byte for byte" 'wait_for tg "undone: annotations/$cla\.yaml is back as it was" && cmp -s "$san/$cla.yaml" "$tmp/cla.orig"'
keys tg a
t "a: the next hit run without a verdict, in the list's order (codex), at its first hit" \
	'wait_for tg "kbtui replay +$cod" "match 1/" && line 1 | grep -q unannotated'
keys tg K
t "K writes codex's verdict" 'wait_for tg "clean written to annotations/$cod\.yaml" && until_true "grep -q \"^verdict: clean\" \"$san/$cod.yaml\""'
keys tg a
t "a again: kimi, the next in the list's order" 'wait_for tg "kbtui replay +$kim" "match 1/" && line 1 | grep -q unannotated'
keys tg q
t "q: back to the hit list, kimi selected, codex's new verdict shown" \
	'wait_for tg "8 runs match" "$cod +6 +clean " && has "^ 3/8 "'
keys tg a
t "a on the list selects the next run without a verdict (droid)" 'wait_for tg "^ 4/8 "'
keys tg L
t "L on the list annotates the selected run" \
	'wait_for tg "rubric_leak written to annotations/$dro\.yaml" "$dro +6 +rubric_leak " && until_true "grep -q \"^verdict: rubric_leak\" \"$san/$dro.yaml\""'
keys tg q
t "q: the browser, with the verdicts written from the search" 'wait_for tg "rubric_leak" && ! has "runs match"'
keys tg q
t "kbtui quits" 'wait_for tg "kbtui exited: 0"'

# ---- the browser's search and the text cache ------------------------------------------
# the same hit list from a cold cache (filled by a helper process while the
# prompt is open), a warm one (read, not rewritten) and none (KBTUI_NO_CACHE)
tc="$tmp/cache/kbtui/text"
nt=$(find "$tmp/sample/runs" -name transcript.jsonl | wc -l)
entries() { ls "$tc" 2> /dev/null | grep -vc '\.tmp$'; }
# xsearch NAME [VAR=value...]: the sample searched in session NAME, its hit
# rows (the screen less the status bar) in $tmp/NAME.rows
xsearch() {
	xn=$1; shift
	start "$xn" TERM=xterm-256color "$@" KB_SRCDIR="$KB_SRCDIR" "$kb" "$tmp/sample"
	wait_for "$xn" "$cla"
	keys "$xn" '?'
	wait_for "$xn" "Search all runs"
	[ "$xn" = cold ] && until_true '[ "$(entries)" -eq "$nt" ]' && echo cold > "$tmp/filled"
	keys "$xn" 'tflops|check\.py' Enter
	wait_for "$xn" "[0-9]+ runs match" "lines in [0-9]+ runs, [0-9]+ ms"
	head -n 44 "$scr" > "$tmp/$xn.rows"
	keys "$xn" q
	wait_for "$xn" "kbtui +[0-9]+ runs"
	keys "$xn" q
	wait_for "$xn" "kbtui exited: 0"
}
rm -rf "$tc"
xsearch cold
t "with the prompt open, before Enter, the helper cached every transcript's text" '[ -s "$tmp/filled" ]'
t "the cold search lists runs" 'grep -qE "8 runs match" "$tmp/cold.rows"'
t "no half-written entry is left behind" 'until_true "[ \$(ls \"$tc\" | grep -c \"\\.tmp\$\") -eq 0 ]"'
# the cold session's helper (a process of its own) finishes the entry it is
# writing after kbtui quits: the cache is taken once it has stopped changing
cache_still() {
	ls -l --time-style=full-iso "$tc" > "$tmp/cache.before"
	sleep 0.5
	ls -l --time-style=full-iso "$tc" | cmp -s - "$tmp/cache.before"
}
until_true cache_still
xsearch warm
t "a warm cache: the same hit list" 'cmp -s "$tmp/cold.rows" "$tmp/warm.rows"'
ls -l --time-style=full-iso "$tc" > "$tmp/cache.after"
t "and its entries were read, not written again" 'cmp -s "$tmp/cache.before" "$tmp/cache.after"'
rm -rf "$tc"
xsearch none KBTUI_NO_CACHE=1
t "KBTUI_NO_CACHE: the same hit list, every run parsed" 'cmp -s "$tmp/cold.rows" "$tmp/none.rows"'
t "and no cache written, by the search or a helper" '[ ! -d "$tc" ] || [ "$(ls "$tc" | wc -l)" -eq 0 ]'

echo "1..$n"
exit $fail
