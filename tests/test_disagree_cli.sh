#!/bin/sh
# Contradictions between a dataset's files, on the command line (issue 16):
# `kbtui runs --json` lists which file says what, the table counts them,
# leaderboard_v1.json rows without a transcript are listed.
kb="$KB_BUILDDIR/kbtui"; fx="$KB_SRCDIR/tests/fixtures/kbh"
n=0; fail=0
t() { n=$((n+1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fail=1; fi; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
Z=20260513_153015_zai-claude_glm-5.1_01_fp8_gemm
O=20260427_044258_opencode_deepseek_deepseek-v4-flash_01_fp8_gemm
C=20260427_232335_codex_gpt-5.5_02_kda_cutlass

"$kb" runs --jsonl "$fx" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "runs --jsonl over the fixture exits 0" '[ $rc -eq 0 ]'
t "every row has a disagreements array" '[ "$(grep -c "\"disagreements\":\[" "$tmp/out")" -eq "$(wc -l < "$tmp/out")" ]'
grep "\"run_id\":\"$Z\"" "$tmp/out" > "$tmp/z"
t "zai-claude 01: correct, result.json true against runs.jsonl false" \
	'grep -qF "{\"field\":\"correct\",\"file_a\":\"result.json\",\"value_a\":true,\"file_b\":\"runs.jsonl\",\"value_b\":false}" "$tmp/z"'
t "zai-claude 01: peak_fraction, result.json 0.4391 against runs.jsonl null" \
	'grep -qF "{\"field\":\"peak_fraction\",\"file_a\":\"result.json\",\"value_a\":0.4391,\"file_b\":\"runs.jsonl\",\"value_b\":null}" "$tmp/z"'
t "its merged outcome is still the index's (correct false)" 'grep -qF "\"correct\":false" "$tmp/z"'
grep "\"run_id\":\"$O\"" "$tmp/out" > "$tmp/o"
t "opencode: the transcript's missing marker against result.json's session_complete" \
	'grep -qF "{\"field\":\"session_complete\",\"file_a\":\"transcript\",\"value_a\":false,\"file_b\":\"result.json\",\"value_b\":true}" "$tmp/o"'
t "a run whose files agree has an empty array" 'grep "\"run_id\":\"$C\"" "$tmp/out" | grep -qF "\"disagreements\":[]"'

"$kb" runs "$fx" > "$tmp/table" 2> "$tmp/err"; rc=$?
t "the table has a DISAGREE column" '[ $rc -eq 0 ] && head -1 "$tmp/table" | grep -qE "TOOLS +DISAGREE$"'
t "the zai-claude row counts two pairs (!=2)" 'grep "^$Z " "$tmp/table" | grep -qE " !=2$"'
t "the codex row none (-)" 'grep "^$C " "$tmp/table" | grep -qE " -$"'

# a dataset with leaderboard_v1.json: its run without a transcript is listed
d="$tmp/ds"; mkdir -p "$d/runs"
cp -r "$fx/runs/$Z" "$d/runs/"
grep "\"run_id\": \"$Z\"" "$fx/runs.jsonl" > "$d/runs.jsonl"
cat > "$d/leaderboard_v1.json" <<JSON
{"schema_version": 1, "hardware": {"name": "GPU"}, "models": [
 {"label": "zai-claude/glm-5.1", "harness": "zai-claude", "model": "glm-5.1", "effort": "",
  "results": {"01_fp8_gemm": {"run_id": "$Z", "correct": false, "peak_fraction": null},
              "09_fmha_preattn_mrope": {"run_id": "20260513_170000_zai-claude_glm-5.1_09_fmha_preattn_mrope",
                                        "correct": true, "has_solution": true, "peak_fraction": 0.31}}}]}
JSON
"$kb" runs --jsonl "$d" > "$tmp/v1" 2> "$tmp/err"; rc=$?
t "a dataset with leaderboard_v1.json opens" '[ $rc -eq 0 ] && [ ! -s "$tmp/err" ]'
t "the run only leaderboard_v1.json lists is a row, held out, with its outcome" \
	'grep "zai-claude_glm-5.1_09_fmha_preattn_mrope" "$tmp/v1" | grep -qF "\"correct\":true,\"peak_fraction\":0.31" &&
	 grep "zai-claude_glm-5.1_09_fmha_preattn_mrope" "$tmp/v1" | grep -qF "\"held_out\":true"'
t "leaderboard_v1.json is named where it disagrees with result.json" \
	'grep "\"run_id\":\"$Z\"" "$tmp/v1" | grep -qF "\"file_a\":\"result.json\",\"value_a\":true,\"file_b\":\"leaderboard_v1.json\",\"value_b\":false"'
"$kb" runs "$d" > "$tmp/v1t" 2>&1
t "the table lists it as held" 'grep "zai-claude_glm-5.1_09_fmha_preattn_mrope" "$tmp/v1t" | grep -qE " held +-$"'

"$kb" runs --help > "$tmp/help" 2>&1
t "runs --help describes the disagreements" 'grep -q "disagreements" "$tmp/help" && grep -q "DISAGREE" "$tmp/help"'

"$kb" keys > "$tmp/keys" 2>&1
t "kbtui keys lists W for the lineage pane's final file" 'grep -qE "^ *W +.*Lineage pane: the run directory.s final copy" "$tmp/keys"'

echo "1..$n"
exit $fail
