#!/bin/sh
# The browser and grid opened on a sweep directory while its cells run
# (local executor, tests/fakellm, the eval stubbed): they fill as cells
# start and finish without a key pressed, name the states as
# `kbtui sweep --status` does, and Enter on a running cell opens its live
# replay, as `kbtui watch` does. A cell that finishes is a run like any:
# its auto-flags found from its whole transcript (which appeared, or grew,
# after the browser opened), its status line the usual one (outcome, peak,
# verdict). Helpers: tests/tmux.sh, tests/sweepenv.sh.
. "$KB_SRCDIR/tests/tmux.sh"
. "$KB_SRCDIR/tests/sweepenv.sh"

# each cell's first turn waits at a gate (a file) the test opens; the
# second writes a solution the env-sniff auto-flag rule flags
gate="$tmp/gate"
touch "$gate"
cat > "$tmp/gate.jsonl" <<GATE
{"text": "Waiting at the gate.", "tool": "bash", "args": "{\"command\": \"while test -e $gate; do sleep 0.2; done; echo through\"}"}
{"text": "Writing the kernel.", "tool": "write_file", "args": "{\"path\": \"solution.cu\", \"content\": \"// good\\\\nint frames = inspect.stack();\\\\n\"}"}
GATE
serve gate "$tmp/gate.jsonl"
models_file "$tmp/models.yaml" "$port"
d="$tmp/sweep"
first=fake-a-high_01_toy
"$kb" sweep --models "$tmp/models.yaml" --problems all --problems-dir "$tmp/problems" --out "$d" \
	--parallel 1 --budget 10m --sandbox none > "$tmp/sweep.out" 2> "$tmp/sweep.err" &
sweeppid=$!
pids="$pids $sweeppid"
t "the first cell runs at the gate, the others are queued" '
	wait_until 240 "[ \"\$(state \"\$d\" $first)\" = running ] && [ -s \"\$d/runs/$first/transcript.jsonl\" ]" &&
	[ "$(state "$d" fake-b_02_toy)" = queued ]'

# ---- the list, then the grid, while cells run -------------------------------------
start b "$kb" "$d"
t "the browser opens on the sweep: every cell a row, the running one and the queued ones named" '
	wait_for b "sweep: 0 done  1 running  3 queued  0 failed  0 killed" "fake-b .*02_toy .*queued" "fake-a \[high\] .*01_toy .*running"'
t "the selected running cell: its state as sweep --status says it" 'wait_for b "run 1/4 .* running [0-9]+s t[0-9]+ [0-9.k]+ "'
keys b v
t "the grid: the running cell shows its elapsed time, the others queued" '
	wait_for b "^ +MODEL +01_toy +02_toy" "fake-a \[high\] *\[> 0m[0-9][0-9]s *\] *queued" "fake-b +queued +queued" "> running \(elapsed\)"'
t "... and the selected cell is described as sweep --status does: running, elapsed, turns, tokens" '
	wait_for b "fake-a \[high\] x 01_toy: running [0-9]+s t[0-9]+ [0-9.k]+ +$first"'
keys b Enter
t "Enter on the running cell opens its live replay, as kbtui watch" '
	wait_for b "^ kbtui watch +$first" "LIVE" "Waiting at the gate\."'
keys b q
t "q goes back to the grid, the running cell still selected" '
	wait_for b "fake-a \[high\] x 01_toy: running " "fake-b +queued +queued"'

# ---- the gate opens: cells finish, the grid fills with no key pressed ------------
rm -f "$gate"
t "without a key: the grid fills, cells done one after another" '
	KB_WAIT=1200 wait_for b "sweep: 4 done  0 running  0 queued  0 failed  0 killed"'
t "... the first cell went from running to done: correct, its peak_fraction, flagged (!) from its whole transcript" '
	wait_for b "fake-a \[high\] *\[[^ ]+!0\.442  \] *[^ ]+!0\.442"'
t "... so are the cells queued when the browser opened (their transcripts came after)" '
	wait_for b "fake-b +[^ ]+!0\.442 +[^ ]+!0\.442"'
t "... and its status line is a run's: outcome, peak, verdict, no more the sweep's state" '
	wait_for b "fake-a \[high\] x 01_toy: correct  peak 0\.4421  verdict none  $first" && ! has "x 01_toy: done "'
wait $sweeppid
rc=$?
t "the sweep ended with every cell done" '[ $rc -eq 0 ]'
"$kb" sweep --status "$d" > "$tmp/grid.txt"
echo "# kbtui sweep --status of the sweep the browser watched:"
sed 's/^/#   /' "$tmp/grid.txt"
keys b Right
t "a cell queued when the browser opened, done now: a run's status line too" '
	wait_for b "fake-a \[high\] x 02_toy: correct  peak 0\.4421  verdict none  fake-a-high_02_toy"'
keys b v
t "the list: every finished cell has its auto-flags, found from the transcript it wrote after the browser opened" '
	wait_for b "fake-a \[high\] .*01_toy .* !1 " "fake-a \[high\] .*02_toy .* !1 " "fake-b .*01_toy .* !1 " "fake-b .*02_toy .* !1 "'
"$kb" flags "$d/runs/fake-b_02_toy" > "$tmp/flags.txt" 2>&1
t "... as kbtui flags finds them (env-sniff)" 'grep -q "env-sniff" "$tmp/flags.txt"'
keys b q
t "q quits the browser" 'wait_for b "kbtui exited: 0"'
t "no sanitizer report" '! grep -qE "runtime error|Sanitizer" "$tmp/b.err" "$tmp/sweep.err" "$d"/runs/*/live.err'

echo "1..$n"
exit $fail
