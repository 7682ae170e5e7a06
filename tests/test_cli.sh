#!/bin/sh
# The headless commands as a user runs them: output, exit status, messages.
kb="$KB_BUILDDIR/kbtui"; fx="$KB_SRCDIR/tests/fixtures/cli"
n=0; fail=0
t() { n=$((n+1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fail=1; fi; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# dump --jsonl: the documented contract
"$kb" dump --jsonl "$fx/grok_ok.jsonl" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "dump of a good transcript exits 0" '[ $rc -eq 0 ]'
t "dump prints one line per event (reasoning merged, text)" '[ $(wc -l < "$tmp/out") -eq 2 ]'
t "first event is reasoning with merged deltas" 'head -1 "$tmp/out" | grep -q "\"kind\":\"reasoning\".*\"text\":\"I should read the reference first. Then write the kernel.\""'
t "every line has i, kind, name, call_id, is_error, text" '[ $(grep -c "\"i\":.*\"kind\":.*\"name\":.*\"call_id\":.*\"is_error\":.*\"text\":" "$tmp/out") -eq 2 ]'
t "no message on stderr" '[ ! -s "$tmp/err" ]'

# a malformed line: exit 1, file and line named, the rest still parsed
"$kb" dump --jsonl "$fx/grok_bad.jsonl" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "malformed line exits 1" '[ $rc -eq 1 ]'
t "message names file and line 3" 'grep -q "grok_bad.jsonl:3: " "$tmp/err"'
t "lines after the bad one still parse" 'grep -q "\"text\":\"secondfourth\"\|\"text\":\"fourth\"" "$tmp/out"'

# usage errors exit 2
"$kb" --no-such-flag > /dev/null 2> "$tmp/err"; rc=$?
t "unknown option exits 2" '[ $rc -eq 2 ] && grep -q "unknown option" "$tmp/err"'
"$kb" dump > /dev/null 2>&1; rc=$?
t "dump without a path exits 2" '[ $rc -eq 2 ]'
"$kb" dump --format nosuch "$fx/grok_ok.jsonl" > /dev/null 2> "$tmp/err"; rc=$?
t "unknown --format exits 2 and says so" '[ $rc -eq 2 ] && grep -q "unknown format" "$tmp/err"'
"$kb" dump /nonexistent/x.jsonl > /dev/null 2> "$tmp/err"; rc=$?
t "missing file exits 1 naming it" '[ $rc -eq 1 ] && grep -q "/nonexistent/x.jsonl" "$tmp/err"'
"$kb" < /dev/null > /dev/null 2> "$tmp/err"; rc=$?
t "the browser without a terminal exits 2 with a hint" '[ $rc -eq 2 ] && grep -q "kbtui runs" "$tmp/err"'

# text dump shows escape sequences as visible text, never raw
"$kb" dump "$fx/grok_escapes.jsonl" > "$tmp/out" 2>&1
t "text dump contains no ESC or BEL byte" '! grep -q "$(printf "\033")" "$tmp/out" && ! grep -q "$(printf "\007")" "$tmp/out"'
t "escape shown as ^[" 'grep -q "\^\[\]0;pwned^G" "$tmp/out"'
"$kb" dump "$fx/grok_ok.jsonl" > "$tmp/out" 2>&1
t "text dump numbers events from 1, as the replay does" 'head -1 "$tmp/out" | grep -qE "^ +1 reasoning " && tail -1 "$tmp/out" | grep -qE "^ +2 text "'

# a small dataset, including hostile index entries
mkdir -p "$tmp/ds/runs/r1" "$tmp/ds/runs/r2" "$tmp/ds/annotations"
cp "$fx/grok_ok.jsonl" "$tmp/ds/runs/r1/transcript.jsonl"
cp "$fx/grok_bad.jsonl" "$tmp/ds/runs/r2/transcript.jsonl"
cat > "$tmp/ds/runs.jsonl" <<JSON
{"run_id":"r1","harness":"grok","model":"m-$(printf '\\u001b')[31mred","problem":"01_fp8_gemm","correct":true,"peak_fraction":0.25,"transcript":"runs/r1/transcript.jsonl","annotation":"annotations/r1.yaml"}
{"run_id":"r2","harness":"grok","model":"m2","problem":"02_kda_cutlass","correct":false,"peak_fraction":null,"transcript":"runs/r2/transcript.jsonl"}
{"run_id":"r3","harness":"grok","model":"m3","problem":"03_paged_attention","transcript":"../../etc/passwd"}
not json at all
JSON
printf 'run_id: r1\nverdict: reward_hack\nsummary: >\n  test\n' > "$tmp/ds/annotations/r1.yaml"
"$kb" runs "$tmp/ds" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "runs lists r1 with its verdict and counts" 'grep -E "^r1 .* yes +0\.2500 reward_hack +2 +0" "$tmp/out" >/dev/null'
t "runs lists r2 as not correct" 'grep -E "^r2 .* no +- " "$tmp/out" >/dev/null'
t "runs exits 1 when input is bad" '[ $rc -eq 1 ]'
t "escaping path is refused with file and line" 'grep -q "runs.jsonl:3: transcript path \"../../etc/passwd\" leaves the dataset" "$tmp/err"'
t "a bad index line is named" 'grep -q "runs.jsonl:4: not a JSON object" "$tmp/err"'
t "malformed transcript line is named" 'grep -q "r2/transcript.jsonl:3: " "$tmp/err"'
t "no raw ESC in the table" '! grep -q "$(printf "\033")" "$tmp/out"'
"$kb" runs --jsonl "$tmp/ds" > "$tmp/out" 2>/dev/null
t "runs --jsonl gives one object per run" '[ $(grep -c "^{\"run_id\":" "$tmp/out") -eq 3 ]'
t "runs --jsonl carries verdict and tool_calls" 'grep -q "\"run_id\":\"r1\".*\"verdict\":\"reward_hack\".*\"tool_calls\":0" "$tmp/out"'

# a symlink out of the dataset is refused
mkdir -p "$tmp/ds2/runs/x"; ln -s "$fx/grok_ok.jsonl" "$tmp/ds2/runs/x/transcript.jsonl"
echo '{"run_id":"x","transcript":"runs/x/transcript.jsonl"}' > "$tmp/ds2/runs.jsonl"
"$kb" runs "$tmp/ds2" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "symlinked transcript outside the dataset is refused" '[ $rc -eq 1 ] && grep -q "outside the dataset" "$tmp/err"'

# no runs.jsonl: runs/*/ is scanned, result.json read
mkdir -p "$tmp/ds3/runs/20260101_000000_grok_m_01_fp8_gemm"
cp "$fx/grok_ok.jsonl" "$tmp/ds3/runs/20260101_000000_grok_m_01_fp8_gemm/transcript.jsonl"
echo '{"problem":"01_fp8_gemm","harness":"grok","model":"m","correct":true,"peak_fraction":0.5}' > "$tmp/ds3/runs/20260101_000000_grok_m_01_fp8_gemm/result.json"
"$kb" runs "$tmp/ds3" > "$tmp/out" 2>&1; rc=$?
t "a dataset without runs.jsonl is scanned" '[ $rc -eq 0 ] && grep -qE "^20260101_000000_grok_m_01_fp8_gemm .* yes +0\.5000" "$tmp/out"'

# runs: a harness column, and columns as wide as their values, so that two
# models that share a long prefix are never cut to one name
mkdir -p "$tmp/ds4/runs/a" "$tmp/ds4/runs/b"
cp "$fx/grok_ok.jsonl" "$tmp/ds4/runs/a/transcript.jsonl"
cp "$fx/grok_ok.jsonl" "$tmp/ds4/runs/b/transcript.jsonl"
cat > "$tmp/ds4/runs.jsonl" <<'JSON'
{"run_id":"a","harness":"opencode","model":"openrouter-pinned/qwen/qwen3.6-27b","problem":"01_fp8_gemm","correct":true,"peak_fraction":0.5,"transcript":"runs/a/transcript.jsonl"}
{"run_id":"b","harness":"droid","model":"openrouter-pinned/qwen/qwen3.6-35b-a3b","problem":"10_patch_embed_conv3d_gemm","correct":false,"transcript":"runs/b/transcript.jsonl"}
JSON
"$kb" runs "$tmp/ds4" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "runs: a HARNESS column after RUN_ID" '[ $rc -eq 0 ] && head -1 "$tmp/out" | grep -qE "^RUN_ID +HARNESS +MODEL +PROBLEM +OK "'
t "runs: long model and problem names whole, aligned" 'grep -qE "^a +opencode +openrouter-pinned/qwen/qwen3\.6-27b +01_fp8_gemm +yes 0\.5000" "$tmp/out" &&
	grep -qE "^b +droid +openrouter-pinned/qwen/qwen3\.6-35b-a3b 10_patch_embed_conv3d_gemm no " "$tmp/out" &&
	[ "$(sed -n 2p "$tmp/out" | grep -bo "yes" | cut -d: -f1)" = "$(sed -n 3p "$tmp/out" | grep -bo " no " | cut -d: -f1 | xargs expr 1 +)" ]'

# dump of a dataset directory: runs.jsonl is its index, not a transcript
"$kb" dump "$tmp/ds4" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "dump of a dataset says it wants a run, exits 1" '[ $rc -eq 1 ] && [ ! -s "$tmp/out" ] &&
	grep -q "ds4: a dataset, not a run: dump takes a run directory" "$tmp/err" && ! grep -q "runs.jsonl" "$tmp/err"'

# a transcript cut off mid-line: the cut line is reported with its number
{ head -2 "$fx/grok_ok.jsonl"; printf '{"type":"text","data":"Done: sol'; } > "$tmp/cut.jsonl"
"$kb" dump "$tmp/cut.jsonl" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "a transcript cut mid-line: exit 1, file and line 3 named" '[ $rc -eq 1 ] && grep -q "cut.jsonl:3: cut off: the last line ends without a newline" "$tmp/err"'
# a plain-text transcript whose last line has no newline keeps that line
ex="$KB_SRCDIR/tests/fixtures/codex-exec/exec_cut.txt"
head -c -1 "$ex" > "$tmp/nonl.txt"
t "plain text without a final newline: the last line is kept" \
	'[ "$("$kb" dump "$tmp/nonl.txt" 2>/dev/null | tail -1)" = "$("$kb" dump "$ex" 2>/dev/null | tail -1)" ] &&
	 "$kb" dump "$ex" | tail -1 | grep -q "kernel 12.5 us"'

# flags.rules, vendor-gemm: a GEMM by `@ w.T` in code is flagged, the same
# words in a docstring or a shape comment are not
mkdir -p "$tmp/fl/01_fp8_gemm"
sol='\"\"\"FP8 GEMM: y = x @ w.T as bf16.\n\ny = x @ w.T where x is (M, K) fp8.\n\"\"\"\nimport torch\n# y = x @ w.T\nout = 0  # shape (M, N): x @ w.T\ndef forward(x_bf, w_bf):\n    return x_bf @ w_bf.T\n'
printf '%s\n' '{"type":"system","subtype":"init","cwd":"/w/problems/01_fp8_gemm","session_id":"v","tools":["Write"],"mcp_servers":[],"model":"m"}' \
	"{\"type\":\"assistant\",\"message\":{\"id\":\"m1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"Write\",\"input\":{\"file_path\":\"/w/problems/01_fp8_gemm/solution.py\",\"content\":\"$sol\"}}],\"usage\":{\"input_tokens\":1,\"output_tokens\":1}},\"parent_tool_use_id\":null,\"session_id\":\"v\"}" \
	> "$tmp/fl/01_fp8_gemm/transcript.jsonl"
"$kb" flags "$tmp/fl/01_fp8_gemm/transcript.jsonl" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "vendor-gemm: the code line is flagged, docstrings and comments are not" \
	'[ $rc -eq 0 ] && [ "$(grep -c "vendor-gemm" "$tmp/out")" -eq 1 ] && grep -q "vendor-gemm: *return x_bf @ w_bf.T" "$tmp/out"'

# search over one run: a run directory (named by it) or a transcript file
"$kb" search 'reference first' "$tmp/ds4/runs/a" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "search in one run directory: exit 0, run named by its directory" '[ $rc -eq 0 ] && [ "$(cat "$tmp/out")" = "a:1:1: I should read the reference first. Then write the kernel." ]'
"$kb" search -c 'kernel' "$fx/grok_ok.jsonl" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "search -c in one transcript file" '[ $rc -eq 0 ] && [ "$(cat "$tmp/out")" = "grok_ok.jsonl:2" ]'
"$kb" search 'no such words' "$tmp/ds4/runs/a/" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "search in one run, no match: exit 1, nothing printed" '[ $rc -eq 1 ] && [ ! -s "$tmp/out" ] && [ ! -s "$tmp/err" ]'

# lines no parser knows are not an empty transcript
printf '%s\n' '{"hello":"world"}' '{"x":1}' > "$tmp/unknown.jsonl"
"$kb" dump "$tmp/unknown.jsonl" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "dump of lines no parser knows: exit 1, unrecognised, file named" '[ $rc -eq 1 ] && grep -q "unknown.jsonl:1: unrecognised transcript format" "$tmp/err"'
: > "$tmp/empty.jsonl"
"$kb" dump "$tmp/empty.jsonl" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "dump of an empty transcript: exit 0, nothing said" '[ $rc -eq 0 ] && [ ! -s "$tmp/out" ] && [ ! -s "$tmp/err" ]'

# formats and version
t "formats lists every format" '[ $("$kb" formats | wc -l) -ge 9 ] && "$kb" formats | grep -q "^claude-session "'
t "--version prints the version" '"$kb" --version | grep -qE "^kbtui [0-9]+\.[0-9]+"'
echo "1..$n"
exit $fail
