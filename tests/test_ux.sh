#!/bin/sh
# The researcher's and annotator's screens (issue 16): the parsers' one-line
# summaries in the event list and detail, approximate token totals marked,
# the grid cursor without colour, questions before tagging a run without a
# transcript, the browser's field filter, contradictions between files.
. "$KB_SRCDIR/tests/tmux.sh"
fx="$KB_SRCDIR/tests/fixtures"

# ---- e->summary: a shell call's command, a result's "exit N: first line" --------
# the one-pane layout: the event list at its width beside one pane
start c KBTUI_LAYOUT=one "$kb" "$fx/codex/rollout_full.jsonl"
t "the codex replay opens" 'wait_for c "kbtui replay"'
t "a shell call shows its command, not its first argument" 'wait_for c "call +shell python sol\.py"'
t "a result shows its exit status and first line" 'has "result +exec_command exit 1: cat: sol\.py: No such file" && has "result +shell exit 1: Traceback"'
keys c g; k=1; while [ $k -lt 8 ]; do keys c j; k=$((k+1)); done
t "the detail of that result leads with the same line" 'wait_for c "event 8/" "│ exit 1: cat: sol\.py: No such file or directory"'

# ---- tokens_approx: totals known to undercount are marked ~ --------------------
sed 's/"version":"2\.0\.61"/"version":"2.0.80"/g' "$fx/claude/session.jsonl" > "$tmp/approx.jsonl"
start a "$kb" "$tmp/approx.jsonl"
t "a run whose totals undercount shows them as ~N" 'wait_for a "kbtui replay" "tokens in ~[0-9.]+[kM]? out ~[0-9.]+"'
start e "$kb" "$fx/claude/session.jsonl"
t "an exact run shows them without ~" 'wait_for e "kbtui replay" "tokens in [0-9]" && ! has "tokens in ~"'
# ---- the grid cursor without colour ------------------------------------------------
cell='\[ +[^] ]+[ !]+[0-9.-]+ [^]]*\]'
start n NO_COLOR=1 "$kb" "$fx/kbh"
t "NO_COLOR: the browser opens" 'wait_for n "kbtui .*runs"'
keys n v
t "NO_COLOR grid: the selected cell is marked [ ... ], once" 'wait_for n "grid *$" && [ "$(grep -oE "$cell" "$scr" | wc -l)" -eq 1 ]'
tm capture-pane -e -p -t n > "$tmp/nc" 2> /dev/null
t "NO_COLOR grid: no colour codes at all" '! grep -qE "$colour_sgr" "$tmp/nc"'
sel0=$(grep -nE "$cell" "$scr" | cut -d: -f1)
keys n j
t "the mark follows the cursor (j: the next row)" 'until_row() { cap n; [ "$(grep -nE "$cell" "$scr" | cut -d: -f1)" = "$((sel0 + 1))" ]; }; i=0; while [ $i -lt 50 ] && ! until_row; do sleep 0.1; i=$((i+1)); done; until_row'
for th in light high-contrast; do
	start "t$th" "$kb" --theme "$th" "$fx/kbh"
	wait_for "t$th" "kbtui .*runs" > /dev/null
	keys "t$th" v
	t "theme $th: the cursor is marked [ ... ] too" 'wait_for "t$th" "grid *$" && [ "$(grep -oE "$cell" "$scr" | wc -l)" -eq 1 ]'
done

# ---- a run without a transcript: a verdict or a compare mark asks first ----------
H=20260428_134617_kimi_kimi-k2.6_07_w4a16_gemm
mkdir -p "$tmp/an"
start h KBTUI_ANNOTATOR=tester "$kb" --annotations "$tmp/an" "$fx/kbh"
t "the browser lists the held-out runs" 'wait_for h "kbtui .*runs"'
keys h / k i m i - k 2 . 6 _ 0 7 Enter
t "the filter leaves the held-out run" 'wait_for h "showing 1 of"'
keys h H
t "H on a run without a transcript asks first" 'wait_for h "$H has no transcript here: write verdict reward_hack anyway\? y/n"'
keys h n
t "n: nothing written, and it says so" 'wait_for h "reward_hack not written: the run has no transcript here" && [ ! -e "$tmp/an/$H.yaml" ]'
keys h K
wait_for h "write verdict clean anyway" > /dev/null
keys h y
t "y: the verdict is written" 'wait_for h "clean written to" && grep -qx "verdict: clean" "$tmp/an/$H.yaml"'
keys h c
t "c on it asks before marking it for compare" 'wait_for h "$H has no transcript here: mark it for compare anyway\? y/n"'
keys h n
t "n: not marked" 'wait_for h "not marked: the run has no transcript here" && ! has "marked $H"'
keys h c
wait_for h "mark it for compare anyway" > /dev/null
keys h y
t "y: marked" 'wait_for h "marked $H: c on another run compares the two"'

# ---- the browser's filter: fields, Ctrl-U, Ctrl-W ---------------------------------
start f "$kb" "$fx/kbh"
t "the browser opens on all runs" 'wait_for f "kbtui .*85 runs"'
keys f / h a s : t r a n s c r i p t Enter
t "has:transcript: the runs with one" 'wait_for f "showing 4 of 85"'
keys f / Space f o r m a t : c o d e x Enter
t "two terms: has:transcript format:codex" 'wait_for f "showing 1 of 85" && has "gpt-5\.5"'
keys f / C-w C-w Enter
t "Ctrl-W takes the last word off (twice: both, no filter left)" 'wait_gone f "showing [0-9]+ of" && has "kbtui .*85 runs"'
keys f / f l a g g e d Enter
t "flagged: the runs a rule trips on" 'wait_for f "showing 3 of 85" && has "glm-5\.1" && has "deepseek-v4-flash"'
keys f / C-u c o r r e c t Space p e a k \> 0 . 5 Enter
t "Ctrl-U clears it; correct peak>0.5" 'wait_for f "showing 2 of 85" && has "claude-opus-4-7" && ! has "glm-5\.1"'
keys f / C-u v e r d i c t : r u b r i c _ l e a k Space c o r r e c t Enter
t "verdict:NAME with another term" 'wait_for f "showing 1 of 85" && has "claude-opus-4-7"'
keys f / C-u k i m i Enter
t "plain words as before" 'wait_for f "showing 7 of 85" && has "kimi-k2\.6"'

echo "1..$n"; exit $fail
