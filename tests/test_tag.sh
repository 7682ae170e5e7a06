#!/bin/sh
# Annotating in the terminal interface: verdict keys in the browser and the
# replay write annotations/<run_id>.yaml, u undoes byte for byte, a finds
# the next run without a verdict, x (blind mode) keeps model names off every
# screen, A round-trips summary and implication through $EDITOR, and a
# write that would lose work (read-only directory, another annotator's newer
# file) is refused with a message. Helpers in tests/tmux.sh.
. "$KB_SRCDIR/tests/tmux.sh"

# ---- a small dataset written here ----------------------------------------
ds="$tmp/ds"
an="$ds/annotations"
mkdir -p "$ds/runs/alpha" "$ds/runs/beta" "$ds/runs/gamma" "$ds/runs/delta" "$an"
printf '%s\n' '{"type":"text","data":"I am alpha-model and I will tile the GEMM."}' \
	'{"type":"text","data":"Done: a tiled kernel."}' \
	'{"type":"end","sessionId":"sess-a","stopReason":"EndTurn"}' > "$ds/runs/alpha/transcript.jsonl"
for r in beta gamma delta; do
	printf '%s\n' "{\"type\":\"text\",\"data\":\"Run $r: reading the reference.\"}" \
		'{"type":"text","data":"Writing solution.py."}' \
		"{\"type\":\"end\",\"sessionId\":\"sess-$r\",\"stopReason\":\"EndTurn\"}" > "$ds/runs/$r/transcript.jsonl"
done
A=20260101_000000_grok_alpha-model_01_fp8_gemm
B=20260101_000001_grok_beta-model_02_kda_cutlass
C=20260101_000002_grok_gamma-model_03_paged_attention
D=20260101_000003_grok_delta-model_04_kahan_softmax
E=20260101_000004_grok_eps-model_05_topk_bitonic
cat > "$ds/runs.jsonl" <<EOF
{"run_id":"$A","harness":"grok","model":"alpha-model","problem":"01_fp8_gemm","correct":true,"peak_fraction":0.25,"format":"grok","transcript":"runs/alpha/transcript.jsonl"}
{"run_id":"$B","harness":"grok","model":"beta-model","problem":"02_kda_cutlass","correct":false,"peak_fraction":null,"format":"grok","transcript":"runs/beta/transcript.jsonl"}
{"run_id":"$C","harness":"grok","model":"gamma-model","problem":"03_paged_attention","correct":true,"peak_fraction":0.75,"format":"grok","transcript":"runs/gamma/transcript.jsonl"}
{"run_id":"$D","harness":"grok","model":"delta-model","problem":"04_kahan_softmax","correct":true,"peak_fraction":0.5,"format":"grok","transcript":"runs/delta/transcript.jsonl"}
{"run_id":"$E","harness":"grok","model":"eps-model","problem":"05_topk_bitonic","correct":true,"peak_fraction":0.1}
EOF
# beta: a verdict beyond the schema's five; gamma: a hand-written file
cat > "$an/$B.yaml" <<EOF
run_id: $B
model: beta-model
harness: grok
effort: ""
problem: 02_kda_cutlass
peak_fraction: null

verdict: contamination

summary: "Saw the reference solution."
implication: "Not comparable."
EOF
cat > "$an/$C.yaml" <<EOF
run_id: $C
model: gamma-model
harness: grok
effort: ""
problem: 03_paged_attention
peak_fraction: 0.75

verdict: clean

summary: >
  Real paged attention,
  written by hand.
reviewer_note: 'keep me'
EOF
cp "$an/$C.yaml" "$tmp/gamma.orig"

# $EDITOR: what it does comes from $tmp/editor-mode (write, fail, same)
cat > "$tmp/editor.sh" <<EOF
#!/bin/sh
mode=\$(cat "$tmp/editor-mode")
cp "\$1" "$tmp/editor-saw"
case \$mode in
same) exit 0 ;;
fail) printf 'summary:\nscribbled\n' > "\$1"; exit 3 ;;
impl) sed '/^implication:/a Needs a second look.' "\$1" > "\$1.new"; mv "\$1.new" "\$1"; exit 0 ;;
esac
{ grep '^#' "\$1"; printf 'summary:\nThe kernel is real:\nit tiles the GEMM.\n\nimplication:\nThe cell can be trusted.\n'; } > "\$1.new"
mv "\$1.new" "\$1"
EOF
chmod +x "$tmp/editor.sh"

f() { printf '%s/%s.yaml' "$an" "$1"; }
# waits until the shell condition $1 holds (files change after the screen)
until_ok() {
	i=0
	while [ $i -lt "${KB_WAIT:-80}" ]; do
		eval "$1" && return 0
		sleep 0.1; i=$((i+1))
	done
	return 1
}
verdict_is() { grep -qx "verdict: $2" "$(f "$1")"; }
names='alpha-model|beta-model|gamma-model|delta-model|eps-model|grok'

# ---- the browser ----------------------------------------------------------------
echo impl > "$tmp/editor-mode"
start b KBTUI_ANNOTATOR=tester EDITOR="$tmp/editor.sh" "$kb" "$ds"
t "the status line counts verdicts, others and unannotated" 'wait_for b "kbtui .*5 runs" && line 45 | grep -q "run 1/5  clean 1  contamination 1  unannotated 3"'
t "the status bar shows the annotation keys" 'has "KLHIB verdict  A note  u undo  a next  x blind"'
t "the list shows verdicts" 'has "beta-model .*contamination" && has "gamma-model .* clean "'
keys b K
t "K writes clean for the selected run and says where" 'wait_for b "clean written to annotations/$A\.yaml" && verdict_is $A clean'
t "the new file has the run's fields" 'grep -qx "run_id: $A" "$(f $A)" && grep -qx "model: alpha-model" "$(f $A)" && grep -qx "harness: grok" "$(f $A)" && grep -qx "problem: 01_fp8_gemm" "$(f $A)" && grep -qx "peak_fraction: 0.25" "$(f $A)"'
t "the annotator from KBTUI_ANNOTATOR and the time are recorded" 'grep -qx "annotator: tester" "$(f $A)" && grep -qE "^updated: .?20[0-9]{2}-[0-9]{2}-[0-9]{2}T" "$(f $A)"'
keys b C-l  # the message gives the status line back
t "the list and the counts update at once" 'has "alpha-model .* clean " && wait_for b "run 1/5  clean 2  contamination 1  unannotated 2"'
cp "$(f $A)" "$tmp/a.clean"
echo same > "$tmp/editor-mode"
keys b L
t "L without an implication asks for one in the editor" 'wait_for b "rubric_leak not written: the schema requires an implication" && grep -q "requires an implication for every verdict but clean" "$tmp/editor-saw" && grep -q "verdict: rubric_leak" "$tmp/editor-saw"'
t "given none, nothing is written" 'cmp -s "$(f $A)" "$tmp/a.clean"'
echo impl > "$tmp/editor-mode"
keys b L
t "L with the implication given writes both, a file the schema accepts" 'wait_for b "rubric_leak written to annotations/$A\.yaml" && verdict_is $A rubric_leak && grep -q "Needs a second look" "$(f $A)" && ! "$kb" annotations check "$an" 2>&1 | grep "$A" | grep -q error'
keys b H
t "H writes reward_hack" 'wait_for b "reward_hack written" && verdict_is $A reward_hack'
keys b I
t "I writes interesting" 'wait_for b "interesting written" && verdict_is $A interesting'
cp "$(f $A)" "$tmp/a.interesting"
keys b B
t "B writes bug, and the list shows it" 'wait_for b "bug written" && verdict_is $A bug && has "alpha-model .* bug "'
keys b u
t "u restores the previous bytes exactly" 'wait_for b "undone: annotations/$A\.yaml is back" && cmp -s "$(f $A)" "$tmp/a.interesting"'
keys b u u u
t "u further back: the first version" 'until_ok "cmp -s \"\$(f \$A)\" \"\$tmp/a.clean\"" && wait_for b "undone: annotations/$A\.yaml is back"'
keys b u
t "u on a file the session created removes it" 'wait_for b "undone: annotations/$A\.yaml removed" && [ ! -e "$(f $A)" ]'
keys b C-l
t "the counts follow the undo" 'wait_for b "clean 1  contamination 1  unannotated 3"'
keys b u
t "with nothing left, u says so" 'wait_for b "nothing to undo in this session"'
# gamma: a hand-written file keeps its other keys; undo gives its bytes back
keys b j j
wait_for b "run 3/5" > /dev/null
keys b H
t "a verdict on an existing file keeps its other keys" 'wait_for b "reward_hack written to annotations/$C\.yaml" && verdict_is $C reward_hack && grep -q "keep me" "$(f $C)" && grep -q "written by hand" "$(f $C)"'
keys b u
t "u gives the hand-written file back byte for byte" 'wait_for b "undone: annotations/$C\.yaml is back" && cmp -s "$(f $C)" "$tmp/gamma.orig"'

# ---- a: the next run without a verdict ------------------------------------------------
keys b g
wait_for b "run 1/5" > /dev/null
keys b a
t "a selects the next run without a verdict" 'wait_for b "run 4/5" && line 45 | grep -q "run 4/5"'
keys b a
t "a skips runs without a transcript and wraps around" 'wait_for b "run 1/5"'

# ---- the filter by verdict -------------------------------------------------------------
keys b / v e r d i c t : c o n t a m i n a t i o n Enter
t "verdict:NAME shows the runs with that verdict" 'wait_for b "showing 1 of 5" && has "beta-model" && ! has "alpha-model"'
keys b / BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace n o n e Enter
t "verdict:none shows the runs without one" 'wait_for b "showing 3 of 5" && has "alpha-model" && has "eps-model" && ! has "beta-model"'
keys b / BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace c l e a n Enter
t "plain text matches the verdict too" 'wait_for b "showing 1 of 5" && has "gamma-model"'
keys b / BSpace BSpace BSpace BSpace BSpace Enter
wait_for b "run 1/5" > /dev/null

# ---- the replay: verdict keys, a --------------------------------------------------------
keys b a Enter
t "the replay of an unannotated run says so in its header" 'wait_for b "kbtui replay +$D" && line 1 | grep -q unannotated'
t "the replay's status bar shows the annotation keys" 'has "KLHIB verdict  A note  u undo  a next  x blind"'
for k in K:clean L:rubric_leak H:reward_hack I:interesting B:bug; do
	keys b "${k%%:*}"
	t "replay: ${k%%:*} writes ${k#*:} for the run shown" 'wait_for b "${k#*:} written to annotations/$D\.yaml" && verdict_is $D ${k#*:}'
done
t "the replay header shows the new verdict" 'line 1 | grep -q "verdict bug"'

# ---- A: summary and implication in $EDITOR ------------------------------------------------
echo write > "$tmp/editor-mode"
keys b A
t "A: summary and implication end up in the file" 'wait_for b "summary and implication written to annotations/$D\.yaml" && grep -q "The kernel is real: it tiles the GEMM\." "$(f $D)" && grep -q "The cell can be trusted\." "$(f $D)" && verdict_is $D bug'
t "the editor was given the run's fields under their headings" 'grep -qx "summary:" "$tmp/editor-saw" && grep -qx "implication:" "$tmp/editor-saw" && grep -q "$D" "$tmp/editor-saw"'
t "the screen is back after the editor" 'wait_for b "kbtui replay" "event 1/1" "Run delta: reading"'
t "the file passes the schema check" '"$kb" annotations check "$an" > "$tmp/check.out" 2>&1; ! grep -q "$D.*error" "$tmp/check.out"'
cp "$(f $D)" "$tmp/d.saved"
echo fail > "$tmp/editor-mode"
keys b A
t "an editor that fails changes nothing" 'wait_for b "editor exited with status 3: nothing changed" && cmp -s "$(f $D)" "$tmp/d.saved"'
echo same > "$tmp/editor-mode"
keys b A
t "a note saved unchanged changes nothing" 'wait_for b "note unchanged: nothing written" && cmp -s "$(f $D)" "$tmp/d.saved"'
keys b u
t "u undoes the note" 'wait_for b "undone: annotations/$D\.yaml is back" && ! grep -q "The cell can be trusted" "$(f $D)"'
keys b a
t "a in the replay opens the next run without a verdict" 'wait_for b "kbtui replay +$A" && line 1 | grep -q unannotated'
keys b q
t "back in the browser, the list counts the replay's verdicts" 'wait_for b "Enter replay" && has "bug 1  contamination 1" && has "delta-model .* bug "'

# ---- blind mode -----------------------------------------------------------------------------
keys b x
t "x: blind mode says so" 'wait_for b "blind mode: models and harnesses hidden"'
t "blind: no model or harness name in the browser" 'wait_for b "model [1-5] " && ! grep -qE "$names" "$scr"'
t "blind: run ids keep time and problem, the model becomes its number" 'has "20260101_000000_\[model [1-5]\]_01_fp8_gemm"'
t "blind: existing verdicts stay visible" 'has "contamination" && has " bug "'
keys b v
t "blind: the grid's rows are model 1..N, no names" 'wait_for b "^ +model 1 " "^ +model 5 " && ! grep -qE "$names" "$scr"'
keys b v g Enter
t "blind: the replay shows no model or harness name, even in the transcript" 'wait_for b "kbtui replay" "\[model\] and I will tile" && ! grep -qE "$names" "$scr"'
keys b K
t "blind: the verdict message hides the run id's model" 'wait_for b "clean written to annotations/" && ! grep -qE "$names" "$scr" && verdict_is $A clean'
keys b q
wait_for b "Enter replay" > /dev/null
keys b x
t "x again shows the names" 'wait_for b "alpha-model" && has "blind mode off"'
keys b q
t "quit" 'wait_for b "kbtui exited: 0"'

start bl "$kb" --blind "$ds"
t "--blind starts in blind mode" 'wait_for bl "kbtui .*5 runs" "model [1-5] " && ! grep -qE "$names" "$scr"'
keys bl q

# ---- another annotator saved the file after kbtui read it ----------------------------------
start o "$kb" "$ds"
wait_for o "kbtui .*5 runs" > /dev/null
cat > "$(f $C)" <<EOF
run_id: $C
verdict: reward_hack
summary: "Another annotator's view."
implication: "Do not trust the cell."
EOF
touch -d '2030-01-01 00:00:00' "$(f $C)"
cp "$(f $C)" "$tmp/other"
t "the browser notices the other annotator's file by itself, its verdict shown" 'wait_for o "gamma-model .* reward_hack "'
keys o j j K
t "a key after it writes over the version shown" 'wait_for o "clean written to annotations/$C\.yaml" && verdict_is $C clean'
# written in place (same inode, the directory unchanged): noticed on the
# run on screen, when idle
inplace=$(sed 's/^verdict: clean$/verdict: bug/' "$(f $C)")
printf '%s\n' "$inplace" > "$(f $C)"
t "a file written in place is noticed when idle" 'wait_for o "gamma-model .* bug "'
keys o q

# ---- a read-only annotation directory ----------------------------------------------------------
# root writes anywhere: run kbtui as nobody then
runas=
if [ "$(id -u)" = 0 ]; then
	command -v setpriv > /dev/null 2>&1 && runas="setpriv --reuid=65534 --regid=65534 --clear-groups"
fi
if [ "$(id -u)" = 0 ] && [ -z "$runas" ]; then
	echo "# SKIP read-only directory: running as root without setpriv"
else
	chmod 755 "$tmp" "$ds" "$ds/runs" "$ds/runs"/*
	chmod 644 "$ds/runs.jsonl" "$ds/runs"/*/*
	chmod 644 "$an"/*.yaml
	chmod 555 "$an"
	ls -l "$an" > "$tmp/before.ls"
	for x in "$an"/*.yaml; do cp "$x" "$tmp/ro.$(basename "$x")"; done
	start ro $runas "$kb" "$ds"
	wait_for ro "kbtui .*5 runs" > /dev/null
	keys ro K
	t "read-only: the key shows an error naming the file" 'wait_for ro "not written: .*$A\.yaml"'
	keys ro j j B
	t "read-only: an existing file is left as it was" 'wait_for ro "not written: .*$C\.yaml" && cmp -s "$(f $C)" "$tmp/ro.$C.yaml"'
	intact() {
		for x in "$tmp"/ro.*.yaml; do cmp -s "$x" "$an/${x##*/ro.}" || return 1; done
		ls -l "$an" | cmp -s - "$tmp/before.ls"
	}
	t "read-only: nothing is lost or added" 'intact'
	keys ro q
	chmod 755 "$an"
fi

t "nothing on any session's stderr" '! grep -l . "$tmp"/*.err'
echo "1..$n"
exit $fail
