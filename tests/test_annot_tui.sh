#!/bin/sh
# One truth on screen for annotations (issue 25): the grid marks cells
# whose files disagree as the browser's rows do; an annotation changed on
# disk shows by itself and Ctrl-R reads every file again; Y opens the YAML
# in the editor at the selected quote's line and reads it back; a text the
# schema refuses in the A editor is kept as a draft and offered again.
. "$KB_SRCDIR/tests/tmux.sh"

ds="$tmp/ds"
cp -R "$KB_SRCDIR/tests/fixtures/kbh" "$ds"
chmod -R u+w "$ds"
an="$ds/annotations"
K=20260428_040539_claude_claude-opus-4-7_01_fp8_gemm
D=20260427_044258_opencode_deepseek_deepseek-v4-flash_01_fp8_gemm

# the editor: what it does comes from $tmp/mode; it records its arguments
# and the text it was given
cat > "$tmp/editor.sh" <<EOF
#!/bin/sh
printf '%s\n' "\$@" > "$tmp/args"
for f; do :; done
cp "\$f" "$tmp/saw"
case \$(cat "$tmp/mode") in
keep) exit 0 ;;
noimpl) { grep '^#' "\$f"; printf 'summary:\nMy careful summary of the run.\nimplication:\n'; } > "\$f.new" ;;
impl) sed '/^implication:/a Read the cell with care.' "\$f" > "\$f.new" ;;
yaml) sed 's/^verdict: .*/verdict: interesting/' "\$f" > "\$f.new" ;;
esac
cat "\$f.new" > "\$f"
rm -f "\$f.new"
EOF
chmod +x "$tmp/editor.sh"

# ---- the grid: files that disagree -------------------------------------------------------------
start g "$kb" "$ds"
t "the browser opens" 'wait_for g "kbtui .*runs"'
keys g v
t "the grid marks the zai-claude cell whose files disagree, as its browser row" \
	'wait_for g "zai-claude/glm-5.1 .*≠" "≠ files disagree"'
keys g q
start ga LC_ALL=C LANG=C "$kb" "$ds"
wait_for ga "kbtui .*runs" > /dev/null
keys ga v
t "ASCII: the mark is #" 'wait_for ga "zai-claude/glm-5.1 .*[0-9-] *#" "# files disagree"'
keys ga q

# ---- changed on disk: shown by itself; Ctrl-R ------------------------------------------------------
start r KBTUI_ANNOTATOR=tester "$kb" "$ds"
wait_for r "kbtui .*runs" > /dev/null
"$kb" annotate "$D" --verdict bug --implication "Timed out on the rig." "$ds" > /dev/null 2>&1
t "a verdict written by kbtui annotate shows in the open browser" 'wait_for r "deepseek-v4-flash .* bug "'
keys r C-r
t "Ctrl-R reads every file again and says so" 'wait_for r "annotations read again: 2 runs with a verdict"'
keys r q
rm -f "$an/$D.yaml"

# ---- Y: the YAML in the editor, at the selected quote ------------------------------------------------
echo yaml > "$tmp/mode"
start y KBTUI_LAYOUT=one VISUAL="$tmp/editor.sh" "$kb" "$ds"
wait_for y "kbtui .*runs" > /dev/null
keys y / "has:transcript opus" Enter
wait_for y "opus-4-7" > /dev/null
keys y Enter
wait_for y "kbtui replay .*opus" > /dev/null
keys y V V
wait_for y "annotation  quote 1/2" > /dev/null
keys y Tab j
wait_for y "annotation  quote 2/2" > /dev/null
cp "$an/$K.yaml" "$tmp/k.before"
keys y Y
t "Y opens the YAML in \$VISUAL at the selected quote's line" \
	'wait_for y "$K\.yaml read again: verdict interesting" && [ "$(head -1 "$tmp/args")" = "+29" ] && tail -1 "$tmp/args" | grep -q "annotations/$K\.yaml$"'
t "and the pane shows what the editor left" 'wait_for y "verdict interesting"'
t "the file is the editor's, one line changed" '[ "$(diff "$tmp/k.before" "$an/$K.yaml" | grep -c "^[<>]")" = 2 ]'
keys y q q

# ---- A: a refused text is kept as a draft ------------------------------------------------------------------
echo noimpl > "$tmp/mode"
start a KBTUI_ANNOTATOR=tester EDITOR="$tmp/editor.sh" "$kb" "$ds"
wait_for a "kbtui .*runs" > /dev/null
keys a / deepseek-v4-flash Enter
wait_for a "showing 1 of" > /dev/null
keys a L
t "L, the editor left without an implication: refused, the text kept" \
	'wait_for a "rubric_leak not written: the schema requires an implication.*your text is kept: A offers it again"'
t "nothing written" '[ ! -e "$an/$D.yaml" ]'
echo keep > "$tmp/mode"
keys a A
t "A offers it as it was left, with the reason on top" \
	'wait_for a "not written" && grep -q "^# kbtui: NOT WRITTEN: rubric_leak not written: the schema requires an implication" "$tmp/saw" && grep -qx "My careful summary of the run." "$tmp/saw"'
t "saved as it was: still refused, still nothing written" '[ ! -e "$an/$D.yaml" ]'
echo impl > "$tmp/mode"
keys a A
t "given an implication, the draft is written with its verdict" 'wait_for a "rubric_leak written to annotations/$D\.yaml" && grep -qx "verdict: rubric_leak" "$an/$D.yaml" &&
	grep -qx "summary: My careful summary of the run." "$an/$D.yaml" && grep -qx "implication: Read the cell with care." "$an/$D.yaml"'
echo keep > "$tmp/mode"
keys a A
t "and no draft is offered after" 'wait_for a "note unchanged: nothing written" && ! grep -q "NOT WRITTEN" "$tmp/saw"'
keys a q
t "kbtui exits 0" 'wait_for a "kbtui exited: 0"'

# ---- the artifact pane: a 6,147-column line; it follows the selected event -----------------------------
dsr="$ds/runs/$D"
{ printf 'PASS shape 0\n'; printf 'LONG %6138s END\n' '' | tr ' ' x; } > "$dsr/check.log"
start w KBTUI_LAYOUT=one "$kb" "$ds"
wait_for w "kbtui .*runs" > /dev/null
keys w / deepseek-v4-flash Enter
wait_for w "showing 1 of" > /dev/null
keys w Enter
wait_for w "kbtui replay" > /dev/null
vs=0
while [ $vs -lt 8 ] && ! has "solution\.py +\(1/"; do
	keys w v; KB_WAIT=10 wait_for w "solution\.py +\(1/"; vs=$((vs+1))
done
keys w Tab o j
t "a 6,147-character line: its columns counted whole" 'wait_for w "check\.log +\(2/" "line 2/2 +col 1 of 6147 \(Left/Right\)"'
# the raw transcript follows the event selected in the list
while [ $vs -lt 16 ] && ! has "transcript\.jsonl +\("; do
	keys w o; KB_WAIT=10 wait_for w "transcript\.jsonl +\("; vs=$((vs+1))
done
keys w Tab
keys w 5 0 g
t "the transcript's cursor follows the selected event: event 50 came from line 41" 'wait_for w "event 50/" "transcript\.jsonl .* line 41/181"'
keys w q q

# ---- Q on an event: its decoded text, the transcript line it came from -----------------------------------
start e KBTUI_ANNOTATOR=tester "$kb" "$ds"
wait_for e "kbtui .*runs" > /dev/null
keys e / "has:transcript opus" Enter
wait_for e "opus-4-7" > /dev/null
keys e Enter
wait_for e "kbtui replay .*opus" > /dev/null
keys e 3 8 6 g
wait_for e "event 386/635" > /dev/null
keys e Q
if wait_for e "Quote label: "; then
	keys e -l 'the Write of solution.py'
	keys e Enter
	t "Q in the event list quotes the event: transcript.jsonl and its line" \
		'wait_for e "quote of event 386 \(transcript\.jsonl \[272\]\) written to annotations/$K\.yaml"'
	t "the quote holds the decoded text, one line cited" \
		'grep -q "^  - file: transcript.jsonl" "$an/$K.yaml" && grep -A1 "file: transcript.jsonl" "$an/$K.yaml" | grep -qx "    lines: \[272\]" && grep -q "using SmArch = cutlass::arch::Sm80;" "$an/$K.yaml"'
	"$kb" annotations check --quotes "$ds" > "$tmp/out" 2>&1
	t "and maps back to that event" 'grep -q "quote 3 (transcript.jsonl \[272\]): event 386 (transcript line 272), from the transcript line it cites" "$tmp/out"'
else
	echo "# SKIP Q in the event list: this build's replay does not route it (ui/replay.c hook)"
fi
keys e q q

echo "1..$n"
exit $fail
