#!/bin/sh
# kbtui sweep on the local executor: 2 models x 2 problems against
# tests/fakellm with the eval stubbed (fake nvcc, a fake nvidia-smi with two
# GPUs); the result is a dataset kbtui runs and export read; a second run
# does nothing; the models file's errors name file and line; faults: a
# provider outage, a missing key, a cancelled cell and a runner killed by
# SIGKILL are each marked with their reason while the rest go on, and
# --retry failed reruns them without writing a cell twice. The keys are in
# no file.
. "$KB_SRCDIR/tests/sweepenv.sh"

serve main "$tmp/solve.jsonl"
models_file "$tmp/models.yaml" "$port"
d="$tmp/sweep"

# ---- the sweep -----------------------------------------------------------------------
"$kb" sweep --models "$tmp/models.yaml" --problems all --problems-dir "$tmp/problems" --out "$d" \
	--parallel 2 --budget 2m --sandbox none > "$tmp/s1.out" 2> "$tmp/s1.err"
rc=$?
sed 's/^/# /' "$tmp/s1.out"
t "the sweep ends with every cell done (exit 0)" '[ $rc -eq 0 ] && grep -q "^4 cells: 4 done, 0 running" "$tmp/s1.out"'
t "no sanitizer report" '! grep -qE "runtime error|Sanitizer" "$tmp/s1.err" "$d"/runs/*/live.err'
t "four run directories in the dataset layout (transcript.jsonl, result.json, solution.cu)" '
	[ "$(ls "$d/runs" | wc -l)" -eq 4 ] &&
	for r in fake-a-high_01_toy fake-a-high_02_toy fake-b_01_toy fake-b_02_toy; do
		[ -s "$d/runs/$r/transcript.jsonl" ] && [ -s "$d/runs/$r/result.json" ] && [ -f "$d/runs/$r/solution.cu" ] || exit 1
	done'
t "runs.jsonl: four rows, one per cell, each a whole JSON line" '
	[ "$(wc -l < "$d/runs.jsonl")" -eq 4 ] && [ "$(jq -r .run_id "$d/runs.jsonl" | sort -u | wc -l)" -eq 4 ] &&
	[ "$(tail -c 1 "$d/runs.jsonl" | od -An -c | tr -d " ")" = "\n" ]'
t "rows carry the stubbed eval: correct, peak_fraction 0.4421, the label and effort" '
	[ "$(jq -s "map(select(.correct == true and .peak_fraction == 0.4421 and .harness == \"kbtui-live\")) | length" "$d/runs.jsonl")" -eq 4 ] &&
	jq -se ".[] | select(.run_id == \"fake-a-high_01_toy\") | .label == \"fake-a [high]\" and .effort == \"high\" and .provider == \"openai\"" "$d/runs.jsonl" > /dev/null &&
	jq -se ".[] | select(.run_id == \"fake-b_02_toy\") | .provider == \"anthropic\" and .transcript == \"runs/fake-b_02_toy/transcript.jsonl\"" "$d/runs.jsonl" > /dev/null'
t "leaderboard.json: both models, both problems, pass_count 2 each" '
	jqe ".problems == [\"01_toy\", \"02_toy\"] and (.models | length) == 2 and
	       ([.models[] | .pass_count] == [2, 2]) and
	       .models[0].results[\"02_toy\"].run_id == \"fake-a-high_02_toy\"" "$d/leaderboard.json"'
t "the anthropic model got its thinking budget" 'grep -q "\"budget_tokens\":2048" "$tmp/main.llmlog"'
t "the openai model got its effort: every fake-a request says reasoning_effort high" '
	n=$(grep -c "\"model\":\"fake-a\"" "$tmp/main.llmlog") && [ "$n" -gt 0 ] &&
	[ "$(grep "\"model\":\"fake-a\"" "$tmp/main.llmlog" | grep -c "\"reasoning_effort\":\"high\"")" -eq "$n" ] &&
	! grep "\"model\":\"fake-b\"" "$tmp/main.llmlog" | grep -q reasoning_effort'
"$kb" runs "$d" > "$tmp/runs.out" 2> "$tmp/runs.err"
t "kbtui runs reads the sweep as a dataset: four runs, PASS, 0.4421" '
	[ "$(grep -c " yes 0.4421 " "$tmp/runs.out")" -eq 4 ]'
t "kbtui export reads it: four CSV rows" '
	"$kb" export --format csv "$d" > "$tmp/x.csv" && [ "$(grep -c "kbtui-live" "$tmp/x.csv")" -eq 4 ]'
t "kbtui dump reads a cell's transcript" '"$kb" dump "$d/runs/fake-b_01_toy" | grep -q "write_file"'
t "one GPU per cell: CUDA_VISIBLE_DEVICES and its lock file for each eval, both GPUs used" '
	[ "$(grep -c "^gpu=[01] lock=$d/gpu/[01].lock$" "$tmp/gpu.log")" -eq 4 ] &&
	grep -q "^gpu=0 lock=$d/gpu/0.lock" "$tmp/gpu.log" && grep -q "^gpu=1 lock=$d/gpu/1.lock" "$tmp/gpu.log"'
"$kb" sweep --status "$d" > "$tmp/grid.txt"
echo "# the grid of the test sweep (kbtui sweep --status):"
sed 's/^/#   /' "$tmp/grid.txt"
t "--status: a row per model, a column per problem, every cell done PASS" '
	grep -qE "^model +01_toy +02_toy" "$tmp/grid.txt" &&
	grep -qE "^fake-a \[high\] +done PASS 0.4421 .* done PASS 0.4421" "$tmp/grid.txt" &&
	grep -qE "^fake-b +done PASS 0.4421 .* done PASS 0.4421" "$tmp/grid.txt"'
t "--status --json: four cells done, with turns and tokens" '
	"$kb" sweep --status "$d" --json | jqe "[.cells[] | select(.state == \"done\" and .turns == 2 and .tokens > 0)] | length == 4"'
t "sweep.json records the key variables by name" 'jqe "[.models[].key_env] == [\"SWEEP_KEY_A\", \"SWEEP_KEY_B\"]" "$d/sweep.json"'
t "the keys are in no file of the sweep, nor in the server's log" '! grep -rqF -e "$KEY_A" -e "$KEY_B" "$d" "$tmp/main.llmlog"'

# ---- idempotent ---------------------------------------------------------------------
cp "$d/runs.jsonl" "$tmp/rows.before"
nreq=$(wc -l < "$tmp/main.llmlog")
"$kb" sweep --models "$tmp/models.yaml" --problems all --problems-dir "$tmp/problems" --out "$d" \
	--parallel 2 --budget 2m --sandbox none > "$tmp/s2.out" 2>&1
rc=$?
t "the same command again starts nothing (exit 0)" '[ $rc -eq 0 ] && grep -q "nothing to start: 4 done" "$tmp/s2.out"'
t "... writes no row and asks the model nothing" 'cmp -s "$tmp/rows.before" "$d/runs.jsonl" && [ "$(wc -l < "$tmp/main.llmlog")" -eq "$nreq" ]'
"$kb" sweep "$d" > "$tmp/s3.out" 2>&1
rc=$?
t "kbtui sweep DIR continues from sweep.json: nothing left" '[ $rc -eq 0 ] && grep -q "nothing to start: 4 done" "$tmp/s3.out"'
"$kb" sweep --run-cell "$d" fake-b_01_toy > "$tmp/s4.out" 2>&1
rc=$?
t "--run-cell of a finished cell: already done, no second row" '[ $rc -eq 0 ] && grep -q "already done" "$tmp/s4.out" && cmp -s "$tmp/rows.before" "$d/runs.jsonl"'
"$kb" sweep --models "$tmp/models.yaml" --problems 01 --problems-dir "$tmp/problems" --out "$d" > "$tmp/s5.out" 2>&1
rc=$?
t "another sweep into the same directory is refused, naming sweep.json" '[ $rc -eq 1 ] && grep -q "sweep.json holds another sweep (not the same problems)" "$tmp/s5.out"'
"$kb" sweep "$d" --budget 5m > "$tmp/s6.out" 2>&1
rc=$?
t "continuing cannot change the live options" '[ $rc -eq 2 ] && grep -q "keeps the models, problems and live options" "$tmp/s6.out"'

# ---- the models file ------------------------------------------------------------------
bad() { printf '%s\n' "$2" > "$tmp/bad.yaml"; "$kb" sweep --models "$tmp/bad.yaml" --problems all \
	--problems-dir "$tmp/problems" --out "$tmp/bad-$1" > "$tmp/bad.out" 2>&1; echo $? > "$tmp/bad.rc"; }
bad 1 "- label: a
  model: m
  key_env: K
  lable: typo"
t "an unknown key: file, line and the keys there are" '[ "$(cat "$tmp/bad.rc")" -eq 1 ] &&
	grep -q "bad.yaml:4: unknown key .lable. (label, provider, model, base_url, effort, key_env, thinking)" "$tmp/bad.out"'
bad 2 "- label: a
  model: m
  key_env: sk-live-THE-KEY-ITSELF-123"
t "a key where the variable name goes: refused, the key not echoed" '[ "$(cat "$tmp/bad.rc")" -eq 1 ] &&
	grep -q "bad.yaml:1: key_env is the name of the environment variable" "$tmp/bad.out" && ! grep -q THE-KEY "$tmp/bad.out"'
bad 3 "- label: a
  provider: gemini
  model: m
  key_env: K"
t "an unknown provider" 'grep -q "bad.yaml:1: provider is openai or anthropic, not .gemini." "$tmp/bad.out"'
bad 4 "- label: a b
  model: m
  key_env: K
- label: a/b
  model: m
  key_env: K"
t "two labels that name their runs alike" 'grep -q "bad.yaml:4: this label names its runs as the one on line 1 does (a-b)" "$tmp/bad.out"'
bad 5 "- label: a
  key_env: K"
t "a model without its model" 'grep -q "bad.yaml:1: this model has no model" "$tmp/bad.out"'
bad 6 "models: [unclosed"
t "not YAML: file and line" '[ "$(cat "$tmp/bad.rc")" -eq 1 ] && grep -qE "bad.yaml:[0-9]+: " "$tmp/bad.out"'
"$kb" sweep --models "$tmp/models.yaml" --problems 09_nothing --problems-dir "$tmp/problems" --out "$tmp/bad-p" > "$tmp/bad.out" 2>&1
rc=$?
t "an unknown problem is named" '[ $rc -eq 1 ] && grep -q "no problem .09_nothing." "$tmp/bad.out"'
"$kb" sweep --status "$tmp/nothing-here" > "$tmp/bad.out" 2>&1
rc=$?
t "--status of a directory that is no sweep says so" '[ $rc -eq 1 ] && grep -q "nothing-here/sweep.json: cannot read" "$tmp/bad.out"'

# ---- faults ----------------------------------------------------------------------------
serve slow "$tmp/slow.jsonl"
slowport=$port
touch "$tmp/slow.flag"
cat > "$tmp/faults.yaml" <<EOF
- label: ok
  model: fake-a
  base_url: http://127.0.0.1:$(sed -n 's/^port=//p' "$tmp/main.port")/v1
  key_env: SWEEP_KEY_A
- label: down
  model: fake-a
  base_url: http://127.0.0.1:$slowport/outage/v1
  key_env: SWEEP_KEY_A
- label: nokey
  model: fake-a
  base_url: http://127.0.0.1:$slowport/v1
  key_env: SWEEP_KEY_NOT_SET_ANYWHERE
- label: slow
  model: fake-a
  base_url: http://127.0.0.1:$slowport/v1
  key_env: SWEEP_KEY_A
- label: slow2
  model: fake-a
  base_url: http://127.0.0.1:$slowport/v1
  key_env: SWEEP_KEY_A
EOF
f="$tmp/faults"
"$kb" sweep --models "$tmp/faults.yaml" --problems 01 --problems-dir "$tmp/problems" --out "$f" \
	--parallel 5 --budget 10m --sandbox none > "$tmp/f1.out" 2> "$tmp/f1.err" &
sweeppid=$!
pids="$pids $sweeppid"
both_running() {
	[ "$(state "$f" slow_01_toy)" = running ] && [ "$(state "$f" slow2_01_toy)" = running ] &&
	"$kb" sweep --status "$f" --json |
		jqe '.cells[] | select(.run_id == "slow_01_toy") | .turns >= 1 and .tokens > 0'
}
others_over() {
	[ "$(state "$f" down_01_toy)" = failed ] && [ "$(state "$f" nokey_01_toy)" = failed ] &&
	[ "$(state "$f" ok_01_toy)" = done ]
}
t "the two long cells show as running, with their turn and tokens" 'wait_until 240 both_running'
"$kb" sweep --status "$f" > "$tmp/fgrid.txt"
t "the grid shows them running" 'grep -qE "^slow +running [0-9]+s t1 " "$tmp/fgrid.txt"'
t "meanwhile the outage and the missing key have failed, the good cell is done" 'wait_until 120 others_over'
runner=$(jq -r .pid "$f/cells/slow2_01_toy.json")
kill -9 "$runner"
t "a runner killed by SIGKILL: its cell is killed, with why" '
	wait_until 60 "[ \"\$(state \"\$f\" slow2_01_toy)\" = killed ]" &&
	"$kb" sweep --status "$f" --json | jqe ".cells[] | select(.run_id == \"slow2_01_toy\") | .reason | test(\"runner died\")"'
"$kb" sweep --cancel "$f" > "$tmp/cancel.out" 2>&1
rc=$?
t "--cancel signals the sweep" '[ $rc -eq 0 ] && grep -q "sent SIGTERM to the sweep" "$tmp/cancel.out"'
wait $sweeppid
rc=$?
sed 's/^/# /' "$tmp/f1.out"
t "the sweep ends, not every cell done (exit 1)" '[ $rc -eq 1 ]'
t "the cancelled cell is killed, its run says aborted" '[ "$(state "$f" slow_01_toy)" = killed ] &&
	grep -q "stopped by Terminated" "$f/cells/slow_01_toy.json" && grep -q "kbtui live: aborted after" "$f/runs/slow_01_toy/live.log"'
t "the outage's reason is the provider's answer" '
	jqe ".reason | test(\"HTTP 503 .*the provider is down\")" "$f/cells/down_01_toy.json"'
t "the missing key's reason names the variable" 'grep -q "SWEEP_KEY_NOT_SET_ANYWHERE is not set" "$f/cells/nokey_01_toy.json"'
t "one row only, for the finished cell; no half-written line" '
	[ "$(wc -l < "$f/runs.jsonl")" -eq 1 ] && jqe ".run_id == \"ok_01_toy\"" "$f/runs.jsonl"'
t "the grid lists the failures with their reasons" '"$kb" sweep --status "$f" > "$tmp/fgrid2.txt" &&
	grep -q "^5 cells: 1 done, 0 running, 0 queued, 2 failed, 2 killed" "$tmp/fgrid2.txt" &&
	grep -q "^down_01_toy failed: kbtui live: HTTP 503" "$tmp/fgrid2.txt"'
"$kb" sweep "$f" > "$tmp/f2.out" 2>&1
rc=$?
t "without --retry, a rerun leaves failed cells alone and says how" '[ $rc -eq 1 ] && grep -q "(--retry failed reruns them)" "$tmp/f2.out" &&
	[ "$(wc -l < "$f/runs.jsonl")" -eq 1 ]'

# ---- retry ---------------------------------------------------------------------------------
rm -f "$tmp/slow.flag"
export SWEEP_KEY_NOT_SET_ANYWHERE="$KEY_B"
"$kb" sweep "$f" --retry failed > "$tmp/f3.out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/f3.out"
t "--retry failed: the killed cells and the one with its key now run to the end" '
	[ "$(state "$f" slow_01_toy)" = done ] && [ "$(state "$f" slow2_01_toy)" = done ] && [ "$(state "$f" nokey_01_toy)" = done ]'
t "... the provider still down: failed again (exit 1), attempt 2" '[ $rc -eq 1 ] && [ "$(state "$f" down_01_toy)" = failed ] &&
	jqe ".attempt == 2" "$f/cells/down_01_toy.json"'
t "... the killed attempts kept under attempts/, the done cell not run again" '
	[ -s "$f/attempts/slow_01_toy.1/transcript.jsonl" ] && [ -d "$f/attempts/slow2_01_toy.1" ] && [ ! -e "$f/attempts/ok_01_toy.1" ]'
t "... four rows, each cell once" '[ "$(wc -l < "$f/runs.jsonl")" -eq 4 ] && [ "$(jq -r .run_id "$f/runs.jsonl" | sort -u | wc -l)" -eq 4 ]'
t "no key in any file of either sweep" '! grep -rqF -e "$KEY_A" -e "$KEY_B" "$d" "$f"'
t "no sanitizer report in the fault runs" '! grep -qE "runtime error|Sanitizer" "$tmp/f1.err" "$tmp/f3.out" "$f"/runs/*/live.err'

echo "1..$n"
exit $fail
