#!/bin/sh
# kbtui annotate on files as annotators write them (tests/fixtures/annot):
# a verdict change is a one-line diff; errors already there are kept and
# named; a file that is not YAML is never overwritten; and a dataset's
# broken annotation never fails `runs` or `export` (annotations check does).
. "$KB_SRCDIR/tests/tmux.sh"

fx="$KB_SRCDIR/tests/fixtures/annot"
ds="$tmp/ds"
mkdir -p "$ds/runs/a" "$ds/annotations"
printf '%s\n' '{"type":"text","data":"Writing the kernel."}' > "$ds/runs/a/transcript.jsonl"
A=20260101_000000_grok_alpha-model_01_fp8_gemm
C=20260101_000002_grok_alpha-model_02_kda_cutlass
for r in $A $C r_broken; do
	printf '{"run_id":"%s","harness":"grok","model":"alpha-model","problem":"01_fp8_gemm","correct":true,"peak_fraction":0.25,"format":"grok","transcript":"runs/a/transcript.jsonl"}\n' "$r"
done > "$ds/runs.jsonl"
an="$ds/annotations"
cp "$fx/commented.yaml" "$an/$A.yaml"
cp "$fx/schema_errors.yaml" "$an/$C.yaml"
cp "$fx/broken.yaml" "$an/r_broken.yaml"
chmod u+w "$an"/*.yaml

# ---- a one-line diff ---------------------------------------------------------
"$kb" annotate "$A" --verdict interesting "$ds" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "a verdict change on a hand-written file exits 0" '[ $rc -eq 0 ] && grep -q "$A.yaml: updated interesting" "$tmp/out"'
diff "$fx/commented.yaml" "$an/$A.yaml" > "$tmp/diff"
t "the diff is the verdict line, its comment kept" \
	'[ "$(grep -c "^[<>]" "$tmp/diff")" = 2 ] && grep -qx "> verdict: interesting    # decided after a second look" "$tmp/diff"'
"$kb" annotate "$A" --verdict reward_hack "$ds" > /dev/null 2> "$tmp/err"; rc=$?
t "changing it back restores the file byte for byte" '[ $rc -eq 0 ] && cmp -s "$fx/commented.yaml" "$an/$A.yaml"'
"$kb" annotate "$A" --verdict clean --summary "A real kernel after all." "$ds" > /dev/null 2> "$tmp/err"; rc=$?
diff "$fx/commented.yaml" "$an/$A.yaml" > "$tmp/diff"
t "a folded summary is replaced in its own style, the rest kept" \
	'[ $rc -eq 0 ] && grep -qx "summary: >" "$an/$A.yaml" && grep -qx "> *A real kernel after all." "$tmp/diff" &&
	 [ "$(grep -c "^[<>]" "$tmp/diff")" = 5 ]'
cp "$fx/commented.yaml" "$an/$A.yaml"

# ---- errors already in the file ----------------------------------------------
"$kb" annotate "$C" --verdict bug --implication "Timed out." "$ds" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "a file with schema errors takes the change, exit 0" '[ $rc -eq 0 ] && grep -qx "verdict: bug" "$an/$C.yaml"'
t "its errors are kept, named in a warning" 'grep -q "$C.yaml: warning: 2 schema errors already in the file kept as they were" "$tmp/err"'
t "byte for byte" 'grep -qx "    lines: \"12-14\"" "$an/$C.yaml" && [ "$(diff "$fx/schema_errors.yaml" "$an/$C.yaml" | grep -c "^[<>]")" = 4 ]'
printf 'run_id: %s\nverdict: clean\n' "$C" > "$an/$C.yaml"
cp "$an/$C.yaml" "$tmp/c.before"
"$kb" annotate "$C" --verdict reward_hack "$ds" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "an error the change brings is refused, exit 1" '[ $rc -eq 1 ] && grep -q "the change brings 1 schema error; nothing written" "$tmp/err" && cmp -s "$an/$C.yaml" "$tmp/c.before"'

# ---- not YAML ------------------------------------------------------------------
"$kb" annotate r_broken --verdict interesting --implication x "$ds" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "a file that is not YAML is refused, exit 1" '[ $rc -eq 1 ] && cmp -s "$fx/broken.yaml" "$an/r_broken.yaml"'
t "the error says where it breaks" 'grep -q "r_broken.yaml:6:1: found unexpected end of stream while scanning a quoted scalar" "$tmp/err" && grep -q "not overwritten" "$tmp/err"'

# ---- the dataset's defects do not fail a listing -----------------------------------
"$kb" runs "$ds" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "runs exits 0 with an unparsable annotation" '[ $rc -eq 0 ] && grep -q "^r_broken " "$tmp/out"'
t "stderr names the file once" '[ "$(grep -c "r_broken.yaml" "$tmp/err")" = 1 ]'
"$kb" export --format csv "$ds" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "export exits 0, the run listed without a verdict" '[ $rc -eq 0 ] && grep -q "^r_broken,alpha-model,grok,01_fp8_gemm,true,0.25,," "$tmp/out"'
t "its stderr names the file once" '[ "$(grep -c "r_broken.yaml" "$tmp/err")" = 1 ]'
"$kb" annotations check "$ds" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "annotations check is where it fails" '[ $rc -eq 1 ] && grep -q "1 unreadable" "$tmp/out"'

# ---- annotations check on YAML files without runs ------------------------------------
mkdir "$tmp/loose"
cp "$fx"/*.yaml "$tmp/loose/"
"$kb" annotations check "$tmp/loose" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "annotations check DIR of YAML files alone checks them" '[ $rc -eq 1 ] && grep -q "^6 files: 1 unreadable, 2 schema errors" "$tmp/out"'
mkdir -p "$tmp/loose2/annotations"
cp "$fx/quoted.yaml" "$tmp/loose2/annotations/"
"$kb" annotations check "$tmp/loose2" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "and DIR/annotations without runs/" '[ $rc -eq 0 ] && grep -q "^1 files: 0 unreadable, 0 schema errors" "$tmp/out"'

# ---- quotes in every form: mapped, shown and exported the same way -----------------
kbh="$KB_SRCDIR/tests/fixtures/kbh"
aq="$KB_SRCDIR/tests/fixtures/annot-quotes"
K=20260428_040539_claude_claude-opus-4-7_01_fp8_gemm
"$kb" annotations check --quotes --runs "$kbh" "$aq" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "check --quotes exits 0, stderr empty" '[ $rc -eq 0 ] && [ ! -s "$tmp/err" ]'
t "[A, B], [N] and a file-less quote map to the Write that made those lines" \
	'grep -q "$K.yaml:7: quote 1 (solution.py \[60-60\]): event 386 (transcript line 272), the write of a file version" "$tmp/out" &&
	 grep -q "$K.yaml:12: quote 2 (solution.py \[60\]): event 386 " "$tmp/out" &&
	 grep -q "$K.yaml:17: quote 3 (\[60\]): event 386 " "$tmp/out"'
t "a transcript quote maps to the event of the line it cites" \
	'grep -q "glm-5.1_01_fp8_gemm.yaml:14: quote 1 (transcript.jsonl \[127\]): event 127 (transcript line 127), from the transcript line it cites" "$tmp/out"'
t "a quote that maps to nothing says why" \
	'grep -q "quote 4 (check.log \[1\]): not mapped: the eval.s log, which no event of the run wrote" "$tmp/out" &&
	 grep -q "quote 5 (solution.py \[3\]): not mapped: the quote has no text to find" "$tmp/out"'
t "the figures" 'grep -qx "2 files, 2 with quotes: 7 quotes, 5 map to an event (3 by a file version the run wrote, 2 by the transcript line cited, 0 by an event.s text), 2 do not, 0 whose run is not here; 0 unreadable files" "$tmp/out"'
"$kb" annotations check --runs "$kbh" "$aq" > /dev/null 2> "$tmp/err"; rc=$?
t "--runs without --quotes: usage error 2" '[ $rc -eq 2 ] && grep -q -- "--runs goes with --quotes" "$tmp/err"'
"$kb" export --format json --full --annotations "$aq" "$kbh" > "$tmp/q.json" 2> "$tmp/err"; rc=$?
t "export --full writes each form as the check names it" \
	'[ $rc -eq 0 ] && grep -qF "\"solution.py [60] [N]: using SmArch" "$tmp/q.json" && grep -qF "\"[60] no file: using SmArch" "$tmp/q.json" &&
	 grep -qF "\"solution.py [60-60] a range of one line: using" "$tmp/q.json" && grep -qF "\"transcript.jsonl [127] The model identifies" "$tmp/q.json"'
"$kb" export --format csv --full --annotations "$aq" "$kbh" > "$tmp/q.csv" 2> /dev/null
"$kb" export --format md --full --annotations "$aq" "$kbh" > "$tmp/q.md" 2> /dev/null
t "and csv and md the same" 'grep -qF "solution.py [60] [N]: using SmArch" "$tmp/q.csv" && grep -qF "solution.py [60] [N]: using SmArch" "$tmp/q.md"'

# ---- the published corpus (../shared) ----------------------------------------------------
shared="$KB_SRCDIR/../shared"
if [ -f "$shared/kbh/runs.jsonl" ] && [ -d "$shared/annotations-corpus" ]; then
	"$kb" annotations check --quotes "$shared/kbh" > "$tmp/out" 2> "$tmp/err"; rc=$?
	t "the sample's quotes: 14, 7 map, 7 runs without a transcript" '[ $rc -eq 0 ] &&
		grep -qx "27 files, 12 with quotes: 14 quotes, 7 map to an event (7 by a file version the run wrote, 0 by the transcript line cited, 0 by an event.s text), 0 do not, 7 whose run is not here; 0 unreadable files" "$tmp/out"'
	"$kb" annotations check --quotes --runs "$shared/kbh" "$shared/annotations-corpus" > "$tmp/out" 2> "$tmp/err"; rc=$?
	t "the corpus's quotes against the sample's runs: 14 of 16 map" '[ $rc -eq 1 ] &&
		grep -qx "283 files, 67 with quotes: 101 quotes, 14 map to an event (12 by a file version the run wrote, 2 by the transcript line cited, 0 by an event.s text), 2 do not, 85 whose run is not here; 1 unreadable files" "$tmp/out"'
	t "the unreadable one named once" '[ "$(grep -c "patch_embed_conv3d_gemm.yaml:33: invalid YAML" "$tmp/err")" = 1 ]'
else
	echo "# SKIP ../shared is absent: the corpus's quote figures are not checked"
fi

echo "1..$n"
exit $fail
