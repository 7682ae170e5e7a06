#!/bin/sh
# Every board on screen (issue 26): d in the browser steps through the
# boards, each with its GPU and roofline table in the header; the grid
# shows the selected board's deck; --board/--gpu start on one. The
# replay's header: the run's stats and deck (issue 26/31, round 2).
. "$KB_SRCDIR/tests/tmux.sh"
fx="$KB_SRCDIR/tests/fixtures/boards"
cp -R "$fx" "$tmp/ds"

start a "$kb" "$tmp/ds"
t "the browser opens on all nine runs, saying there are 8 boards" 'wait_for a "kbtui .* 9 runs" "8 boards \(d: one\)"'
t "a run the annotation and a board disagree on: its verdict marked" 'wait_for a "opus-x.*01_fp8_gemm.*clean(≠|!=)"'
keys a d
t "d: the first board, its GPU and corrected table named" \
	'wait_for a "board main  sort" "^ leaderboard\.json  RTX PRO 6000 Blackwell Workstation  roofline RTX_PRO_6000 \(rtxpro6000-2026-06-14\)" "showing 3 of 9"'
keys a d
t "d again: leaderboard_v1.json, the original table" 'wait_for a "^ leaderboard_v1\.json .*roofline RTX_PRO_6000_V1 \(rtxpro6000-2026-04\)" "showing 1 of 9"'
keys a d d d
t "the H100 board: its GPU and two runs" 'wait_for a "^ leaderboard\.h100\.json  NVIDIA H100 PCIe  roofline H100" "showing 2 of 9"'
keys a v
t "its grid has its 6-problem deck, no 04" \
	'wait_for a "07_w4a" && ! grep -q "09_fm" "$scr" && ! grep -q "10_pa" "$scr"'
t "the reference rows: that GPU's baselines" 'wait_for a "\| 03_paged_attention: eager 2 ms" "^ eager ms +2 +2 "'
keys a v d d d
t "a v2 board: its reward_hack_count against the annotations" 'wait_for a "^ leaderboard_v2\.json .*reward hacks 1 \(annotated 1\)"'
keys a d
t "after the last board, all of them again" 'wait_for a "8 boards \(d: one\)" "kbtui .* 9 runs" && ! grep -q "showing" "$scr"'
keys a q
t "q quits cleanly" 'wait_for a "kbtui exited: 0" && [ ! -s "$tmp/a.err" ]'

start g "$kb" --gpu b200 "$tmp/ds"
t "--gpu b200 starts on the B200 boards' runs" 'wait_for g "boards on GPU b200" "showing 2 of 9"'
keys g q

"$kb" --board nosuch "$tmp/ds" > /dev/null 2> "$tmp/bad.err" < /dev/null; rc=$?
t "--board with no such board: exit 1, the boards named" '[ $rc -eq 1 ] && grep -q "its boards: main (leaderboard.json" "$tmp/bad.err"'

# the replay's header: the sample gemini run's stats (its rundetail), and
# the deck its result.json records, where there is room
cp -R "$KB_SRCDIR/data/sample" "$tmp/sm"
gr="$tmp/sm/runs/20260602_090000_gemini_sample-model-h_05_topk_bitonic"
start r "$kb" "$gr/transcript.jsonl"
t "replay header at 160: the run's stats in brief, from its rundetail" \
	'wait_for r "^ kbtui replay .*  agent 195s check 12s bench 28s \\\$0\.41 lock 5s  .*gemini/sample-model-h .*correct 0\.0197"'
keys r q
t "q quits that replay cleanly" 'wait_for r "kbtui exited: 0" && [ ! -s "$tmp/r.err" ]'
sed '1s/{/{"deck": "kbcom-2026-08-h100",/' "$gr/result.json" > "$tmp/res" && cp "$tmp/res" "$gr/result.json"
tm new-session -d -s w -x 200 -y 30 "env -u NO_COLOR $kb '$gr/transcript.jsonl' 2> '$tmp/w.err'; echo \"kbtui exited: \$?\"; sleep 30" 2> /dev/null
t "at 200 columns: the deck result.json records beside the stats" \
	'wait_for w "^ kbtui replay .*  deck kbcom-2026-08-h100 \\| agent 195s check 12s bench 28s \\\$0\.41 lock 5s  "'
tm new-session -d -s e -x 80 -y 30 "env -u NO_COLOR $kb '$gr/transcript.jsonl' 2> '$tmp/e.err'; echo \"kbtui exited: \$?\"; sleep 30" 2> /dev/null
t "at 80 columns: neither, the model and outcome kept" \
	'wait_for e "^ kbtui replay .*gemini/sample-model-h +correct 0\.0197" && ! grep -q "deck kbcom\|agent 195" "$scr"'
keys w q
keys e q
t "both quit cleanly" 'wait_for w "kbtui exited: 0" && [ ! -s "$tmp/w.err" ] && wait_for e "kbtui exited: 0" && [ ! -s "$tmp/e.err" ]'

# the shapes pane (v): the publisher's per-run detail, else the run's own
# result.json as kbtui eval writes it, each naming its file and table
to_shapes() { # to_shapes SESSION: v until the shapes pane is beside the list
	ti=0
	while [ $ti -lt 12 ]; do
		keys "$1" v
		tj=0
		while [ $tj -lt 10 ]; do   # a second for the pane to come, then the next v
			sleep 0.1
			cap "$1"
			grep -qE "│ shapes +[0-9]+ shapes" "$scr" && return 0
			tj=$((tj+1))
		done
		ti=$((ti+1))
	done
	return 1
}
start p "$kb" "$gr/transcript.jsonl"
t "shapes pane: the sample run's rundetail, named, with its roofline and bars" \
	'wait_for p "kbtui replay" && to_shapes p &&
	 wait_for p "│ from $(basename "$gr")\.json \(the publisher.s per-run" "│ detail\), table as the file.s peaks" \
	 "│ roofline: h100  fp32 memory  peak 51\.2 TFLOPS, 2039 GB/s" "4 shapes \(publisher\)" "│  ████▁+"'
keys p q
t "q quits it cleanly, nothing on stderr" 'wait_for p "kbtui exited: 0" && [ ! -s "$tmp/p.err" ]'
rm "$tmp/sm/rundetail/$(basename "$gr").json"
cat > "$gr/result.json" <<'EOF'
{"problem": "05_topk_bitonic", "harness": "kbtui-eval", "correct": true, "peak_fraction": 0.5,
 "deck": "kbcom-2026-08-h100", "table": "h100-pcie-2026-08", "hardware": "H100", "regime": "memory",
 "dtype": "fp32", "peak_tflops": 51.2, "peak_bw_gb_s": 2039,
 "shapes": [{"shape": 0, "desc": "batch=1 n=65536 k=32", "ms": 0.01, "tflops": 0.5, "gbps": 1019.5,
             "peak_fraction": 0.5, "frac": 0.5, "compute_util": 0.0098, "mem_util": 0.5, "bound": "memory"}]}
EOF
start o "$kb" "$gr/transcript.jsonl"
t "no rundetail: the run's own result.json, its table named, a shape with its bar" \
	'wait_for o "kbtui replay" && to_shapes o &&
	 wait_for o "│ from result\.json \(kbtui.s own eval\), table h100-pcie-2026-08" "1 shapes \(kbtui eval\)" \
	 "│ batch=1 n=65536 k=32  0\.01 ms  0\.5 TFLOPS  1020 GB/s  50\.0% memory-bound" "│  █{20,}▁{20,}"'
keys o q
t "q quits that one cleanly too" 'wait_for o "kbtui exited: 0" && [ ! -s "$tmp/o.err" ]'

echo "1..$n"
exit $fail
