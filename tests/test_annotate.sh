#!/bin/sh
# kbtui annotate and kbtui export on a small dataset written here, then a
# quote taken from marked lines of the replay's artifact pane (tmux).
. "$KB_SRCDIR/tests/tmux.sh"

ds="$tmp/ds"
mkdir -p "$ds/runs/alpha" "$ds/runs/beta" "$ds/runs/gamma"
for r in alpha beta gamma; do
	printf '%s\n' '{"type":"text","data":"Writing the kernel."}' \
		'{"type":"text","data":"Done: solution.py holds the kernel."}' \
		'{"type":"end","sessionId":"s","stopReason":"EndTurn"}' > "$ds/runs/$r/transcript.jsonl"
done
# the solution has a blank line, indentation, a tab and trailing spaces
printf 'import torch\n\n\nclass Model(torch.nn.Module):\n    def forward(self, x):  \n\treturn x.to(torch.bfloat16)\n\n# end\n' > "$ds/runs/alpha/solution.py"
printf 'PASS shape 0\nPASS shape 1\nFAIL: shape 2 tolerance\n' > "$ds/runs/alpha/check.log"
# and a line of 300 columns, wider than the pane
printf 'PASS shape 3 %s END-OF-LONG-LINE\n' "$(printf '%270s' '' | tr ' ' x)" >> "$ds/runs/alpha/check.log"
cat > "$ds/runs.jsonl" <<'EOF'
{"run_id":"20260101_000000_grok_alpha-model_01_fp8_gemm","harness":"grok","model":"alpha-model","effort":"high","problem":"01_fp8_gemm","correct":true,"peak_fraction":0.25,"format":"grok","transcript":"runs/alpha/transcript.jsonl"}
{"run_id":"20260101_000001_grok_beta_02_kda_cutlass","harness":"grok","model":"beta \"b\", v2","problem":"02_kda_cutlass","correct":false,"peak_fraction":null,"format":"grok","transcript":"runs/beta/transcript.jsonl"}
{"run_id":"20260101_000002_grok_alpha-model_02_kda_cutlass","harness":"grok","model":"alpha-model","effort":"high","problem":"02_kda_cutlass","correct":true,"peak_fraction":0.5,"format":"grok","transcript":"runs/gamma/transcript.jsonl"}
EOF
A=20260101_000000_grok_alpha-model_01_fp8_gemm
B=20260101_000001_grok_beta_02_kda_cutlass
C=20260101_000002_grok_alpha-model_02_kda_cutlass
an="$ds/annotations"

# ---- kbtui annotate ------------------------------------------------------
"$kb" annotate 20260101_000000 --verdict clean --summary "Tiles the GEMM well." \
	--annotator alice "$ds" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "annotate by a unique prefix exits 0" '[ $rc -eq 0 ]'
t "it says what it wrote" 'grep -q "annotations/$A.yaml: written clean" "$tmp/out"'
y="$an/$A.yaml"
t "the file has run_id, model, harness, effort, problem from the run" \
	'grep -qx "run_id: $A" "$y" && grep -qx "model: alpha-model" "$y" && grep -qx "harness: grok" "$y" &&
	 grep -qx "effort: high" "$y" && grep -qx "problem: 01_fp8_gemm" "$y"'
t "peak_fraction from the run" 'grep -qx "peak_fraction: 0.25" "$y"'
t "verdict and summary as given" 'grep -qx "verdict: clean" "$y" && grep -qx "summary: Tiles the GEMM well." "$y"'
t "annotator and an ISO 8601 UTC time" 'grep -qx "annotator: alice" "$y" &&
	grep -qE "^updated: \"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z\"$" "$y"'
t "the keys are in the schema's order" \
	'[ "$(grep -oE "^[a-z_]+:" "$y" | tr -d "\n")" = "run_id:model:harness:effort:problem:peak_fraction:verdict:summary:annotator:updated:" ]'
"$kb" annotations check "$an" > "$tmp/out" 2>&1; rc=$?
t "kbtui annotations check accepts it" '[ $rc -eq 0 ] && grep -q "1 files: 0 unreadable, 0 schema errors, 0 files with messages" "$tmp/out"'

cp "$y" "$tmp/before.yaml"
"$kb" annotate "$A" --verdict reward_hack "$ds" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "reward_hack without an implication exits 1" '[ $rc -eq 1 ]'
t "with the schema's message naming the file" 'grep -q "$A.yaml:[0-9]*: error: .implication. is required for verdict .reward_hack." "$tmp/err"'
t "and nothing is written" 'cmp -s "$y" "$tmp/before.yaml" && grep -q "nothing written" "$tmp/err"'

"$kb" annotate "$C" --verdict reward_hack --implication "Invalid: PyTorch wrapper." "$ds" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "reward_hack with an implication is written" '[ $rc -eq 0 ] && grep -qx "verdict: reward_hack" "$an/$C.yaml"'
t "no annotator given: none written" '! grep -q "^annotator:" "$an/$C.yaml"'
"$kb" annotate "$B" --verdict reward-hack --implication "Typo." "$ds" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "a verdict beyond the five is refused, usage error 2" '[ $rc -eq 2 ] && [ ! -e "$an/$B.yaml" ]'
t "naming the closest one and --any-verdict" 'grep -q "verdict .reward-hack. is not one of the schema.s five" "$tmp/err" && grep -q "did you mean .reward_hack.?" "$tmp/err" && grep -q -- "--any-verdict" "$tmp/err"'
"$kb" annotate "$B" --verdict Clean "$ds" > /dev/null 2> "$tmp/err"; rc=$?
t "another case is refused too, the right spelling named" '[ $rc -eq 2 ] && grep -q "did you mean .clean.?" "$tmp/err"'
"$kb" annotate "$B" --verdict contamination --implication "Seen in training." "$ds" > /dev/null 2> "$tmp/err"; rc=$?
t "no guess when none is close" '[ $rc -eq 2 ] && ! grep -q "did you mean" "$tmp/err"'
"$kb" annotate "$B" --verdict contamination --any-verdict --implication "Seen in training." "$ds" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "with --any-verdict a verdict beyond the five is written, exit 0" '[ $rc -eq 0 ] && grep -qx "verdict: contamination" "$an/$B.yaml"'
t "with a warning" 'grep -q "warning: verdict .contamination. is beyond the schema" "$tmp/err"'
t "peak_fraction null for a run that is not correct" 'grep -qx "peak_fraction: null" "$an/$B.yaml"'
"$kb" annotations check "$an" > "$tmp/out" 2>&1; rc=$?
t "check: no errors in the three files" '[ $rc -eq 0 ] && grep -q "3 files: 0 unreadable, 0 schema errors" "$tmp/out"'

"$kb" annotate "$A" --summary x "$ds" > /dev/null 2>&1; rc=$?
t "no --verdict: usage error 2" '[ $rc -eq 2 ]'
"$kb" annotate --verdict clean > /dev/null 2>&1; rc=$?
t "no RUN: usage error 2" '[ $rc -eq 2 ]'
"$kb" annotate "$A" --verdict clean --bogus "$ds" > /dev/null 2>&1; rc=$?
t "unknown option: usage error 2" '[ $rc -eq 2 ]'
"$kb" annotate 20260101_00000 --verdict clean "$ds" > /dev/null 2> "$tmp/err"; rc=$?
t "an ambiguous prefix exits 1 and lists the runs" '[ $rc -eq 1 ] && grep -q "matches 3 runs" "$tmp/err" && grep -q "  $B" "$tmp/err"'
"$kb" annotate nosuchrun --verdict clean "$ds" > /dev/null 2> "$tmp/err"; rc=$?
t "an unknown run exits 1" '[ $rc -eq 1 ] && grep -q "no run .nosuchrun." "$tmp/err"'
mkdir "$tmp/other"
"$kb" annotate "$A" --verdict bug --implication "Timed out." --annotations "$tmp/other" "$ds" > /dev/null 2>&1; rc=$?
t "--annotations writes elsewhere" '[ $rc -eq 0 ] && grep -qx "verdict: bug" "$tmp/other/$A.yaml" && grep -qx "verdict: clean" "$y"'

# ---- kbtui export --------------------------------------------------------
"$kb" export --format csv "$ds" > "$tmp/csv"; rc=$?
t "export csv exits 0" '[ $rc -eq 0 ]'
tr -d '\r' < "$tmp/csv" > "$tmp/csv.lf"
cat > "$tmp/csv.want" <<EOF
run_id,model,harness,problem,correct,peak_fraction,verdict,annotator,label,effort,gpu
$A,alpha-model,grok,01_fp8_gemm,true,0.25,clean,alice,grok/alpha-model [high],high,
$B,"beta ""b"", v2",grok,02_kda_cutlass,false,,contamination,,"grok/beta ""b"", v2",,
$C,alpha-model,grok,02_kda_cutlass,true,0.5,reward_hack,,grok/alpha-model [high],high,
EOF
t "export csv: the expected rows" 'cmp -s "$tmp/csv.lf" "$tmp/csv.want" || { diff "$tmp/csv.want" "$tmp/csv.lf" | sed "s/^/# /"; false; }'
t "a value with a comma and quotes is quoted, quotes doubled" 'grep -qF ",\"beta \"\"b\"\", v2\",grok," "$tmp/csv"'
t "records end with CRLF (RFC 4180)" '[ "$(grep -c "$(printf "\r")\$" "$tmp/csv")" -eq 4 ]'

"$kb" export --format json "$ds" > "$tmp/json"; rc=$?
t "export json exits 0" '[ $rc -eq 0 ]'
cat > "$tmp/json.want" <<EOF
[
  {"run_id": "$A", "model": "alpha-model", "harness": "grok", "problem": "01_fp8_gemm", "correct": true, "peak_fraction": 0.25, "verdict": "clean", "annotator": "alice", "label": "grok/alpha-model [high]", "effort": "high", "gpu": null},
  {"run_id": "$B", "model": "beta \\"b\\", v2", "harness": "grok", "problem": "02_kda_cutlass", "correct": false, "peak_fraction": null, "verdict": "contamination", "annotator": null, "label": "grok/beta \\"b\\", v2", "effort": null, "gpu": null},
  {"run_id": "$C", "model": "alpha-model", "harness": "grok", "problem": "02_kda_cutlass", "correct": true, "peak_fraction": 0.5, "verdict": "reward_hack", "annotator": null, "label": "grok/alpha-model [high]", "effort": "high", "gpu": null}
]
EOF
t "export json: the expected array" 'cmp -s "$tmp/json" "$tmp/json.want" || { diff "$tmp/json.want" "$tmp/json" | sed "s/^/# /"; false; }'
if command -v jq > /dev/null 2>&1; then
	t "jq parses it: 3 runs, the quoted model intact" \
		'[ "$(jq length "$tmp/json")" = 3 ] && [ "$(jq -r ".[1].model" "$tmp/json")" = "beta \"b\", v2" ] &&
		 [ "$(jq -r "[.[].verdict] | join(\",\")" "$tmp/json")" = "clean,contamination,reward_hack" ]'
else
	echo "# SKIP jq is not installed"
fi

"$kb" export --format md "$ds" > "$tmp/md"; rc=$?
t "export md exits 0" '[ $rc -eq 0 ]'
cat > "$tmp/md.want" <<EOF
## Runs

| run_id | model | harness | problem | correct | peak_fraction | verdict | annotator | label | effort | gpu |
| --- | --- | --- | --- | --- | ---: | --- | --- | --- | --- | --- |
| $A | alpha-model | grok | 01_fp8_gemm | yes | 0.25 | clean | alice | grok/alpha-model [high] | high |  |
| $B | beta "b", v2 | grok | 02_kda_cutlass | no |  | contamination |  | grok/beta "b", v2 |  |  |
| $C | alpha-model | grok | 02_kda_cutlass | yes | 0.5 | reward_hack |  | grok/alpha-model [high] | high |  |

## peak_fraction by model and problem

| model | 01_fp8_gemm | 02_kda_cutlass |
| --- | ---: | ---: |
| grok/alpha-model [high] | 0.250 C | 0.500 H |
| grok/beta "b", v2 |  | - ? |

Marks: C clean, L rubric_leak, H reward_hack, I interesting, B bug, ? another verdict; - not correct.
EOF
t "export md: runs table and models x problems table" 'cmp -s "$tmp/md" "$tmp/md.want" || { diff "$tmp/md.want" "$tmp/md" | sed "s/^/# /"; false; }'
# ---- export --full and --annotations ----------------------------------------
kbh="$KB_SRCDIR/tests/fixtures/kbh"
K=20260428_040539_claude_claude-opus-4-7_01_fp8_gemm
Z=20260513_153015_zai-claude_glm-5.1_01_fp8_gemm
"$kb" export --format json --full "$kbh" > "$tmp/full.json" 2> "$tmp/full.err"; rc=$?
t "export --full json exits 0" '[ $rc -eq 0 ]'
t "the plain export has no summary column" '! "$kb" export --format csv "$kbh" 2>/dev/null | head -1 | grep -q summary'
if command -v jq > /dev/null 2>&1; then
	t "--full: summary and implication of the annotation" \
		'jq -e --arg k "$K" ".[] | select(.run_id == \$k) | (.summary | startswith(\"Casts fp8 inputs to bf16\")) and (.implication | startswith(\"The 0.534 peak fraction\"))" "$tmp/full.json" > /dev/null'
	t "--full: its quotes, file [lines] label: text" \
		'[ "$(jq -r --arg k "$K" ".[] | select(.run_id == \$k) | .quotes[1]" "$tmp/full.json")" = "solution.py [60-60] Pinned to Ampere (Sm80), not Blackwell (Sm120): using SmArch = cutlass::arch::Sm80;" ]'
	t "--full: the flags that trip, with their first event" \
		'[ "$(jq -r --arg k "$Z" ".[] | select(.run_id == \$k) | .flags | join(\",\")" "$tmp/full.json")" = "admission (event 28),fp8-downcast (event 77),grader-edit (event 133),tainted-measurement (event 141)" ]'
	t "--full: a run without an annotation has null text and no quotes" \
		'jq -e --arg k "$Z" ".[] | select(.run_id == \$k) | .summary == null and .implication == null and .quotes == []" "$tmp/full.json" > /dev/null'
else
	echo "# SKIP jq is not installed"
fi
"$kb" export --format csv --full "$kbh" > "$tmp/full.csv" 2>/dev/null
t "--full csv: six more columns" 'head -1 "$tmp/full.csv" | tr -d "\r" | grep -qx "run_id,model,harness,problem,correct,peak_fraction,verdict,annotator,label,effort,gpu,summary,implication,quotes,flags,claims,deck"'
t "--full csv: the flags joined with ; " 'grep -q "^$Z,.*,admission (event 28); fp8-downcast (event 77); grader-edit (event 133)" "$tmp/full.csv"'
"$kb" export --format md --full "$kbh" > "$tmp/full.md" 2>/dev/null
t "--full md: the columns and the summary in the row" 'grep -q "| summary | implication | quotes | flags |" "$tmp/full.md" && grep -q "^| $K .*| Casts fp8 inputs to bf16" "$tmp/full.md"'
# hostile text in another annotators' directory: made safe, formula guarded
mkdir -p "$tmp/ann2"
printf 'run_id: %s\nverdict: bug\nsummary: "=HYPERLINK(1)\\e[31m red"\nimplication: "-2+3 |pipe|"\nannotator: bob\n' "$A" > "$tmp/ann2/$A.yaml"
"$kb" export --format csv --full --annotations "$tmp/ann2" "$ds" > "$tmp/ann2.csv" 2>/dev/null; rc=$?
t "export --annotations DIR reads the verdicts there" '[ $rc -eq 0 ] && grep -q "^$A,.*,bug,bob," "$tmp/ann2.csv" && ! grep -q ",clean,alice" "$tmp/ann2.csv"'
t "--full csv: summary and implication formula-guarded, ESC made visible" 'grep -qF ",bob,grok/alpha-model [high],high,,'"'"'=HYPERLINK(1)^[[31m red,'"'"'-2+3 |pipe|," "$tmp/ann2.csv" && ! grep -q "$(printf "\033")" "$tmp/ann2.csv"'
"$kb" export --format md --full --annotations "$tmp/ann2" "$ds" > "$tmp/ann2.md" 2>/dev/null
t "--full md: | in free text escaped" 'grep -qF "| -2+3 \|pipe\| |" "$tmp/ann2.md"'
"$kb" export --format csv --annotations "$tmp/nonesuch" "$ds" > /dev/null 2> "$tmp/err"; rc=$?
t "export --annotations on a missing directory: exit 1, named" '[ $rc -eq 1 ] && grep -q "nonesuch: not a directory" "$tmp/err"'

"$kb" export "$ds" > /dev/null 2>&1; rc=$?
t "export without --format: usage error 2" '[ $rc -eq 2 ]'
"$kb" export --format xml "$ds" > /dev/null 2>&1; rc=$?
t "export --format xml: usage error 2" '[ $rc -eq 2 ]'

# ---- quotes from marked lines of the artifact pane (tmux) ----------------
helper="$KB_BUILDDIR/tests/test_artifact"
sol="$ds/runs/alpha/solution.py"
start q "$kb" "$ds"
t "the browser opens on the dataset" 'wait_for q "kbtui .*/ds +3 runs"'
keys q Enter
t "Enter replays the first run" 'wait_for q "kbtui replay +$A"'
# (wait_for counts with $i: this loop has its own counter)
vs=0
while [ $vs -lt 8 ] && ! has "solution\.py +\(1/"; do
	keys q v; KB_WAIT=10 wait_for q "solution\.py +\(1/"; vs=$((vs+1))
done
t "v reaches the artifact pane, solution.py first" 'wait_for q "solution\.py +\(1/[0-9]+, o/O: other files\)"'
t "it shows the file with line numbers" 'has "1 import torch" && has "4 class Model\(torch\.nn\.Module\):" && has "6         return x\.to\(torch\.bfloat16\)"'
keys q Q
# Q with the event list focused quotes the selected event (its label asked),
# where the replay routes it to the artifact pane (pane_artifact_quote_event)
if KB_WAIT=20 wait_for q "Quote label: "; then
	keys q Escape
	t "Q on the event list asks a label for a quote of the event; Esc cancels it" 'wait_for q "quote cancelled"'
else
	t "Q without the focus says how to quote" 'wait_for q "Q quotes lines of the artifact pane: v to it, Tab to focus it"'
fi
keys q Tab
t "Tab focuses it: the cursor is on line 1" 'wait_for q "line 1/8"'
keys q o
t "o shows the next file, check.log" 'wait_for q "check\.log +\(2/" "1 PASS shape 0" "3 FAIL: shape 2 tolerance"'
keys q O
t "O goes back to solution.py" 'wait_for q "solution\.py +\(1/"'
keys q j j j
t "j moves the cursor" 'wait_for q "line 4/8"'
keys q Q
t "the first Q marks the line" 'wait_for q "marked 4-4" "quote from line 4"'
keys q j j
t "moving extends the marked range" 'wait_for q "marked 4-6 +line 6/8"'
tm capture-pane -e -p -t q > "$tmp/qcolour" 2> /dev/null
t "the marked lines are highlighted" '[ "$(grep -E "class Model|def forward|return x" "$tmp/qcolour" | grep -cE "$esc\[([0-9]+;)*(43|7)(;[0-9]+)*m")" -ge 3 ]'
cp "$an/$A.yaml" "$tmp/A.before"
keys q Q
t "the second Q asks for a label" 'wait_for q "Quote label: "'
keys q -l 'Casts to bf16, "early"'
keys q Enter
t "the status bar confirms the quote" 'wait_for q "quote solution\.py \[4, 6\] written to"'
"$helper" --last-quote "$an/$A.yaml" "$tmp/quote.txt" > "$tmp/quote.meta" 2>&1
t "the annotation's last quote: file, lines [4, 6], label" 'grep -qx "file=solution.py lines=4,6 label=Casts to bf16, \"early\"" "$tmp/quote.meta" || { sed "s/^/# /" "$tmp/quote.meta"; false; }'
sed -n 4,6p "$sol" > "$tmp/quote.want"
t "its text is the file's lines byte for byte (tab, trailing spaces)" 'cmp -s "$tmp/quote.txt" "$tmp/quote.want"'
t "the verdict and the rest of the file are kept" 'grep -qx "verdict: clean" "$an/$A.yaml" && grep -qx "summary: Tiles the GEMM well." "$an/$A.yaml"'
"$kb" annotations check "$an" > "$tmp/out" 2>&1; rc=$?
t "the schema check accepts the quote" '[ $rc -eq 0 ] || { sed "s/^/# /" "$tmp/out"; false; }'
cp "$an/$A.yaml" "$tmp/A.quoted"
keys q G Q k Q
t "Q, move, Q again asks for a label" 'wait_for q "Quote label: "'
keys q Escape
t "Esc cancels the quote" 'wait_for q "quote cancelled" && ! has "marked "'
t "and nothing is written" 'cmp -s "$an/$A.yaml" "$tmp/A.quoted"'
keys q u
t "u undoes the quote" 'wait_for q "undone: "'
t "the file is back as it was before the quote" 'cmp -s "$an/$A.yaml" "$tmp/A.before"'
keys q o Q Q
t "a single line of check.log" 'wait_for q "Quote label: "'
keys q -l 'fails'
keys q Enter
t "written" 'wait_for q "quote check\.log \[1\] written"'
"$helper" --last-quote "$an/$A.yaml" "$tmp/quote.txt" > "$tmp/quote.meta" 2>&1
t "quote of check.log line 1, text exact" 'grep -qx "file=check.log lines=1,1 label=fails" "$tmp/quote.meta" && printf "PASS shape 0\n" | cmp -s - "$tmp/quote.txt"'
# ---- long lines: cut at the pane's edge, Left/Right scroll them ------------
t "a line wider than the pane is cut, the status bar says so" \
	'wait_for q "line 1/4 +col 1 of 300 \(Left/Right\)" "4 PASS shape 3 xxxx" && ! has "END-OF-LONG-LINE"'
keys q Right
t "Right scrolls the rows sideways (line numbers stay)" 'wait_for q "line 1/4 +col [1-9][0-9]+ of 300" && ! has "PASS shape 3" && has "^.*│ *4 x+ *$"'
keys q Right Right Right Right Right Right
t "Right as far as the end of the widest row, no further" 'wait_for q "4 x+ END-OF-LONG-LINE *$" && ! grep -qE "4 x+ END-OF-LONG-LINE *│" "$scr"'
far=$(grep -oE "col [0-9]+ of 300" "$scr")
keys q Right j
t "... a Right more changes nothing" 'wait_for q "line 2/4 +col" && [ "$(grep -oE "col [0-9]+ of 300" "$scr")" = "$far" ]'
keys q k
keys q Left Left Left Left Left Left Left Left
t "Left scrolls back to column 1" 'wait_for q "line 1/4 +col 1 of 300" "4 PASS shape 3 xxxx" "1 PASS shape 0"'
keys q j j j k k k
t "the column is kept while the cursor moves" 'wait_for q "line 1/4 +col 1 of 300"'
keys q q
keys q q

echo "1..$n"
exit $fail
