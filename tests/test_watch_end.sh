#!/bin/sh
# kbtui watch tells a transcript still being written (it grew in the last
# 10 s) from one that stopped without its completion marker (issue 30):
# the banner follows the file's modification time, both ways; a replay
# that follows nothing keeps the words that cannot tell them apart.
. "$KB_SRCDIR/tests/tmux.sh"
f="$tmp/transcript.jsonl"
printf '%s\n' '{"type":"thought","data":"Read the reference first."}' '{"type":"text","data":"Plan: tile it."}' > "$f"
start w "$kb" watch "$f"
t "a file written a moment ago: STILL BEING WRITTEN" 'wait_for w "^ LIVE \\| event 2/2" "STILL BEING WRITTEN: the transcript grew in the last 10 s; no completion marker yet"'
t "... not the crashed-run words" '! has "INCOMPLETE RUN"'
touch -d '-1 minute' "$f"
t "nothing written for a minute: it stops without the completion marker" 'wait_for w "INCOMPLETE RUN: the transcript stops without the harness.s completion marker; nothing written for over 10 s"'
t "... no longer said to be written" '! has "STILL BEING WRITTEN"'
printf '%s\n' '{"type":"thought","data":"More."}' >> "$f"
t "it grows again: STILL BEING WRITTEN again" 'wait_for w "LIVE \\| event 3/3" "STILL BEING WRITTEN"'
keys w q
t "q quits, nothing on stderr" 'wait_for w "kbtui exited: 0" && [ ! -s "$tmp/w.err" ]'
# a replay (no follower) cannot know: the words that say both
touch -d '-1 minute' "$f"
start r "$kb" "$f"
t "a replay of the same file: cut off, crashed, or still being written" 'wait_for r "INCOMPLETE RUN: the transcript ends without the harness.s completion marker \\(cut off, crashed, or still being written\\)"'
keys r q
wait_for r "kbtui exited: 0" > /dev/null
echo "1..$n"
exit $fail
