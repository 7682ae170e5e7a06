#!/bin/sh
# Hack hunting beyond the anchors (issue 27) as a user meets it: the
# physics and taint flags in `kbtui flags` (text and --json), the
# browser's FLAGS column, the replay's GPU timing pane and hack timeline,
# on the bundled sample (its 07 run states peak_fraction 1.6741) and the
# taint fixture.
. "$KB_SRCDIR/tests/tmux.sh"
sample="$KB_SRCDIR/data/sample"
r07="$sample/runs/20260601_100000_opencode_sample_sample-model-c_07_w4a16_gemm"
r01="$sample/runs/20260601_093000_codex_sample-model-b_01_fp8_gemm"
fl="$KB_SRCDIR/tests/fixtures/flags"

# ---- kbtui flags ------------------------------------------------------------------
"$kb" flags "$r07" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "flags of the 07 run exits 0, nothing on stderr" '[ $rc -eq 0 ] && [ ! -s "$tmp/err" ]'
t "physics at event 30: GB/s above the DRAM bandwidth of RTX_PRO_6000, with the table" \
	'grep -qE "^20260601_100000_opencode_sample_sample-model-c_07_w4a16_gemm:30: physics: shape=2 variant=solution .*\[4842.73 GB/s is above the DRAM bandwidth of RTX_PRO_6000, [0-9.]+ GB/s \(roofline: dram; table .*; margin 5%\)\]$" "$tmp/out"'
t "and the run is flagged" '[ "$(tail -1 "$tmp/out")" = "flagged" ]'
"$kb" flags --json "$r07" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "--json: the physics hit carries its note" '[ $rc -eq 0 ] && grep -q "\"rule\":\"physics\".*\"note\":\"4842.73 GB/s is above the DRAM bandwidth of RTX_PRO_6000" "$tmp/out"'
"$kb" flags "$r01" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "the 01 run: no physics flag" '[ $rc -eq 0 ] && ! grep -q ": physics:" "$tmp/out"'
"$kb" flags "$fl/taint.jsonl" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "taint: the check and the benchmark after the check.py edit" '[ $rc -eq 0 ] && [ "$(grep -c "tainted-measurement: .*edited check.py, not restored since\]$" "$tmp/out")" -eq 2 ]'
t "taint: the check after >> problem.yaml" 'grep -q "tainted-measurement: FAIL: shape 0 tolerance exceeded \[measured after event 26 edited problem.yaml" "$tmp/out"'
t "taint: none after the restores" '[ "$(grep -c tainted-measurement "$tmp/out")" -eq 3 ]'
"$kb" flags "$sample" > "$tmp/out" 2> "$tmp/err"; rc=$?
nruns=$(ls "$sample/runs" | wc -l)
t "over the sample: the physics rule marks one run" '[ $rc -eq 0 ] && grep -qE "^physics +1/$nruns$" "$tmp/out"'

# ---- the claims ledger in export --full ------------------------------------------------
ds="$tmp/claims"
mkdir -p "$ds/runs/20260101_000000_claude_m_01_fp8_gemm"
cp "$fl/hack.jsonl" "$ds/runs/20260101_000000_claude_m_01_fp8_gemm/transcript.jsonl"
"$kb" export --format csv --full "$ds" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "export --full: a claims column" '[ $rc -eq 0 ] && head -1 "$tmp/out" | tr -d "\r" | grep -q ",flags,claims,deck$"'
t "export --full: the contradicted claim with both quotes" 'grep -q "claims peak_fraction 2.5: .*Final: peak_fraction 2.5 on all shapes\..*; measured 1.3 at event 13: .*shape=0 solution_peak_fraction=1.3000.*: contradicted" "$tmp/out"'
t "and the flag in the flags column" 'grep -q "claim-contradicted (event " "$tmp/out"'

# ---- the browser's FLAGS column --------------------------------------------------------
start b "$kb" "$sample"
t "the browser lists the sample" 'wait_for b "sample-model-c" "FLAGS"'
t "the 07 run's FLAGS count is 1 (the physics event)" 'wait_for b "sample-model-c .*!1 "'

# ---- the replay: timing pane and timeline ---------------------------------------------
start r "$kb" "$r07/transcript.jsonl"
t "the replay opens" 'wait_for r "event 1/33" "GPU timing"'
keys r = v v
t "the timing summary: the best peak_fraction is above 1" 'wait_for r "best 1.6741 \(event 30, above 1\)"'
keys r G
t "the rows above the roofline are marked" 'wait_for r "event 33/33" "4842.732 +0.0050  ! GB/s above DRAM peak" "peak_fraction: 1.6741  ! peak_fraction above 1"'
i=0; while [ $i -lt 14 ] && ! { cap r; has "timeline solution.py"; }; do keys r v; sleep 0.2; i=$((i + 1)); done
t "the timeline: version 4's peak marked above 1, its legend" 'wait_for r "timeline solution.py" "1.6741@30! +1 flagged from 30" "! a peak_fraction above 1"'
keys r q

start s "$kb" "$fl/taint.jsonl"
t "the taint fixture opens" 'wait_for s "event 1/"'
keys s = v v
t "the timing pane says which results are tainted" 'wait_for s "event 10  tainted: check.py edited at event 5, not restored" "event 31  tainted: problem.yaml edited at event 26"'
t "and not the ones after the restore" '! has "event 16  tainted" && ! has "event 37  tainted"'
keys s q

# the best-result jump says when the best was measured under an edited grader or above 1
mkdir -p "$tmp/best"
awk '/"content": "PASS"}/ { n++; if (n == 2) sub(/"content": "PASS"}/, "\"content\": \"PASS\\npeak_fraction: 0.9000\"}"); else if (n == 4) sub(/"content": "PASS"}/, "\"content\": \"PASS\\npeak_fraction: 0.2000\"}") } { print }' "$fl/taint.jsonl" > "$tmp/best/t.jsonl"
start w "$kb" "$tmp/best/t.jsonl"
t "w: a tainted best, with the best untainted" 'wait_for w "event 1/" && keys w w && wait_for w "best peak_fraction 0.9 at event 10 \(tainted: check.py edited at event 5, not restored\); the best untainted 0.2 at event 22"'
keys w q
start x "$kb" "$r07/transcript.jsonl"
t "w: a best above 1 said so" 'wait_for x "event 1/33" && keys x w && wait_for x "best peak_fraction 1.674 at event 30 \(above 1: more than the GPU can do\)"'
keys x q

# ---- export --format html -----------------------------------------------------------
"$kb" export --format html "$r07" > "$tmp/r07.html" 2> "$tmp/err"; rc=$?
t "export --format html RUN exits 0, nothing on stderr" '[ $rc -eq 0 ] && [ ! -s "$tmp/err" ]'
t "the page: an anchor per event, the annotation, the physics flag, the timeline, the SVG plot" \
	'grep -q "<section class=\"ev\" id=\"e33\">" "$tmp/r07.html" && grep -q "^verdict: reward_hack" "$tmp/r07.html" &&
	 grep -q "class=\"flag\">physics</td>" "$tmp/r07.html" && grep -q "<h2 id=\"timeline\">" "$tmp/r07.html" &&
	 grep -q "<svg " "$tmp/r07.html" && grep -q "<a href=\"#e30\"><circle" "$tmp/r07.html"'
# every page of the sample through tidy's HTML5 checker (Debian's tidy,
# which setup-debian.sh installs): no error, and no warning but the one it
# gives for SVG 2's <a href> inside the inline plot, which HTML5 allows
if command -v tidy > /dev/null 2>&1; then
	: > "$tmp/tidy.all"
	for d in "$sample"/runs/*/; do
		"$kb" export --format html "$d" > "$tmp/p.html" 2> /dev/null
		tidy -q -e "$tmp/p.html" > /dev/null 2>> "$tmp/tidy.all"
		[ $? -le 1 ] || echo "tidy failed on $d" >> "$tmp/tidy.all"
	done
	t "tidy: every sample page is HTML5 with no error" '! grep -q "Error:\|tidy failed" "$tmp/tidy.all"'
	t "tidy: and no warning but SVG 2's <a href>" '[ -z "$(grep -v "<a> proprietary attribute \"href\"" "$tmp/tidy.all")" ]'
else
	echo "# SKIP tidy is not installed: the pages are not run through an HTML5 checker"
fi
"$kb" export --format html "$sample" > "$tmp/index.html" 2> "$tmp/err"; rc=$?
t "export --format html DIR: an index linking each run's page" '[ $rc -eq 0 ] && [ "$(grep -c "<tr><td><a href=\"[^\"]*\.html\">" "$tmp/index.html")" -eq "$nruns" ]'
# hostile text: markup, an escape, a control character in a tool name and a result
mkdir -p "$tmp/hostile"
printf '%s\n' '{"type":"system","subtype":"init","cwd":"/w","session_id":"s","tools":[],"model":"m"}' \
	'{"type":"assistant","message":{"id":"m1","role":"assistant","model":"m","content":[{"type":"tool_use","id":"t1","name":"Ba\u001b[31msh<i>","input":{"command":"echo \"<script>alert(1)</script>\""}}]},"session_id":"s"}' \
	'{"type":"user","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":"\u001b]52;c;aGk=\u0007 </pre><img src=x onerror=alert(1)> & \u0000"}]},"session_id":"s"}' \
	> "$tmp/hostile/transcript.jsonl"
"$kb" export --format html "$tmp/hostile/transcript.jsonl" > "$tmp/hostile.html" 2> "$tmp/err"; rc=$?
t "a hostile transcript: exit 0, its markup escaped" '[ $rc -eq 0 ] && grep -q "&lt;script&gt;alert(1)&lt;/script&gt;" "$tmp/hostile.html" && grep -q "&lt;/pre&gt;&lt;img src=x onerror=alert(1)&gt; &amp;" "$tmp/hostile.html" && ! grep -q "<script\|<img" "$tmp/hostile.html"'
t "no raw escape or control character in the page" '! grep -q "$(printf "\033")" "$tmp/hostile.html" && ! tr -d "\n\t" < "$tmp/hostile.html" | grep -q "[[:cntrl:]]"'
if command -v python3 > /dev/null 2>&1; then
	for d in "$sample"/runs/*; do
		n_ev=$("$kb" dump "$d" 2> /dev/null | grep -c "^ *[0-9]")
		"$kb" export --format html "$d" > "$tmp/p.html" 2> /dev/null
		t "HTML structure of $(basename "$d"): closed, ids unique, links resolve, no script or URL, e1..e$n_ev" \
			'python3 "$KB_SRCDIR/tests/fixtures/html/check_html.py" "$tmp/p.html" "$n_ev"'
	done
	t "HTML structure of the index and the hostile page" 'python3 "$KB_SRCDIR/tests/fixtures/html/check_html.py" "$tmp/index.html" && python3 "$KB_SRCDIR/tests/fixtures/html/check_html.py" "$tmp/hostile.html" 2'
	for d in "$KB_SRCDIR"/tests/fixtures/kbh/runs/*; do
		"$kb" export --format html "$d" > "$tmp/p.html" 2> /dev/null || echo "export failed: $d" > "$tmp/p.html"
		t "HTML structure of the real run $(basename "$d")" 'python3 "$KB_SRCDIR/tests/fixtures/html/check_html.py" "$tmp/p.html"'
	done
	printf '<!DOCTYPE html><html><head><style>a{background:url(http://x/y)}</style></head><body><a href="https://e.com">x</a></body></html>' > "$tmp/fetch.html"
	t "the checker refuses a page that fetches" '[ "$(python3 "$KB_SRCDIR/tests/fixtures/html/check_html.py" "$tmp/fetch.html" | wc -l)" -eq 2 ]'
	printf '<!DOCTYPE html><html><body><p><b>x</p></body></html>' > "$tmp/bad.html"
	t "the checker refuses a page with an element closed out of order" '! python3 "$KB_SRCDIR/tests/fixtures/html/check_html.py" "$tmp/bad.html" > /dev/null'
else
	echo "# SKIP python3 is not installed: the HTML structure checks need it"
fi

# ---- kbtui judge against the scripted model server ------------------------------------
"$kb" judge --dry-run "$r07" > "$tmp/prompt" 2> "$tmp/err"; rc=$?
t "judge --dry-run: the condensed run, nothing sent, its size said before" '[ $rc -eq 0 ] && grep -q "^\[30\] result: PASS" "$tmp/prompt" && grep -q "auto-flag at event 30: physics" "$tmp/prompt" && grep -q "about [0-9]* tokens to send (--dry-run: nothing sent)" "$tmp/err"'
"$kb" judge --dry-run "$sample" > "$tmp/prompts" 2> "$tmp/err"; rc=$?
t "judge --dry-run DIR: each run in turn" '[ $rc -eq 0 ] && [ "$(grep -c "^== " "$tmp/prompts")" -eq "$nruns" ] && [ "$(grep -c "tokens to send" "$tmp/err")" -eq "$nruns" ]'
"$kb" judge --dry-run --out x.json "$sample" > /dev/null 2> "$tmp/err"; rc=$?
t "judge DIR --out: usage error 2" '[ $rc -eq 2 ] && grep -q "is for one RUN" "$tmp/err"'
fakellm="$KB_BUILDDIR/tests/fakellm"
if [ -x "$fakellm" ]; then
	reply='{"suggestions": [{"class": "output-cache", "quote": "memoises", "event": 32, "why": "forward() is memoised."}, {"class": "grader-edit", "quote": "an invented line", "event": 3, "why": "made up"}]}'
	printf '%s\n' "$(printf '%s' "$reply" | python3 -c 'import json,sys; print(json.dumps({"text": sys.stdin.read(), "prompt_tokens": 2500, "completion_tokens": 60}))' 2> /dev/null)" > "$tmp/judge.ndjson"
	answer='{"suggestions": [{"class": "match", "quote": "memoises", "event": 32, "why": "the cache is described here."}]}'
	printf '%s\n' "$(printf '%s' "$answer" | python3 -c 'import json,sys; print(json.dumps({"text": sys.stdin.read()}))' 2> /dev/null)" >> "$tmp/judge.ndjson"
	"$fakellm" --script "$tmp/judge.ndjson" --log "$tmp/judge.log" --timeout 60 > "$tmp/judge.port" 2> "$tmp/judge.err" &
	jpid=$!
	port=""; i=0
	while [ $i -lt 100 ] && [ -z "$port" ]; do
		port=$(sed -n 's/^port=//p' "$tmp/judge.port"); [ -n "$port" ] || sleep 0.1; i=$((i + 1))
	done
	mkdir -p "$tmp/jrun"
	cp "$r07/transcript.jsonl" "$r07/result.json" "$tmp/jrun/"
	OPENAI_API_KEY=sk-test-judge "$kb" judge --model fake-judge --base-url "http://127.0.0.1:$port/v1" "$tmp/jrun" > "$tmp/out" 2> "$tmp/err"; rc=$?
	OPENAI_API_KEY=sk-test-judge "$kb" judge --model fake-judge --base-url "http://127.0.0.1:$port/v1" --question "Where are outputs cached?" "$tmp/jrun" > "$tmp/qout" 2> "$tmp/qerr"; qrc=$?
	kill $jpid 2> /dev/null
	t "judge: exit 0, the suggestion with its quote, the invented quote dropped" '[ $rc -eq 0 ] && grep -q "^suggested (fake-judge): output-cache at event 32: \"memoises\" forward() is memoised\.$" "$tmp/out" && ! grep -q "invented" "$tmp/out"'
	t "judge: tokens said after, the file named" 'grep -q "tokens in 2500 out 60" "$tmp/err" && grep -q "1 suggestion kept in $tmp/jrun/suggested.json" "$tmp/err"'
	t "judge: kept as suggested, with the model, never as a verdict" 'grep -q "\"status\":[[:space:]]*\"suggested\"" "$tmp/jrun/suggested.json" && grep -q "\"model\":[[:space:]]*\"fake-judge\"" "$tmp/jrun/suggested.json" && ! grep -q verdict "$tmp/jrun/suggested.json"'
	t "judge without a key: exit 1, named" 'env -u OPENAI_API_KEY "$kb" judge --model m "$tmp/jrun" > /dev/null 2> "$tmp/err"; [ $? -eq 1 ] && grep -q "no API key: set OPENAI_API_KEY" "$tmp/err"'
	t "judge --question: the places that answer it, RUN:EVENT: quote, nothing kept" '[ $qrc -eq 0 ] && grep -qx "$tmp/jrun:32: \"memoises\" the cache is described here\." "$tmp/qout" && grep -q "\"output-cache\"" "$tmp/jrun/suggested.json"'
	KBTUI_ANNOTATOR=ann "$kb" judge --accept 1 "$tmp/jrun" > "$tmp/out" 2> "$tmp/err"; rc=$?
	t "judge --accept 1: the suggestion accepted, who decided kept" '[ $rc -eq 0 ] && grep -qx "suggestion 1 (output-cache) accepted" "$tmp/out" && grep -q "\"status\":[[:space:]]*\"accepted\"" "$tmp/jrun/suggested.json" && grep -q "\"decided_by\":[[:space:]]*\"ann\"" "$tmp/jrun/suggested.json"'
	"$kb" flags "$tmp/jrun" > "$tmp/out" 2> "$tmp/err"; rc=$?
	t "flags lists the judge's suggestion after the flags, not counted" '[ $rc -eq 0 ] && grep -qx "jrun:32: output-cache (accepted, fake-judge): memoises" "$tmp/out" && [ "$(tail -1 "$tmp/out")" = "flagged" ]'
	"$kb" judge --reject 1 "$tmp/jrun" > "$tmp/out" 2> "$tmp/err"; rc=$?
	t "judge --reject 1: rejected" '[ $rc -eq 0 ] && grep -q "\"status\":[[:space:]]*\"rejected\"" "$tmp/jrun/suggested.json" && ! grep -q "\"accepted\"" "$tmp/jrun/suggested.json"'
	"$kb" judge --accept 5 "$tmp/jrun" > /dev/null 2> "$tmp/err"; rc=$?
	t "judge --accept 5: no such suggestion, exit 1" '[ $rc -eq 1 ] && grep -q "no such suggestion" "$tmp/err"'
else
	echo "# SKIP tests/fakellm is not built: no judge test against the scripted server"
fi

# ---- a link to one event: PATH@N, --event N --------------------------------------------
start e "$kb" "$r07@30"
t "RUN_DIR@30 opens the replay at event 30" 'wait_for e "event 30/33"'
keys e y
t "y: the event's reference RUN@30 said in the status line (and sent by OSC 52)" \
	'wait_for e "copied [0-9_a-z-]+07_w4a16_gemm@30 \(kbtui [0-9_a-z-]+07_w4a16_gemm@30 opens it\)"'
keys e q
start f "$kb" --event 10 "$fl/taint.jsonl"
t "--event 10 on a transcript opens at event 10" 'wait_for f "event 10/43"'
keys f q
start g "$kb" --event 999 "$fl/taint.jsonl"
t "past the end: the last event" 'wait_for g "event 43/43"'
keys g q
"$kb" "$r07@x" > /dev/null 2> "$tmp/err"; rc=$?
t "PATH@x: usage error 2, named" '[ $rc -eq 2 ] && grep -q "an event number from 1 after @, not .x." "$tmp/err"'
"$kb" --event 0 "$r07" > /dev/null 2> "$tmp/err"; rc=$?
t "--event 0: usage error 2" '[ $rc -eq 2 ] && grep -q "event number from 1" "$tmp/err"'

echo "1..$n"
exit $fail
