#!/bin/sh
# The compare view (two runs side by side, aligned on milestones), its
# entry points (kbtui compare, c ... c in the browser), and the time split
# and reasoning-honesty marks of the replay, driven in tmux.
. "$KB_SRCDIR/tests/tmux.sh"

# ---- a dataset of two runs of one problem, with known milestones ------------
# alpha (Claude session file, 18 events): compile 4, PASS 9, best 13, end 18
# beta (Codex rollout, 15 events): compile 8, PASS 11, best 13, end 15
fx="$KB_SRCDIR/tests/fixtures/milestones"
ds="$tmp/ds"
mkdir -p "$ds/runs/alpha" "$ds/runs/beta"
cp "$fx/claude_redacted.jsonl" "$ds/runs/alpha/transcript.jsonl"
cp "$fx/codex_encrypted.jsonl" "$ds/runs/beta/transcript.jsonl"
a_id=20260501_100000_claude_claude-opus-4-1_01_fp8_gemm
b_id=20260502_090000_codex_gpt-5.5_01_fp8_gemm
cat > "$ds/runs.jsonl" <<EOF
{"run_id":"$a_id","harness":"claude","model":"claude-opus-4-1","problem":"01_fp8_gemm","correct":true,"peak_fraction":0.4,"format":"claude-session","transcript":"runs/alpha/transcript.jsonl"}
{"run_id":"$b_id","harness":"codex","model":"gpt-5.5","problem":"01_fp8_gemm","correct":false,"peak_fraction":null,"format":"codex","transcript":"runs/beta/transcript.jsonl"}
EOF

# like start, 240 columns wide: room in the header and status lines for
# the time split and the reasoning mark beside everything else
start_wide() {
	name=$1; shift
	tm new-session -d -s "$name" -x 240 -y 45 \
		"env -u NO_COLOR $* 2> '$tmp/$name.err'; echo \"kbtui exited: \$?\"; sleep 30" 2> /dev/null
}
# a screen with the colour resets tmux puts after each attribute change
# taken out, so a selection bar's text follows its SGR at once
sgr_text() { tm capture-pane -e -p -t "$1" 2> /dev/null | sed "s/$esc\[39m//g; s/$esc\[49m//g"; }

# ---- the command line ----------------------------------------------------------
"$kb" compare > /dev/null 2> "$tmp/usage.err"; rc=$?
t "compare without runs is a usage error (2)" '[ $rc -eq 2 ] && grep -q "compare needs RUN_A and RUN_B" "$tmp/usage.err"'
"$kb" compare nosuch 20260501 "$ds" > /dev/null 2> "$tmp/none.err"; rc=$?
t "an unknown run id is bad input (1), named" '[ $rc -eq 1 ] && grep -q "nosuch: no run of" "$tmp/none.err"'
"$kb" compare 2026050 20260501 "$ds" > /dev/null 2> "$tmp/amb.err"; rc=$?
t "an ambiguous prefix is bad input, with the count" '[ $rc -eq 1 ] && grep -q "2026050: 2 runs of .* start with it" "$tmp/amb.err"'

# ---- kbtui compare A B DIR ---------------------------------------------------------
start_wide c NO_COLOR=1 KB_SRCDIR="$KB_SRCDIR" "$kb" compare 20260501 20260502 "$ds"
t "compare shows both run ids" 'wait_for c "kbtui compare" "$a_id" "$b_id"'
t "each side names its model and outcome" 'has "A  $a_id  claude-opus-4-1  correct 0\.4000" && has "B  $b_id  gpt-5\.5  incorrect"'
t "each side lists its milestones (1-based events)" 'has "C compile 4 P PASS 9 B best 13 \(0\.4000\) E end 18" && has "C compile 8 P PASS 11 B best 13 \(0\.4000\) E end 15"'
t "the milestone ruler shows C, P, B, E in order" 'has "aligned [-|]+C-+P-+B-+E"'
t "both start at their first event" 'has " A 1/18 +B 1/15 "'
t "each side shows its time split and reasoning mark" 'has "model 40s tool 2m: compile 30s check 20s bench 90s" && has "model 73s tool 4m: check 2m bench 2m"'
keys c m
t "m: both sides to the first compile" 'wait_for c " A 4/18 +B 8/15 +at first compile"'
keys c m
t "m again: both sides to the first PASS" 'wait_for c " A 9/18 +B 11/15 +at first PASS"'
sgr_text c > "$tmp/sel"
rev=$(grep -oE "$esc\\[([0-9]+;)*7(;[0-9]+)*m[^$esc]*" "$tmp/sel" | grep -F "result")
und=$(grep -oE "$esc\\[([0-9]+;)*4(;[0-9]+)*m[^$esc]*" "$tmp/sel" | grep -F "result")
t "the selected side's row is its PASS result (shape 0 ok)" 'printf "%s\n" "$rev" | grep -qE " 9 +result +Bash shape 0 ok"'
t "the other side's row is its PASS result too (dimmed selection)" 'printf "%s\n" "$und" | grep -qE "11 +result +exec_command Process exited with code 0"'
keys c M
t "M: back to the first compile" 'wait_for c " A 4/18 +B 8/15 +at first compile"'
keys c j
t "j between milestones: the longer side steps, the shorter in proportion" 'wait_for c " A 5/18 +B 8/15 "'
keys c G
t "G: both at their ends" 'wait_for c " A 18/18 +B 15/15 +at end"'
keys c m
t "m after the last milestone says so" 'wait_for c "no milestone after this one"'
keys c g
t "g: both at their first event" 'wait_for c " A 1/18 +B 1/15 "'
keys c h
t "h shows the compare keys" 'wait_for c "Compare: both runs to the next milestone" "Compare: select the other run"'
t "... the verdict keys (they act on the selected side), not a (no next run here)" \
	'has "compare view.s selected side" && ! has "The next run without a verdict"'
keys c q
t "the help closes" 'wait_for c "aligned [-|]+C"'
keys c Tab Enter
t "Tab, Enter: the replay of side B" 'wait_for c "kbtui replay +$b_id"'
t "the replay header has B's reasoning mark and time split" 'has "reasoning encrypted: 18\.2k reasoning tokens, 0 chars shown" && has "model 73s tool 4m: check 2m bench 2m other 1s wait 1s"'
keys c 9 G
t "the status line gives the step's time: check.py's 60 s" 'wait_for c "event 9/15 .*  step tool 60s check"'
keys c q
t "q: back to the compare view" 'wait_for c "kbtui compare" " A 1/18 +B 1/15 "'
keys c m
wait_for c " A 4/18 +B 8/15 +at first compile"
keys c Enter
t "Enter at a milestone: B's replay at the event the view shows for B" 'wait_for c "kbtui replay +$b_id" "event 8/15 "'
keys c j j
wait_for c "event 10/15 "
keys c q
t "q: the compare view where it was, at the first compile" 'wait_for c "kbtui compare" " A 4/18 +B 8/15 +at first compile"'
keys c Tab m
wait_for c " A 9/18 +B 11/15 +at first PASS"
keys c Enter
t "Tab, m, Enter: A's replay at A's first PASS" 'wait_for c "kbtui replay +$a_id" "event 9/18 "'
keys c q
t "q: back at the first PASS" 'wait_for c "kbtui compare" " A 9/18 +B 11/15 +at first PASS"'
keys c K
t "K without a dataset session says what annotating needs" 'wait_for c "annotating needs a dataset"'
keys c q
t "q leaves, exit status 0" 'wait_for c "kbtui exited: 0"'

# ---- the replay of a run with timestamps and redacted reasoning --------------------
cp "$fx/claude_redacted.jsonl" "$tmp/r.jsonl"
start_wide r KB_SRCDIR="$KB_SRCDIR" "$kb" "$tmp/r.jsonl"
t "replay header: the run's time split" 'wait_for r "kbtui replay" "model 40s tool 2m: compile 30s check 20s bench 90s"'
t "replay header: reasoning redacted, no characters shown" 'has "reasoning redacted: 2 blocks \(no token count\), 0 chars shown"'
keys r 5 G
t "status line: nvcc's result took 30 s of compile" 'wait_for r "event 5/18 .*  step tool 30s compile"'
keys r k
t "status line: a model step" 'wait_for r "event 4/18 .*  step model 2s"'
keys r q
t "the replay quits, exit status 0" 'wait_for r "kbtui exited: 0"'

# ---- the browser: c marks a run, c on another compares them -------------------------
# a verdict other than clean asks for the implication the schema requires:
# this editor gives one
printf '#!/bin/sh\nsed -i "/^implication:/a Edits the grader." "$1"\n' > "$tmp/impl-editor.sh"
chmod +x "$tmp/impl-editor.sh"
start_wide b KB_SRCDIR="$KB_SRCDIR" EDITOR="$tmp/impl-editor.sh" "$kb" "$ds"
t "browser lists both runs" 'wait_for b "run 1/2" "$a_id" "$b_id"'
keys b c
t "c marks the selected run (message and mark)" 'wait_for b "marked $a_id: c on another run compares the two" "^\*claude/claude-opus-4-1"'
keys b j c
t "c on a second run opens the compare view of the two" 'wait_for b "kbtui compare" "A  $a_id" "B  $b_id"'
t "from the browser each side names its verdict" 'has "A  $a_id .* unannotated" && has "B  $b_id .* unannotated"'
keys b K
t "K in the compare view annotates the selected side (A)" \
	'wait_for b "clean written to annotations/$a_id\.yaml" "A  $a_id .* verdict clean" && grep -q "^verdict: clean" "$ds/annotations/$a_id.yaml"'
keys b Tab m Enter
t "Tab, m, Enter: B's replay, with the annotation keys" 'wait_for b "kbtui replay +$b_id" "event 8/15 " "KLHIB verdict" && line 1 | grep -q unannotated'
keys b H
t "H there writes B's verdict" 'wait_for b "reward_hack written to annotations/$b_id\.yaml"'
keys b q
t "q: the compare view, B's new verdict on its name line" 'wait_for b " A 4/18 +B 8/15 " "B  $b_id .* verdict reward_hack"'
keys b u
t "u in the compare view undoes B's verdict (the file was new: removed)" \
	'wait_for b "undone: annotations/$b_id\.yaml removed" "B  $b_id .* unannotated" && [ ! -e "$ds/annotations/$b_id.yaml" ]'
keys b Enter
wait_for b "kbtui replay +$b_id"
keys b a
t "a in a replay opened from here comes back, saying where a works" \
	'wait_for b "kbtui compare" "a finds the next run without a verdict from the browser.s list"'
keys b x
t "x: blind mode in the compare view, no model name on screen" 'wait_for b "blind mode: models and harnesses hidden" "A  [^ ]*\[model [12]\]" && ! has "gpt-5\.5|claude-opus"'
keys b x
t "x again shows them" 'wait_for b "blind mode off" "B  $b_id  gpt-5\.5"'
keys b q
t "q goes back to the browser, the mark gone" 'wait_for b "run 2/2" && ! has "^\* "'
t "once loaded, the selected run's marks are on the browser's status line" 'has "run 2/2  .*reasoning encrypted: 18\.2k reasoning tokens"'
keys b c c
t "c twice on one run removes the mark" 'wait_for b "comparison mark removed"'
keys b q
t "the browser quits" 'wait_for b "kbtui exited: 0"'

echo "1..$n"
exit $fail
