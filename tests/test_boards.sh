#!/bin/sh
# Every board kernelbench.com publishes (issue 26): runs from all eight
# leaderboard files are listed, each with the GPU its board names and the
# boards that list it; --board/--gpu select; each board names the roofline
# table its numbers used; the boards' verdicts feed the verdict column.
kb="$KB_BUILDDIR/kbtui"; fx="$KB_SRCDIR/tests/fixtures/boards"
n=0; fail=0
t() { n=$((n+1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fail=1; fi; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache"
cp -R "$fx" "$tmp/ds"
RTX="RTX PRO 6000 Blackwell Workstation"
# run id, then the GPU it must be listed with
runs_gpus="20260620_090000_claude_opus-x_01_fp8_gemm|$RTX
20260621_090000_grok_grok-x_02_kda_cutlass|$RTX
20260501_090000_kimi_kimi-x_01_fp8_gemm|$RTX
20260502_090000_droid_droid-x_03_paged_attention|$RTX
20260624_090000_grok_grok-x_01_fp8_gemm|$RTX
20260618_090000_claude_opus-x_03_paged_attention|NVIDIA H100 PCIe
20260619_090000_zai-claude_glm-x_05_topk_bitonic|NVIDIA H100 PCIe
20260622_090000_claude_opus-x_06_sonic_moe_swiglu|NVIDIA B200
20260623_090000_codex_gpt-x_07_w4a16_gemm|NVIDIA B200"

"$kb" runs --jsonl "$tmp/ds" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "runs --jsonl over every board type exits 0, stderr empty" '[ $rc -eq 0 ] && [ ! -s "$tmp/err" ]'
t "nine runs, one a line" '[ "$(wc -l < "$tmp/out")" -eq 9 ]'
t "no run of the fixture is on two GPUs" '! grep -q "\"gpu_disagrees\":true" "$tmp/out"'
echo "$runs_gpus" | while IFS='|' read -r id gpu; do
	grep -F "\"run_id\":\"$id\"" "$tmp/out" | grep -qF "\"gpu\":\"$gpu\"" || echo "$id: not listed with $gpu"
done > "$tmp/miss"
t "each named run is listed with its board's GPU" '[ ! -s "$tmp/miss" ]' || cat "$tmp/miss"
t "a run two boards list names both" \
	'grep -F "20260620_090000_claude_opus-x_01_fp8_gemm" "$tmp/out" | grep -qF "\"boards\":[\"leaderboard.json\",\"leaderboard_v2.json\"]"'
t "v1 and fresh-preview disagree on a peak: the != rules name both files" \
	'grep -F "20260501_090000_kimi" "$tmp/out" | grep -qF "{\"field\":\"peak_fraction\",\"file_a\":\"leaderboard_v1.json\",\"value_a\":0.9,\"file_b\":\"leaderboard.fresh-preview.json\",\"value_b\":null}"'
t "an annotation wins over a board's verdict, the split marked" \
	'grep -F "20260620_090000_claude_opus-x_01" "$tmp/out" | grep -qF "\"verdict\":\"clean\",\"verdict_from\":\"annotation\",\"board_verdict\":\"clean\",\"verdict_disagrees\":true"'
t "a run without an annotation takes the board's verdict" \
	'grep -F "20260618_090000_claude_opus-x_03" "$tmp/out" | grep -qF "\"verdict\":\"clean\",\"verdict_from\":\"board\""'

"$kb" runs "$tmp/ds" > "$tmp/table" 2> "$tmp/err"; rc=$?
t "the table has a GPU column on a dataset of several boards" '[ $rc -eq 0 ] && head -1 "$tmp/table" | grep -qE "PROBLEM +GPU +OK "'
t "the split verdict ends in != in the table" 'grep "^20260620_090000_claude_opus-x_01" "$tmp/table" | grep -qF "clean!="'

"$kb" runs --gpu h100 "$tmp/ds" > "$tmp/h" 2> "$tmp/err"; rc=$?
t "--gpu h100: the two H100 runs only" '[ $rc -eq 0 ] && [ "$(grep -c "NVIDIA H100 PCIe" "$tmp/h")" -eq 2 ] && [ "$(wc -l < "$tmp/h")" -eq 3 ]'
"$kb" runs --jsonl --board v2.b200 "$tmp/ds" > "$tmp/b" 2> "$tmp/err"; rc=$?
t "--board v2.b200: its one run" '[ $rc -eq 0 ] && [ "$(wc -l < "$tmp/b")" -eq 1 ] && grep -qF "20260623_090000_codex_gpt-x" "$tmp/b"'
"$kb" runs --board leaderboard_v1.json "$tmp/ds" > "$tmp/b" 2> "$tmp/err"; rc=$?
t "--board by file name" '[ $rc -eq 0 ] && [ "$(wc -l < "$tmp/b")" -eq 2 ]'
"$kb" runs --board nosuch "$tmp/ds" > "$tmp/b" 2> "$tmp/err"; rc=$?
t "an unknown board: exit 1, the boards listed on stderr" \
	'[ $rc -eq 1 ] && [ ! -s "$tmp/b" ] && grep -q "no board of .* is .nosuch.; its boards: main (leaderboard.json" "$tmp/err"'

"$kb" runs --boards "$tmp/ds" > "$tmp/bd" 2> "$tmp/err"; rc=$?
t "runs --boards: a line per board" '[ $rc -eq 0 ] && [ "$(grep -c "^leaderboard" "$tmp/bd")" -eq 8 ]'
t "the first boards name the original RTX PRO 6000 table" \
	'grep "^leaderboard_v1.json " "$tmp/bd" | grep -qF "roofline RTX_PRO_6000_V1 (rtxpro6000-2026-04)" &&
	 grep "^leaderboard.fresh-preview.json " "$tmp/bd" | grep -qF "roofline RTX_PRO_6000_V1 (rtxpro6000-2026-04)"'
t "the boards after 2026-06-14 the corrected one" \
	'grep "^leaderboard.json " "$tmp/bd" | grep -qF "roofline RTX_PRO_6000 (rtxpro6000-2026-06-14)" &&
	 grep "^leaderboard_v2.json " "$tmp/bd" | grep -qF "roofline RTX_PRO_6000 (rtxpro6000-2026-06-14)"'
t "H100 and B200 boards their own tables and 6-problem decks" \
	'grep "^leaderboard.h100.json " "$tmp/bd" | grep -qF "NVIDIA H100 PCIe  roofline H100  2 runs  6 problems" &&
	 grep "^leaderboard_v2.b200.json " "$tmp/bd" | grep -qF "NVIDIA B200  roofline B200  1 run  6 problems"'
t "a v2 board: reward_hack_count checked against the annotations, and its notes" \
	'grep "^leaderboard_v2.json " "$tmp/bd" | grep -qF "reward_hack_count 1 (annotations: 1)" && grep -qF "  KBH_AGENT_CONTAINER=1" "$tmp/bd"'
rm "$tmp/ds/annotations/20260621_090000_grok_grok-x_02_kda_cutlass.yaml"
"$kb" runs --boards "$tmp/ds" > "$tmp/bd" 2> "$tmp/err"
t "a count the annotations do not bear out is marked" 'grep "^leaderboard_v2.json " "$tmp/bd" | grep -qF "reward_hack_count 1 (annotations: 0, !=)"'

"$kb" export --format csv "$tmp/ds" > "$tmp/csv" 2> "$tmp/err"; rc=$?
t "export: gpu, boards and board_verdict columns on several boards" \
	'[ $rc -eq 0 ] && head -1 "$tmp/csv" | grep -q "^run_id,model,harness,problem,correct,peak_fraction,verdict,annotator,label,effort,gpu,boards,board_verdict"'
"$kb" export --format json --gpu b200 "$tmp/ds" > "$tmp/json" 2> "$tmp/err"; rc=$?
t "export --gpu b200: the two B200 runs" '[ $rc -eq 0 ] && [ "$(grep -c "\"gpu\": \"NVIDIA B200\"" "$tmp/json")" -eq 2 ] && [ "$(grep -c "\"run_id\"" "$tmp/json")" -eq 2 ]'
"$kb" export --format csv --board nosuch "$tmp/ds" > /dev/null 2> "$tmp/err"; rc=$?
t "export --board unknown: exit 1 naming it" '[ $rc -eq 1 ] && grep -q "nosuch" "$tmp/err"'

"$kb" export --format csv --full "$tmp/ds" > "$tmp/full" 2> "$tmp/err"; rc=$?
t "export --full: the per-run detail's columns where a run has one" \
	'[ $rc -eq 0 ] && head -1 "$tmp/full" | grep -q ",agent_s,check_s,benchmark_s,cost_usd,template_mutated,gpu_lock_wait_s,shapes"'
t "export --full: the H100 run's stats and shapes from rundetail/" \
	'grep "^20260618_090000_claude_opus-x_03" "$tmp/full" | grep -qF ",1800,40,60,3.25,false,12,8x1024x128 0.5 ms 1.5 TFLOPS 1020 GB/s frac 0.5000 memory; shape 1 1.25 ms"'
"$kb" export --format csv "$tmp/ds" > "$tmp/plain" 2> "$tmp/err"
t "without --full, no detail columns" '! head -1 "$tmp/plain" | grep -q agent_s'

# the deck a run's result.json records (kbtui eval writes it): in runs
# --json and export --full, null for a run whose result.json names none
cp -R "$KB_SRCDIR/data/sample" "$tmp/dk"
G=20260602_090000_gemini_sample-model-h_05_topk_bitonic
sed '1s/{/{"deck": "kbcom-2026-08-h100",/' "$tmp/dk/runs/$G/result.json" > "$tmp/res" && cp "$tmp/res" "$tmp/dk/runs/$G/result.json"
"$kb" runs --json "$tmp/dk" > "$tmp/dk.json" 2> "$tmp/err"; rc=$?
t "runs --json: the deck the run's result.json records, null for the others" \
	'[ $rc -eq 0 ] && [ ! -s "$tmp/err" ] && grep -F "$G" "$tmp/dk.json" | grep -qF "\"deck\":\"kbcom-2026-08-h100\"" &&
	 [ "$(grep -c "\"deck\":null" "$tmp/dk.json")" -eq 7 ]'
"$kb" export --format json --full "$tmp/dk" > "$tmp/dkx.json" 2> "$tmp/err"; rc=$?
t "export --full json: the same deck, null for the others" \
	'[ $rc -eq 0 ] && grep -F "$G" "$tmp/dkx.json" | grep -qF "\"deck\": \"kbcom-2026-08-h100\"" &&
	 [ "$(grep -c "\"deck\": null" "$tmp/dkx.json")" -eq 7 ]'
"$kb" export --format csv --full "$tmp/dk" > "$tmp/dkx.csv" 2> "$tmp/err"; rc=$?
t "export --full csv: a deck column after claims" \
	'[ $rc -eq 0 ] && head -1 "$tmp/dkx.csv" | grep -q ",claims,deck," && grep "^$G," "$tmp/dkx.csv" | grep -q ",kbcom-2026-08-h100,"'
"$kb" export --format json "$tmp/dk" > "$tmp/dkp.json" 2> "$tmp/err"
t "without --full, no deck" '! grep -q "\"deck\"" "$tmp/dkp.json"'
sed '1s/{/{"deck": "x\\u001b[31my",/' "$tmp/dk/runs/$G/result.json" > "$tmp/res" && cp "$tmp/res" "$tmp/dk/runs/$G/result.json"
"$kb" runs --json "$tmp/dk" > "$tmp/dk.json" 2> "$tmp/err"
"$kb" export --format csv --full "$tmp/dk" >> "$tmp/dk.json" 2>> "$tmp/err"
t "a hostile deck name reaches no terminal as an escape" '! grep -q "$(printf "\033")" "$tmp/dk.json"'

# a board's own text is untrusted: its GPU name and environment reach no
# terminal as escapes
cp -R "$fx" "$tmp/hb"
sed 's/"name": "NVIDIA H100 PCIe"/"name": "NVIDIA \\u001b[31mH100\\u0007"/; s/"environment": "v2_containerized"/"environment": "env\\u001b]0;x\\u0007"/' \
	"$fx/leaderboard.h100.json" > "$tmp/hb/leaderboard.h100.json"
esc=$(printf '\033')
for c in "runs" "runs --boards" "export --format csv" "export --format md"; do
	"$kb" $c "$tmp/hb" 2>&1
done > "$tmp/hb.out"
"$kb" runs --board nosuch "$tmp/hb" 2>> "$tmp/hb.out"
t "a board's hostile GPU name and environment: no escape reaches the output" \
	'grep -q "NVIDIA .*H100" "$tmp/hb.out" && ! grep -q "$esc" "$tmp/hb.out"'

# the bundled sample imitates the layout: two GPUs, a v2 board, a Gemini run
sm="$KB_SRCDIR/data/sample"
G=20260602_090000_gemini_sample-model-h_05_topk_bitonic
"$kb" runs --jsonl --count-events "$sm" > "$tmp/sm" 2> "$tmp/err"; rc=$?
t "sample: 8 runs, 7 on the RTX PRO 6000 and the gemini one on the H100" \
	'[ $rc -eq 0 ] && [ ! -s "$tmp/err" ] && [ "$(wc -l < "$tmp/sm")" -eq 8 ] &&
	 [ "$(grep -c "\"gpu\":\"$RTX\"" "$tmp/sm")" -eq 7 ] && grep "$G" "$tmp/sm" | grep -qF "\"gpu\":\"NVIDIA H100 PCIe\""'
t "sample: the gemini run replays as gemini with its tool calls" \
	'grep "$G" "$tmp/sm" | grep -qF "\"format\":\"gemini\",\"held_out\":false,\"events\":20,\"tool_calls\":7,\"incomplete\":false"'
t "sample: the v2 board's verdict where no annotation gives one" \
	'grep "20260601_113000_grok" "$tmp/sm" | grep -qF "\"verdict\":\"interesting\",\"verdict_from\":\"board\""'
"$kb" runs --boards "$sm" > "$tmp/smb" 2> "$tmp/err"; rc=$?
t "sample: three boards, the v2 one with its reward_hack_count borne out" \
	'[ $rc -eq 0 ] && [ "$(grep -c "^leaderboard" "$tmp/smb")" -eq 3 ] &&
	 grep "^leaderboard_v2.json " "$tmp/smb" | grep -qF "6 problems  reward_hack_count 1 (annotations: 1)"'
"$kb" export --format json --full "$sm" > "$tmp/smx" 2> "$tmp/err"; rc=$?
t "sample: the gemini run's per-run detail in export --full" \
	'[ $rc -eq 0 ] && grep "$G" "$tmp/smx" | grep -qF "\"template_mutated\": false, \"gpu_lock_wait_s\": 5, \"shapes\": \"1x65536x32 "'

# the publisher's own eight boards, when the shared copy is there
kc="$KB_SRCDIR/../shared/kbcom-results"
if [ -f "$kc/leaderboard_v2.h100.json" ] && command -v python3 > /dev/null 2>&1; then
	mkdir "$tmp/kc" && cp "$kc"/leaderboard*.json "$kc"/problem_baselines*.json "$tmp/kc"/
	"$kb" runs --jsonl "$tmp/kc" > "$tmp/kout" 2> "$tmp/err"; rc=$?
	t "kernelbench.com: runs --jsonl exits 0" '[ $rc -eq 0 ] && [ ! -s "$tmp/err" ]'
	t "kernelbench.com: the 434 distinct runs of its eight boards" '[ "$(wc -l < "$tmp/kout")" -eq 434 ]'
	python3 - "$tmp/kc" "$tmp/kout" > "$tmp/kmiss" <<'PY'
import glob, json, os, sys
listed = {}
for line in open(sys.argv[2]):
    o = json.loads(line)
    listed[o["run_id"]] = o
for f in sorted(glob.glob(os.path.join(sys.argv[1], "leaderboard*.json"))):
    b = json.load(open(f))
    for m in b["models"]:
        for c in m["results"].values():
            if not c:
                continue
            o = listed.get(c["run_id"])
            if not o or os.path.basename(f) not in o["boards"]:
                print(f, c["run_id"], "not listed with its board")
            elif o["gpu"] != b["hardware"]["name"] and len({json.load(open(os.path.join(sys.argv[1], x)))["hardware"]["name"] for x in o["boards"]}) == 1:
                print(c["run_id"], "GPU", o["gpu"], "not", b["hardware"]["name"])
PY
	t "kernelbench.com: every run of every board listed with that board and its GPU" '[ ! -s "$tmp/kmiss" ]' || head -5 "$tmp/kmiss"
	t "kernelbench.com: the two runs an RTX PRO 6000 board and the B200 board both list are marked" \
		'[ "$(grep -c "\"gpu_disagrees\":true" "$tmp/kout")" -eq 2 ] &&
		 grep -F "20260719_030522_grok_grok-4.5_07_w4a16_gemm" "$tmp/kout" | grep -qF "\"gpu_disagrees\":true"'

else
	echo "# SKIP the kernelbench.com part: ../shared/kbcom-results (or python3) is not here"
fi

echo "1..$n"
exit $fail
