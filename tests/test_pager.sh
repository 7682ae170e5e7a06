#!/bin/sh
# A big transcript opened as a pager opens a file (ui/pager.c): the first
# screen from the first bytes, the rest read between keys with how far it
# got in the status line, the selection left where the user puts it; a
# pipe (kbtui <(zcat run.jsonl.gz)) read without holding up the keys.
# 19 MB read whole several times below, a sanitizer build among other
# tests at once: the waits may take up to 20 s (they end at the screen)
KB_WAIT=${KB_WAIT:-200}
. "$KB_SRCDIR/tests/tmux.sh"

# 250,000 events (grok: a thought, then a text, in turns), 19 MB (over 16 MiB): many
# slices, and over the size the browser reads through a pager (16 MB)
big="$tmp/big.jsonl"
awk 'BEGIN { for (i = 1; i <= 125000; i++) printf "{\"type\":\"thought\",\"data\":\"thinking about tile %d of the gemm, and about its padding, at some length %d\"}\n{\"type\":\"text\",\"data\":\"step %d done\"}\n", i, i, i }' > "$big"
t "the big transcript is over 16 MiB, the size from which the browser opens a run through a pager" \
	'[ $(wc -c < "$big") -gt 16777216 ]'
"$kb" dump "$big" > "$tmp/dump" 2> "$tmp/dump.err"
t "dump: the big transcript has 250000 events, exit 0, no stderr" '[ $? -eq 0 ] && [ $(wc -l < "$tmp/dump") -eq 250000 ] && [ ! -s "$tmp/dump.err" ]'

# ---- a regular file ----------------------------------------------------------------
start p "$kb" "$big"
t "the replay reads the whole file, the selection staying on the first event" \
	'wait_for p "event 1/250000 " && wait_gone p "reading [0-9]+% of"'
keys p G
t "G goes to the last event once all is read" 'wait_for p "event 250000/250000 " && has "step 125000 done"'
keys p g
t "g back to the first" 'wait_for p "event 1/250000 " && has "thinking about tile 1 of"'
keys p q
t "q quits with status 0, nothing on stderr" 'wait_for p "kbtui exited: 0" && [ ! -s "$tmp/p.err" ]'

# --event beyond the first slices: read until it is there, opened on it
start e "$kb" --event 70001 "$big"
t "--event 70001 opens on event 70001 of a file read in slices, the list scrolled to it" \
	'wait_for e "event 70001/250000 " && has "thinking about tile 35001 of" && has "^ *70001 +think "'
keys e q
t "and quits with status 0, nothing on stderr" 'wait_for e "kbtui exited: 0" && [ ! -s "$tmp/e.err" ]'

# ---- G with most of the file unread: the end at once, as less shows it -------------
# each turn held to 16 kB (KBTUI_PAGER_TURN, for tests): the read from the
# start takes over a thousand turns, so G comes with most of it unread
g_lines=$(wc -l < "$big")
start g1 KBTUI_PAGER_TURN=16384 "$kb" "$big"
t "a read held to 16 kB a turn: the first screen, reading" 'wait_for g1 "event 1/[0-9]+ " "reading [0-9]+% of"'
keys g1 G
t "G with most unread: the end read apart at once, on its last event, its first line counted" \
	'wait_for g1 "\(the end, from line [0-9]+\)" "the end, from line [0-9]+; reading [0-9]+% of" "step 125000 done" &&
	 g_at=$(grep -oE "the end, from line [0-9]+;" "$scr" | grep -oE "[0-9]+") && [ "$g_at" -gt 100000 ] && [ "$g_at" -le "$g_lines" ]'
t "the end's list ends with the file's last event, selected" 'has "step 125000 done" && ! has "event 1/"'
t "once the read from the start is over, the end gives way to the whole run, on its last event" \
	'wait_for g1 "event 250000/250000 " && ! has "the end, from line" && has "step 125000 done"'
keys g1 q
t "q quits with status 0, nothing on stderr" 'wait_for g1 "kbtui exited: 0" && [ ! -s "$tmp/g1.err" ]'

start g2 KBTUI_PAGER_TURN=16384 "$kb" "$big"
t "again: the first screen, reading" 'wait_for g2 "event 1/[0-9]+ " "reading [0-9]+% of"'
keys g2 G
t "G: the end" 'wait_for g2 "the end, from line [0-9]+; reading"'
keys g2 q
t "q in the end goes back to the read from the start, where it was, still reading" \
	'wait_for g2 "event 1/[0-9]+ " "reading [0-9]+% of" && has "thinking about tile 1 of" && ! has "the end, from line"'
keys g2 q
t "q quits with status 0, nothing on stderr" 'wait_for g2 "kbtui exited: 0" && [ ! -s "$tmp/g2.err" ]'

# a last line of 19 MB: G does not read it apart (it would hold the keys),
# says so, and follows the read from the start
long="$tmp/long.jsonl"
awk 'BEGIN { for (i = 1; i <= 20000; i++) printf "{\"type\":\"thought\",\"data\":\"thinking about tile %d of the gemm, and about its padding, at some length %d\"}\n{\"type\":\"text\",\"data\":\"step %d done\"}\n", i, i, i;
	printf "{\"type\":\"thought\",\"data\":\""; for (i = 1; i <= 900000; i++) printf "the last word %06d ", i; printf "\"}\n" }' > "$long"
start g3 KBTUI_PAGER_TURN=16384 "$kb" "$long"
t "a file that ends in a 19 MB line: the first screen, reading" 'wait_for g3 "event 1/[0-9]+ " "reading [0-9]+% of"'
keys g3 G
t "G before that line is reached: the end is one line of many megabytes, so G follows the read instead" \
	'wait_for g3 "the end is one line of many megabytes: G follows the read from the start" && ! has "the end, from line"'
t "and once read, the last event: that line" 'wait_for g3 "event 40001/40001 " && wait_gone g3 "reading [0-9]+% of" && has "the last word 000001"'
keys g3 q
t "q quits with status 0, nothing on stderr" 'wait_for g3 "kbtui exited: 0" && [ ! -s "$tmp/g3.err" ]'
# the same line after 10 short ones: the first screen's read is in it already
{ head -n 20 "$long"; tail -n 1 "$long"; } > "$tmp/long2.jsonl"
start g4 KBTUI_PAGER_TURN=16384 "$kb" "$tmp/long2.jsonl"
t "ten lines, then 19 MB in one: the first screen" 'wait_for g4 "event 1/[0-9]+ " "reading [0-9]+% of"'
keys g4 G
t "G with the reader in that line: no line starts in what is left, G follows" \
	'wait_for g4 "the end is one line of many megabytes: G follows" && ! has "the end, from line"'
t "once read, its last event: that line" 'wait_for g4 "event 21/21 " && wait_gone g4 "reading [0-9]+% of"'
keys g4 q
t "q quits with status 0, nothing on stderr" 'wait_for g4 "kbtui exited: 0" && [ ! -s "$tmp/g4.err" ]'

# ---- a pipe: its first part, then a pause, then the rest ---------------------------
fifo="$tmp/pipe"
mkfifo "$fifo"
start f "$kb" "$fifo"
exec 3> "$fifo"  # opens once kbtui opened it to read
head -c 400000 "$big" >&3
t "a pipe: the first screen once its first part came, how much so far in the status line" \
	'wait_for f "reading: [0-9]+ kB so far" "event 1/[0-9]+ "'
keys f j
t "the keys are answered while the pipe waits for more" 'wait_for f "event 2/[0-9]+ " "reading: "'
tail -c +400001 "$big" >&3
exec 3>&-
t "the rest, then the end of the pipe: all 250000 events, the status line says no more" \
	'wait_for f "event 2/250000 " && wait_gone f "reading: "'
keys f q
t "q quits with status 0, nothing on stderr" 'wait_for f "kbtui exited: 0" && [ ! -s "$tmp/f.err" ]'

# ---- from the browser: a big run of a dataset -------------------------------------
ds="$tmp/ds"
mkdir -p "$ds/runs/r1"
ln "$big" "$ds/runs/r1/transcript.jsonl" 2> /dev/null || cp "$big" "$ds/runs/r1/transcript.jsonl"
echo '{"run_id":"20260101_000000_grok_big-model_01_fp8_gemm","harness":"grok","model":"big-model","problem":"01_fp8_gemm","format":"grok","transcript":"runs/r1/transcript.jsonl"}' > "$ds/runs.jsonl"
start b "$kb" "$ds"
t "the browser lists the big run" 'wait_for b "big-model"'
t "its FLAGS cell says ? at once: a transcript over 16 MiB is not read between keys to flag it" \
	'wait_for b "big-model +01_fp8_gemm +[^ ]+ +- +- +\? +grok"'
keys b Enter
t "Enter: its replay, read whole, with the index's names in the header" \
	'wait_for b "event 1/250000 " "big-model" && wait_gone b "reading [0-9]+% of"'
keys b G
t "G: the last event" 'wait_for b "event 250000/250000 "'
keys b q
t "q: back in the browser" 'wait_for b "big-model" && wait_gone b "event 250000/"'
keys b Enter
t "Enter again: the run the pager read is the dataset's now, shown at once" 'wait_for b "event 1/250000 "'
keys b q
keys b q
t "q, q: status 0, nothing on stderr" 'wait_for b "kbtui exited: 0" && [ ! -s "$tmp/b.err" ]'
# G from the browser while the run is read: the end, with the index's names;
# the read beneath hands the run to the dataset as it does on top
start bg KBTUI_PAGER_TURN=16384 "$kb" "$ds"
t "the browser, a read held to 16 kB a turn" 'wait_for bg "big-model"'
keys bg Enter
t "Enter: its replay, reading" 'wait_for bg "event 1/250000 |event 1/[0-9]+ " "reading [0-9]+% of"'
keys bg G
t "G: the end at once, the header with the run's model from the index" \
	'wait_for bg "the end, from line [0-9]+; reading" "big-model" "step 125000 done"'
t "the read over: the whole run on its last event" 'wait_for bg "event 250000/250000 " && ! has "the end, from line"'
keys bg q
t "q: back in the browser" 'wait_for bg "big-model" && wait_gone bg "event 250000/"'
keys bg Enter
t "Enter again: the run read beneath the end is the dataset's, shown at once" 'wait_for bg "event 1/250000 "'
keys bg q
keys bg q
t "q, q: status 0, nothing on stderr" 'wait_for bg "kbtui exited: 0" && [ ! -s "$tmp/bg.err" ]'

# q while it is still read: the half-read run goes, nothing is left behind
start h "$kb" "$ds"
wait_for h "big-model" > /dev/null
keys h Enter q
keys h q
t "q at once after Enter, then q: status 0, nothing on stderr" 'wait_for h "kbtui exited: 0" && [ ! -s "$tmp/h.err" ]'

# ---- what is no transcript is still refused before any screen ----------------------
head -c 3000000 /dev/zero | tr '\0' 'x' > "$tmp/junk.jsonl"
"$kb" "$tmp/junk.jsonl" > /dev/null 2> "$tmp/junk.err" < /dev/null
rc=$?
t "a big file that is no transcript: exit 1, the file and why on stderr" \
	'[ $rc -eq 1 ] && grep -q "junk.jsonl:1: unrecognised transcript format" "$tmp/junk.err"'

# ---- a big file that is no transcript: the screen opens at once, reading -----------
# (the first screen waits for 8 MiB at most while no event came: 12 s at a
# gigabyte before, the keys unanswered), and says what it was once read
head -c 20000000 /dev/zero | tr '\0' 'x' | fold -w 100 > "$tmp/junk20.jsonl"
start j KBTUI_PAGER_TURN=16384 "$kb" "$tmp/junk20.jsonl"
t "20 MB of lines no format reads: a screen at once, reading, no event" \
	'wait_for j "reading [0-9]+% of 19 MB" && ! has "event 1/"'
t "once read: the status line says it is no transcript, and why" \
	'wait_for j "NOT A TRANSCRIPT: line 1: unrecognised transcript format: no line is JSON"'
keys j q
t "q: exit 1, the file and why on stderr, as before any screen" \
	'wait_for j "kbtui exited: 1" && grep -q "junk20.jsonl:1: unrecognised transcript format" "$tmp/j.err"'
# lines of JSON no format knows (a log of something else): none is
# malformed, and the screen still says why it shows nothing
awk 'BEGIN { for (i = 0; i < 400000; i++) printf "{\"event\":\"log\",\"n\":%d,\"msg\":\"a line of some other json log\"}\n", i }' > "$tmp/json25.jsonl"
start jj KBTUI_PAGER_TURN=16384 "$kb" "$tmp/json25.jsonl"
t "25 MB of JSON lines of no format: once read, the status line says so, and why" \
	'wait_for jj "NOT A TRANSCRIPT: line 1: unrecognised transcript format: no format knows these record types"'
keys jj q
t "q: exit 1, the file named on stderr" \
	'wait_for jj "kbtui exited: 1" && grep -q "json25.jsonl:1: unrecognised transcript format" "$tmp/jj.err"'
"$kb" "$tmp/junk20.jsonl" > /dev/null 2> "$tmp/junk20.err" < /dev/null
rc=$?
t "the same without a terminal: judged whole first, exit 1, the file and why on stderr" \
	'[ $rc -eq 1 ] && grep -q "junk20.jsonl:1: unrecognised transcript format" "$tmp/junk20.err" &&
	 ! grep -q "needs a terminal" "$tmp/junk20.err"'
# a transcript whose first event comes after 20 MB of lines of no format:
# the screen opens before it, and the event shows once read
{ cat "$tmp/junk20.jsonl"; echo; head -n 4 "$big"; } > "$tmp/late.jsonl"
start l KBTUI_PAGER_TURN=16384 "$kb" "$tmp/late.jsonl"
t "20 MB of garbage, then events: the screen opens reading" 'wait_for l "reading [0-9]+% of"'
t "and the events come once read, the malformed lines said" \
	'wait_for l "event [0-9]+/4 " && wait_gone l "reading [0-9]+% of" && has "thinking about tile 1 of"'
keys l q
t "q: exit 0 (the run was read; its malformed lines are the replay's to show)" \
	'wait_for l "kbtui exited: 0"'

# a pipe that never sends a line of any format (kbtui <(yes)): it used to be
# read before any screen, for ever; the screen opens after 8 MiB, reading
mkfifo "$tmp/yes"
start y "$kb" "$tmp/yes"
yes > "$tmp/yes" 2> /dev/null &
yes_pid=$!
t "a pipe of endless lines no format reads: a screen, reading, no event" \
	'wait_for y "reading: [0-9]+ MB so far" && ! has "event 1/"'
keys y q
t "q quits it with status 0, nothing on stderr" 'wait_for y "kbtui exited: 0" && [ ! -s "$tmp/y.err" ]'
kill $yes_pid 2> /dev/null
wait $yes_pid 2> /dev/null

# the same from the browser: a dataset's run whose transcript is 20 MB of no format
mkdir -p "$tmp/dsj/runs/j1"
cp "$tmp/junk20.jsonl" "$tmp/dsj/runs/j1/transcript.jsonl"
echo '{"run_id":"20260101_000000_grok_junk-model_01_fp8_gemm","harness":"grok","model":"junk-model","problem":"01_fp8_gemm","transcript":"runs/j1/transcript.jsonl"}' > "$tmp/dsj/runs.jsonl"
start bj KBTUI_PAGER_TURN=16384 "$kb" "$tmp/dsj"
t "the browser lists the run" 'wait_for bj "junk-model"'
keys bj Enter
t "Enter: its replay opens reading, then says it is no transcript, and why" \
	'wait_for bj "NOT A TRANSCRIPT: line 1: unrecognised transcript format"'
keys bj q
t "q: back in the browser" 'wait_for bj "junk-model" && wait_gone bj "NOT A TRANSCRIPT"'
keys bj q
t "q: status 0, nothing on stderr" 'wait_for bj "kbtui exited: 0" && [ ! -s "$tmp/bj.err" ]'

# ---- the panes beside the list while a big run of real lines is read ------------
# a pane follows the growing run from what it had: the artifact pane reads
# the transcript's new lines only (it read the whole file again at each
# slice: 20 MB took 28 s), the claims, compiler and timeline panes add the
# new events' part (each made itself from the whole run again)
real="$KB_SRCDIR/tests/fixtures/kbh/runs/20260513_153015_zai-claude_glm-5.1_01_fp8_gemm/transcript.jsonl"
rep="$tmp/real.jsonl"
: > "$rep"
while [ $(wc -c < "$rep") -lt 17000000 ]; do cat "$real" >> "$rep"; done
rep_lines=$(wc -l < "$rep")
rep_events=$("$kb" dump "$rep" | wc -l)
# (16 kB a turn: read at 256 kB, the whole file could be in before the
# first capture, and nothing would be seen reading; the waits for the end
# get 30 s, for a sanitizer build)
start ar KBTUI_LAYOUT=one KBTUI_PAGER_TURN=16384 "$kb" "$rep"
t "a real run repeated to 17 MB: the first screen, reading" 'wait_for ar "event 1/[0-9]+ " "reading [0-9]+% of"'
keys ar v v v Tab o Tab
t "v v v: the artifact pane, Tab o Tab: the transcript in it, the file still being read" \
	'wait_for ar "real.jsonl +\(2/2" "reading [0-9]+% of"'
KB_WAIT=300
t "the whole file read, the pane's transcript has every line of it" \
	"wait_for ar \"event 1/$rep_events \" \"line [0-9]+/$rep_lines\" && wait_gone ar \"reading [0-9]+% of\""
KB_WAIT=80
keys ar G
t "G: the pane's cursor on the last event's line" "wait_for ar \"event $rep_events/$rep_events \" \"line $rep_lines/$rep_lines\""
keys ar q
t "q: status 0, nothing on stderr" 'wait_for ar "kbtui exited: 0" && [ ! -s "$tmp/ar.err" ]'

# the claims a whole load makes (kbtui export reads the file whole): "N, M"
whole=$("$kb" export --format html "$rep" | sed -n 's/.*<h2 id="claims">Claims (\([0-9]*, [0-9]*\) contradicted).*/\1/p')
start cl KBTUI_LAYOUT=one KBTUI_PAGER_TURN=262144 "$kb" "$rep"
keys cl v v v v v v v
t "the claims pane while the run is read" 'wait_for cl "claims +[0-9]+, [0-9]+ contradicted"'
t "once read, it holds the claims a whole load makes ($whole contradicted)" \
	'[ "${whole%%,*}" -gt 34 ] && wait_gone cl "reading [0-9]+% of" && wait_for cl "event 1/$rep_events " "claims +$whole contradicted"'
keys cl q
t "q: status 0, nothing on stderr" 'wait_for cl "kbtui exited: 0" && [ ! -s "$tmp/cl.err" ]'

echo "1..$n"
exit $fail
