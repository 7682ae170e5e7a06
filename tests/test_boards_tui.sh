#!/bin/sh
# Every board on screen (issue 26): d in the browser steps through the
# boards, each with its GPU and roofline table in the header; the grid
# shows the selected board's deck; --board/--gpu start on one.
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

echo "1..$n"
exit $fail
