#!/bin/sh
# One rule for JSON output (kbtui(1), JSON OUTPUT): --json prints one JSON
# document (an array), --jsonl JSON Lines (one object a line), for runs,
# flags and dump alike, and export --format json / jsonl the same; and
# export carries the whole run key (label, harness, model, effort,
# problem, gpu), so that two efforts of one model stay two rows' keys.
kb="$KB_BUILDDIR/kbtui"; fx="$KB_SRCDIR/tests/fixtures"
n=0; fail=0
t() { n=$((n+1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fail=1; fi; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
ds="$fx/kbh"
have_jq=$(command -v jq)

# a JSON document is one value (jq -s gives one item); lines are one each
docs() { jq -s length "$1"; }
for c in "runs:$ds" "flags:$ds" "dump:$fx/cli/grok_ok.jsonl"; do
	cmd=${c%%:*}; arg=${c#*:}
	"$kb" $cmd --json "$arg" > "$tmp/doc" 2> "$tmp/err1"; rc1=$?
	"$kb" $cmd --jsonl "$arg" > "$tmp/lines" 2> "$tmp/err2"; rc2=$?
	t "$cmd --json and --jsonl exit 0" '[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ]'
	t "$cmd --json is one document, an array" 'head -c1 "$tmp/doc" | grep -q "\[" && tail -1 "$tmp/doc" | grep -qx "\]"'
	t "$cmd --jsonl is one object a line" '[ -s "$tmp/lines" ] && ! grep -qv "^{.*}$" "$tmp/lines"'
	if [ -n "$have_jq" ]; then
		t "$cmd: jq reads --json as one value holding as many items as --jsonl has lines" \
			'[ "$(docs "$tmp/doc")" = 1 ] && [ "$(jq length "$tmp/doc")" = "$(wc -l < "$tmp/lines")" ] && [ "$(docs "$tmp/lines")" = "$(wc -l < "$tmp/lines")" ]'
	fi
done
# the sample's 03 run alone: nothing of it trips a rule
mkdir -p "$tmp/clean/runs"
cp -R "$KB_SRCDIR"/data/sample/runs/*_03_paged_attention "$tmp/clean/runs/"
"$kb" flags --json "$tmp/clean" > "$tmp/doc" 2> "$tmp/err"; rc=$?
t "flags --json with nothing flagged is [] (exit 0, stderr empty)" '[ $rc -eq 0 ] && [ ! -s "$tmp/err" ] && [ "$(cat "$tmp/doc")" = "[]" ]'
"$kb" export --format json "$ds" > "$tmp/doc"; "$kb" export --format jsonl "$ds" > "$tmp/lines"; rc=$?
t "export --format jsonl: one object a line, as many as json's array" '[ $rc -eq 0 ] && ! grep -qv "^{.*}$" "$tmp/lines" && [ "$(grep -c "^  {" "$tmp/doc")" = "$(wc -l < "$tmp/lines")" ]'

# the run key in export
mkdir -p "$tmp/d/runs"
cat > "$tmp/d/runs.jsonl" <<'J'
{"run_id": "r_x", "label": "codex/gpt-5.5 [xhigh]", "harness": "codex", "model": "gpt-5.5", "effort": "xhigh", "problem": "01_fp8_gemm", "correct": true, "peak_fraction": 0.5}
{"run_id": "r_h", "label": "codex/gpt-5.5 [high]", "harness": "codex", "model": "gpt-5.5", "effort": "high", "problem": "01_fp8_gemm", "correct": true, "peak_fraction": 0.25}
{"run_id": "r_f", "label": "=HYPERLINK(\"x\")", "harness": "-h", "model": "@m", "effort": "+1", "problem": "01_fp8_gemm", "correct": false}
J
cat > "$tmp/d/leaderboard.json" <<'J'
{"schema_version": 1, "hardware": {"name": "RTX PRO 6000"}, "models": []}
J
"$kb" export --format csv "$tmp/d" > "$tmp/csv" 2> "$tmp/err"; rc=$?
tr -d '\r' < "$tmp/csv" > "$tmp/csv.lf"
t "export csv exits 0, nothing on stderr" '[ $rc -eq 0 ] && [ ! -s "$tmp/err" ]'
t "export csv header: the first eight columns as before, then label, effort, gpu" 'head -1 "$tmp/csv.lf" | grep -qx "run_id,model,harness,problem,correct,peak_fraction,verdict,annotator,label,effort,gpu"'
t "xhigh and high of one model are two keys" 'grep -qx "r_x,gpt-5.5,codex,01_fp8_gemm,true,0.5,,,codex/gpt-5.5 \[xhigh\],xhigh,RTX PRO 6000" "$tmp/csv.lf" && grep -qx "r_h,gpt-5.5,codex,01_fp8_gemm,true,0.25,,,codex/gpt-5.5 \[high\],high,RTX PRO 6000" "$tmp/csv.lf"'
t "every key column guarded against formulas" 'grep -qF "r_f,'"'"'@m,'"'"'-h,01_fp8_gemm,false,,,,\"'"'"'=HYPERLINK(\"\"x\"\")\",'"'"'+1,RTX PRO 6000" "$tmp/csv.lf"'
if [ -n "$have_jq" ]; then
	"$kb" export --format json "$tmp/d" > "$tmp/j"
	t "export json: label, effort and gpu of each row" '[ "$(jq -r ".[] | [.label, .effort, .gpu] | join(\"|\")" "$tmp/j" | head -2 | tr "\n" ";")" = "codex/gpt-5.5 [xhigh]|xhigh|RTX PRO 6000;codex/gpt-5.5 [high]|high|RTX PRO 6000;" ]'
fi
echo "1..$n"
exit $fail
