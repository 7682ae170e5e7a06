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
"$kb" runs --json "$tmp/ds" > "$tmp/out" 2>/dev/null
t "runs --json gives one object per run" '[ $(grep -c "^{\"run_id\":" "$tmp/out") -eq 3 ]'
t "runs --json carries verdict and tool_calls" 'grep -q "\"run_id\":\"r1\".*\"verdict\":\"reward_hack\".*\"tool_calls\":0" "$tmp/out"'

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

# formats and version
t "formats lists every format" '[ $("$kb" formats | wc -l) -ge 9 ] && "$kb" formats | grep -q "^claude-session "'
t "--version prints the version" '"$kb" --version | grep -qE "^kbtui [0-9]+\.[0-9]+"'
echo "1..$n"
exit $fail
