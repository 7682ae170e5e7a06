#!/bin/sh
# The run list at 80, 100, 120 and 160 columns with real model names
# (issue 30): the order in which its columns give way (ui/browse.c,
# kbtui(1) BROWSER AND REPLAY): the model's name shortened where it says
# least (opencode/…/qwen3.6-plus) before RUN_ID, then FLAGS, go; PEAK and
# VERDICT go only after the name is down to 18 columns; MODEL, PROBLEM,
# OK and FORMAT always stay. tests/fixtures/kbh (real runs) on any clone;
# the shared dataset's 170 runs too when ../shared/kbh is there.
. "$KB_SRCDIR/tests/tmux.sh"
start_at() {
	name=$1 w=$2 h=$3; shift 3
	tm new-session -d -s "$name" -x "$w" -y "$h" \
		"env -u NO_COLOR $* 2> '$tmp/$name.err'; echo \"kbtui exited: \$?\"; sleep 30" 2> /dev/null
}
# row MODEL PROBLEM: a row of the list whose model cell and problem are these
row() { printf '^ %s +%s ' "$1" "$2"; }

layouts() { # layouts TAG DATASET FLAGS100: FLAGS100 "FLAGS +" when FLAGS still fits at 100
	tag=$1 ds=$2 f100=$3
	start_at "${tag}160" 160 30 "$kb" "$ds"
	t "$tag 160: every column, RUN_ID last" 'wait_for "${tag}160" "^ MODEL +PROBLEM +OK +PEAK +VERDICT +FLAGS +FORMAT +RUN_ID *$"'
	t "$tag 160: model names whole, the run id with at least 24 columns" \
		'has "$(row "opencode/openrouter-pinned/qwen/qwen3\.6-plus" 01_fp8_gemm)" && has "  2026[0-9]{4}_[0-9_a-z…-]{15,}"'
	start_at "${tag}120" 120 30 "$kb" "$ds"
	t "$tag 120: RUN_ID gives way first, FLAGS stays" 'wait_for "${tag}120" "^ MODEL +PROBLEM +OK +PEAK +VERDICT +FLAGS +FORMAT *$"'
	t "$tag 120: no run id cut to a stub" '! has "2026…"'
	start_at "${tag}100" 100 30 "$kb" "$ds"
	t "$tag 100: then FLAGS, when the name would get fewer than 34 columns" 'wait_for "${tag}100" "^ MODEL +PROBLEM +OK +PEAK +VERDICT +${f100}FORMAT *$"'
	t "$tag 100: the model shortened in the middle of its path, harness and size kept" \
		'has "$(row "opencode/…/qwen3\.6-plus" 01_fp8_gemm)" && has "$(row "opencode/…/qwen3\.6-27b" 01_fp8_gemm)"'
	start_at "${tag}80" 80 30 "$kb" "$ds"
	t "$tag 80: PROBLEM, PEAK and VERDICT stay" 'wait_for "${tag}80" "^ MODEL +PROBLEM +OK +PEAK +VERDICT +FORMAT *$"'
	t "$tag 80: each row keeps its problem; the name keeps its harness and its end" \
		'has "^ opencode/…[a-z0-9.-]*qwen3\.6-plus +01_fp8_gemm " && has "^ codex/gpt-5\.5 \[xhigh\] +01_fp8_gemm "'
	for w in 160 120 100 80; do keys "$tag$w" q; done
	for w in 160 120 100 80; do
		t "$tag $w: q quits, nothing on stderr" 'wait_for "$tag$w" "kbtui exited: 0" && [ ! -s "$tmp/$tag$w.err" ]'
	done
}
# the fixture's problems are shorter: FLAGS still fits beside a 34-column name at 100
layouts fx "$KB_SRCDIR/tests/fixtures/kbh" "FLAGS +"
if [ -d "$KB_SRCDIR/../shared/kbh/runs" ]; then
	layouts sh "$KB_SRCDIR/../shared/kbh" ""
else
	echo "# SKIP ../shared/kbh is not here: the fixture's layouts only"
fi
echo "1..$n"
exit $fail
