#!/bin/sh
# Values that reach a command line are never options (issue 30): a sweep
# whose label starts with '-' (its cells' run ids do too) and whose model
# name starts with '-' runs its cells on the local executor (the runner
# gets "--" before DIR RUN_ID, kbtui live gets --opt=VALUE), and
# `sweep --status` agrees with the files.
. "$KB_SRCDIR/tests/sweepenv.sh"

serve main "$tmp/solve.jsonl"
cat > "$tmp/models.yaml" <<EOF
models:
  - label: -x
    provider: openai
    model: --headless
    base_url: http://127.0.0.1:$port/v1
    key_env: SWEEP_KEY_A
EOF
d="$tmp/sweep"
"$kb" sweep --models "$tmp/models.yaml" --problems 01_toy --problems-dir "$tmp/problems" --out "$d" \
	--budget 2m --sandbox none > "$tmp/s.out" 2> "$tmp/s.err"; rc=$?
sed 's/^/# /' "$tmp/s.out" "$tmp/s.err"
t "the sweep of label '-x' ends with its cell done (exit 0)" '[ $rc -eq 0 ] && grep -q "^1 cells: 1 done" "$tmp/s.out"'
t "its run directory -x_01_toy has transcript and result.json" '[ -s "$d/runs/-x_01_toy/transcript.jsonl" ] && [ -s "$d/runs/-x_01_toy/result.json" ]'
t "the model named '--headless' reached the server as the model" 'grep -q "\"model\":\"--headless\"" "$tmp/main.llmlog"'
t "sweep --status --json agrees with the files: done" '[ "$(state "$d" -x_01_toy)" = done ]'
t "runs.jsonl has its row" 'jqe ".run_id == \"-x_01_toy\" and .label == \"-x\"" "$d/runs.jsonl"'
"$kb" sweep --run-cell -- "$d" -x_01_toy > "$tmp/rc.out" 2>&1; rc=$?
t "--run-cell -- DIR -x_01_toy: the cell is found (already done)" '[ $rc -eq 0 ] && grep -q "already done" "$tmp/rc.out"'
echo "1..$n"
exit $fail
