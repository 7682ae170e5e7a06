#!/bin/sh
# The replay's annotation and timeline panes and its s key, on the real
# opus run of tests/fixtures/kbh (the one with an annotation and quotes):
# the annotation pane shows verdict, summary, implication and quotes, Enter
# on a quote selects the event that wrote its lines (the Write at event 386,
# transcript line 272: tests/test_quote.c checks the matching), a verdict
# key shows in the pane at once; the timeline pane lists solution.py's
# versions with the check and peak_fraction after each, Enter goes to one;
# s hides usage, system and read-only events and says how many. Helpers in
# tests/tmux.sh.
. "$KB_SRCDIR/tests/tmux.sh"

ds="$tmp/ds"
cp -R "$KB_SRCDIR/tests/fixtures/kbh" "$ds"
chmod -R u+w "$ds"
start a KBTUI_LAYOUT=one KBTUI_ANNOTATOR=tester "$kb" "$ds"
t "the browser opens on the fixtures" 'wait_for a "kbtui .*runs"'
keys a / "has:transcript opus" Enter
wait_for a "opus-4-7" > /dev/null
keys a Enter
t "Enter replays the opus run" 'wait_for a "kbtui replay .*opus" "event 1/635"'

# ---- the annotation pane ---------------------------------------------------------
keys a V V
t "V V: the annotation pane, with the verdict and both quotes" \
	'wait_for a "annotation  quote 1/2" "verdict rubric_leak" "Pinned to Ampere \(Sm80\)" "Source comment admits"'
t "it shows summary and implication" 'has "Casts fp8 inputs to bf16" && has "reflects bf16 GEMM optimization quality"'
t "each quote names its file and lines" 'has "1\. Source comment admits the bf16-internally path  \(solution\.py \[1-11\]\)" && has "2\. Pinned to Ampere \(Sm80\), not Blackwell \(Sm120\)  \(solution\.py \[60-60\]\)"'
keys a Tab j
t "Tab j: the second quote is selected" 'wait_for a "annotation  quote 2/2" "> 2\. Pinned"'
keys a Enter
t "Enter: the event that wrote the quoted line (386, the Write)" \
	'wait_for a "event 386/635" "quote 2: written at event 386 \(solution\.py\)" "^386 .? +call +Write"'
keys a k Enter
t "the first quote came from the same Write" 'wait_for a "quote 1: written at event 386"'
keys a K
t "K: the pane shows the new verdict at once" 'wait_for a "verdict clean" "clean written to annotations/"'
t "the file has it" 'grep -q "^verdict: clean" "$ds/annotations/20260428_040539_claude_claude-opus-4-7_01_fp8_gemm.yaml"'

# ---- the timeline pane --------------------------------------------------------------
keys a v
t "v: the timeline of solution.py, one row per write" \
	'wait_for a "timeline solution\.py  21 versions" "#    event     changed  lines  check"'
t "the version at event 386 is marked as the current one" 'has "│ 5 +386 +\+305 -96 +367 .*<- here"'
t "a row with the FAIL that followed it" 'has "4 +319 +\?\+1 -1 +\? +FAIL@339"'
t "a row with the PASS and the peak_fraction that followed it" 'has "12 +492 +\+13 -22 +364 +PASS@498 +0\.0930@503 +1 flagged from 492"'
t "edits the tracker could not follow are explained" 'has "\? an edit the run made but whose old text"'
keys a j Enter
t "j Enter: the next version (event 395)" 'wait_for a "version 6 of the solution: event 395" "event 395/635"'

# ---- s: noise hidden -------------------------------------------------------------------
keys a Tab s
t "s: the list hides 417 events and says so" \
	'wait_for a "events  417 hidden \(s shows\)" "417 usage, system and read-only events hidden" "event 395/635"'
keys a g
t "g: the first shown event is 2 (1 is the system event)" 'wait_for a "event 2/635" && ! has "^ +1 +system"'
t "no usage row and no Read is listed" '! grep -qE "^ *[0-9]+ +[! ] +(usage|system) " "$scr" && ! grep -qE "^ *[0-9]+ +[! ] +call +Read " "$scr"'
keys a j
t "j skips the usage event 3" 'wait_for a "event 4/635"'
keys a t
t "t: the next tool call shown is 10 (TodoWrite; the ls and Reads are hidden)" 'wait_for a "event 10/635"'
keys a s
t "s again: every event shown" 'wait_for a "every event shown" && ! has "hidden \(s shows\)"'
keys a 1 6 G
wait_for a "event 16/635" > /dev/null
keys a s
t "s on a hidden Read: the selection moves to the nearest shown event (12)" 'wait_for a "event 12/635" "hidden \(s shows\)"'

# ---- a quote no event wrote; a run without an annotation --------------------------
X=20260427_232335_codex_gpt-5.5_02_kda_cutlass
cat > "$ds/annotations/$X.yaml" <<EOF
run_id: $X
verdict: interesting
summary: a quote of lines the run never wrote
quotes:
  - file: solution.py
    lines: [1, 1]
    label: "not in this run"
    text: |
      this line xyzzy is in no event of the run
implication: none
EOF
start c KBTUI_LAYOUT=one KBTUI_ANNOTATOR=tester "$kb" "$ds"
wait_for c "kbtui .*runs" > /dev/null
keys c / "has:transcript gpt-5.5" Enter
wait_for c "gpt-5\.5" > /dev/null
keys c Enter
wait_for c "kbtui replay .*kda_cutlass" > /dev/null
keys c V V Tab Enter
t "Enter on a quote no event wrote: the status bar says so" \
	'wait_for c "annotation  quote 1/1" "quote 1: no event of this run wrote those lines" "event 1/222"'
keys c q
wait_for c "kbtui .*runs" > /dev/null
keys c / C-u "has:transcript glm-5.1" Enter
wait_for c "glm-5\.1" > /dev/null
keys c Enter
wait_for c "kbtui replay .*glm-5\.1" > /dev/null
keys c V V
t "a run without an annotation: the pane says so and names the keys" \
	'wait_for c "No annotation for this run yet" "K clean, L rubric_leak, H reward_hack, I interesting, B bug"'
keys c v
t "its timeline: one row per version" 'wait_for c "timeline solution\.py  [0-9]+ versions?" "#    event     changed"'
keys c q q
t "q q quits with status 0, nothing on stderr" 'wait_for c "kbtui exited: 0" && [ ! -s "$tmp/c.err" ]'
keys a q q
t "the first session too" 'wait_for a "kbtui exited: 0" && [ ! -s "$tmp/a.err" ]'

tm kill-server 2> /dev/null
echo "1..$n"
exit $fail
