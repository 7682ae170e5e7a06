#!/bin/sh
# Contradictions pointed out and lineage never silently wrong, on screen
# (issue 16): the browser's OK cell and the replay header mark runs whose
# dataset files disagree, the banner says which file says what and does not
# call a run INCOMPLETE that result.json says completed; the lineage pane
# says from which event a file cannot be followed, and W shows the final one.
. "$KB_SRCDIR/tests/tmux.sh"
fx="$KB_SRCDIR/tests/fixtures"

# ---- result.json against runs.jsonl: zai-claude glm-5.1 01 -------------------------
start z "$kb" "$fx/kbh"
t "the browser opens" 'wait_for z "kbtui .*runs"'
keys z / z a i - c l a u d e Enter
t "the zai-claude row is marked: its files disagree" 'wait_for z "showing 1 of" "zai-claude/glm-5.1.*01_fp8_gemm +(✗≠|x!=) "'
keys z Enter
t "the replay header says failed, marked" 'wait_for z "kbtui replay" "failed (≠|!=)  45:00"'
t "the banner names each file with its value" \
	'wait_for z "(≠|!=) files disagree: correct: result\.json true, runs\.jsonl false; peak_fraction: result\.json 0\.4391, runs\.jsonl null"'
t "this run is incomplete, nobody says otherwise: INCOMPLETE stays" 'has "^ INCOMPLETE RUN \(no completion marker\)  (≠|!=) files"'

# ---- a list wider than the screen takes a second row, not the cut ----------------
tm new-session -d -s w -x 110 -y 30 "env -u NO_COLOR '$kb' '$fx/kbh' 2> '$tmp/w.err'; echo \"kbtui exited: \$?\"; sleep 30" 2> /dev/null
wait_for w "kbtui .*runs" > /dev/null
keys w / z a i - c l a u d e Enter
wait_for w "run 1/1 " > /dev/null
keys w Enter
t "at 110 columns the banner breaks between fields onto a second row" \
	'wait_for w "kbtui replay" "^  peak_fraction: result\.json 0\.4391, runs\.jsonl null" && line 2 | grep -qE "correct: result\.json true, runs\.jsonl false;"'
t "the event list starts under it" 'line 4 | grep -qE "^ events"'

tm new-session -d -s e -x 80 -y 24 "env -u NO_COLOR '$kb' '$fx/kbh' 2> '$tmp/e.err'; echo \"kbtui exited: \$?\"; sleep 30" 2> /dev/null
wait_for e "kbtui .*runs" > /dev/null
keys e / z a i - c l a u d e Enter
wait_for e "run 1/1 " > /dev/null
keys e Enter
t "at 80 columns the whole list still shows, on more rows" \
	'wait_for e "kbtui replay" "^  peak_fraction: result\.json 0\.4391, runs\.jsonl null" "^  (≠|!=) files disagree: correct: result\.json true, runs\.jsonl false;" && line 5 | grep -qE "^ events"'

# ---- ASCII: the marker is != ----------------------------------------------------------
start a LC_ALL=C LANG=C "$kb" "$fx/kbh"
t "ASCII: the browser opens" 'wait_for a "kbtui .*runs"'
keys a / z a i - c l a u d e Enter
t "ASCII: the row's OK cell is x!=" 'wait_for a "showing 1 of" "01_fp8_gemm +x!= "'
keys a Enter
t "ASCII: the header's marker is !=" 'wait_for a "kbtui replay" "failed !=  45:00" "!= files disagree: correct:"'

# ---- the transcript without its marker, result.json says complete -----------------
start o "$kb" "$fx/kbh"
wait_for o "kbtui .*runs" > /dev/null
keys o / v 4 - f l a s h _ 0 1 Enter
t "the opencode run is listed" 'wait_for o "showing 1 of" "deepseek-v4-flash"'
keys o Enter
t "the banner says both: mid-turn, and result.json's session_complete" \
	'wait_for o "kbtui replay" "^ transcript ends mid-turn \(no completion marker\); result\.json says session_complete: true"'
t "it does not say INCOMPLETE, in the banner or the status bar" '! has "INCOMPLETE"'
t "the status bar says what the transcript lacks" 'has "no end marker"'

# ---- lineage: codex gpt-5.5 02, a write the renderer cut at event 108 --------------
# 120x40: the pane beside the list is chosen with v there
tm new-session -d -s l -x 120 -y 40 "env -u NO_COLOR '$kb' '$fx/kbh' 2> '$tmp/l.err'; echo \"kbtui exited: \$?\"; sleep 30" 2> /dev/null
wait_for l "kbtui .*runs" > /dev/null
keys l / c o d e x _ g p t - 5 . 5 _ 0 2 Enter
t "the codex run is listed" 'wait_for l "run 1/1 " "02_kda_cutlass"'
keys l Enter
wait_for l "kbtui replay" > /dev/null
keys l G
# the artifact pane's title names solution.py too: the lineage's own line tells
pv=0; while [ $pv -lt 7 ] && ! KB_WAIT=10 wait_for l "last changed at event"; do keys l v; pv=$((pv+1)); done  # (wait_for owns $i)
t "the lineage pane shows solution.py" 'wait_for l "solution\.py +\([0-9]+/[0-9]+, o/O" "last changed at event"'
t "at the end it says from which event the file cannot be followed, and why" \
	'wait_for l "from event 108 on this file cannot be followed: write was cut" "W shows the final file from the run directory"'
keys l W
t "W shows the final solution.py from the run directory, 342 lines" \
	'wait_for l "the final solution\.py from the run directory, 342 lines"'
keys l W
t "W again: the tracked version and its warning" 'wait_for l "from event 108 on this file cannot be followed"'
keys l 1 0 7 G
t "before event 108 the file is followed: no warning" 'wait_for l "event 107/" "solution\.py +\(" && ! has "cannot be followed"'
keys l h
wait_for l "Lineage pane: mark the selected event" > /dev/null
keys l Space  # W is on the help's second screen at 40 rows
t "the help screen lists W" 'wait_for l "W +Lineage pane: the run directory.s final copy"'

echo "1..$n"
exit $fail
