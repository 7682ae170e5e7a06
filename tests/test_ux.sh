#!/bin/sh
# The researcher's and annotator's screens (issue 16): the parsers' one-line
# summaries in the event list and detail, approximate token totals marked,
# the grid cursor without colour, questions before tagging a run without a
# transcript, the browser's field filter, contradictions between files.
. "$KB_SRCDIR/tests/tmux.sh"
fx="$KB_SRCDIR/tests/fixtures"

# ---- e->summary: a shell call's command, a result's "exit N: first line" --------
start c "$kb" "$fx/codex/rollout_full.jsonl"
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

echo "1..$n"; exit $fail
