#!/bin/bash
# tests/gpu/run.sh: the eval backend on a real GPU, proved, in a few minutes.
# Per problem:
#   - baseline.cu PASSes with the expected number of cases (shapes x (3
#     seeds + 1 adversarial)) and every 0 < peak_fraction <= 1;
#   - an off-by-one output (the last element unwritten) and an all-zero
#     output (tests/gpu/mutant.cuh) FAIL;
#   - an independent timer (tests/gpu/timer.cu: a plain event pair on a
#     blocking stream, no checker/runner) agrees with kbtui's ms per shape
#     within 5% + 2 us;
# then the GPU rows of tests/hacks/MANIFEST end as it says, and the old
# probes: tests/gpu/wrong_04.cu FAIL, hang.cu a timeout, crash.cu a crash,
# and the 04 baseline passes again after them; then the decks: the 01
# baseline as kbh-2026-04, and an all-zero 03 passing the deck's check
# alone (--no-own-checks, the published verdict). One verdict table at the
# end; exit 0 only when every expectation held.
# Runs that judge only correctness go in parallel first; everything timed
# runs alone afterwards. Arguments, if any, name the problems (default all).
# Output goes to stdout and, when $OUT is set, to $OUT/gpu-report.txt.
# Uses $KB_BUILDDIR/kbtui when it has `eval`, else builds what it needs in
# ${KB_BUILDDIR:-/tmp/kbtui-gpu-build}.
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
if [ -n "${OUT:-}" ]; then
	mkdir -p "$OUT"
	exec > >(tee "$OUT/gpu-report.txt") 2>&1
fi
t_start=$(date +%s)
work=$(mktemp -d /tmp/kbtui-gpu-XXXXXX)
pdir="$src/problems"; hdir="$src/tests/hacks"; gdir="$src/tests/gpu"
pass=0; failed=0; table=""
expect() {  # expect CHECK DESCRIPTION CONDITION
	local v
	if eval "$3"; then pass=$((pass + 1)); v=ok; else failed=$((failed + 1)); v=FAILED; fi
	echo "$v - $1: $2"
	table="$table$(printf '%-22s %-54s %s' "$1" "$2" "$v")
"
}
say() { echo "== $*"; }

# ---- the machine --------------------------------------------------------
if ! command -v nvidia-smi > /dev/null 2>&1 || ! nvidia-smi -L > /dev/null 2>&1; then
	echo "tests/gpu/run.sh: no GPU here (nvidia-smi finds none); nothing to do"
	exit 2
fi
say "GPU"
nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv,noheader
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d ' .')
case "$cc" in 90|100|103|120|121) arch="sm_${cc}a" ;; *) arch="sm_$cc" ;; esac
nvcc="${KBTUI_NVCC:-}"
[ -z "$nvcc" ] && [ -n "${CUDA_HOME:-}" ] && nvcc="$CUDA_HOME/bin/nvcc"
{ [ -z "$nvcc" ] || [ ! -x "$nvcc" ]; } && nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
"$nvcc" --version | tail -1
echo "arch $arch, work in $work"
jobs=$(( $(nproc) / 2 )); [ "$jobs" -lt 2 ] && jobs=2

# ---- kbtui eval, or a stand-in built from the core library -----------------
build="${KB_BUILDDIR:-/tmp/kbtui-gpu-build}"
EVAL=""
has_eval() { "$1" eval --list-hardware --problems "$pdir" 2> /dev/null | grep -q '^KEY'; }
if [ -x "$build/kbtui" ] && has_eval "$build/kbtui"; then
	EVAL="$build/kbtui eval"
else
	say "building in $build"
	mkdir -p "$build"
	( cd "$src" && { [ -x configure ] || autoreconf -fi > /dev/null 2>&1; } )
	( cd "$build" && { [ -f Makefile ] || "$src/configure" -q --with-cuda="$(dirname "$(dirname "$nvcc")")"; } &&
	  make -j"$(nproc)" src/libkbcore.a > make.log 2>&1 && { make -j"$(nproc)" kbtui >> make.log 2>&1 || true; } ) ||
		{ echo "build failed:"; tail -20 "$build/make.log" 2>/dev/null; }
	if [ -x "$build/kbtui" ] && has_eval "$build/kbtui"; then
		EVAL="$build/kbtui eval"
	elif [ -f "$build/src/libkbcore.a" ]; then
		cc -I"$src/src" -I"$build" "$gdir/eval_main.c" "$build/src/libkbcore.a" \
			$(pkg-config --libs libcjson libpcre2-8 yaml-0.1) -lm -o "$build/kbeval-main" && EVAL="$build/kbeval-main eval"
	fi
fi
if [ -z "$EVAL" ]; then
	echo "cannot build kbtui eval here (see $build/make.log); stopping"
	exit 1
fi
echo "eval command: $EVAL"
export KBTUI_NVCC="$nvcc"

problems=""
for d in "$pdir"/[0-9]*/; do
	n=$(basename "$d")
	if [ $# -gt 0 ]; then case " $* " in *" $n "*|*" ${n%%_*} "*) ;; *) continue ;; esac; fi
	[ -f "$d/problem.json" ] && [ -f "$d/baseline.cu" ] && problems="$problems $n"
done
echo "problems:$problems"
has() { case " $problems " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
pname() { (cd "$pdir" && ls -d "$1"_* 2>/dev/null | head -1); }

# ---- every harness object once, in parallel --------------------------------
# (kbtui eval keeps them in WORKDIR/obj-ARCH and rebuilds only what is stale:
# each run below then compiles its solution alone)
say "compiling checker, runner, drivers, references and calls"
flags=(-std=c++17 -O3 -lineinfo "-gencode=arch=compute_${arch#sm_},code=$arch" -I"$pdir/include")
mkdir -p "$work/tmp" "$work/obj"
pids=()   # a plain `wait` would also wait for the tee of $OUT
for u in checker runner; do
	TMPDIR="$work/tmp" "$nvcc" "${flags[@]}" -c "$pdir/harness/$u.cu" -o "$work/obj/$u.o" > "$work/obj/$u.log" 2>&1 &
	pids+=($!)
done
for p in $problems; do
	mkdir -p "$work/obj/$p"
	for u in driver reference call; do
		TMPDIR="$work/tmp" "$nvcc" "${flags[@]}" -I"$pdir/$p" -c "$pdir/$p/$u.cu" -o "$work/obj/$p/$u.o" \
			> "$work/obj/$p/$u.log" 2>&1 &
		pids+=($!)
	done
done
wait "${pids[@]}"
echo "($(( $(date +%s) - t_start )) s so far)"

# run_eval NAME PROBLEM SOLUTION TIMEOUT [EXTRA...]: result in $work/NAME
run_eval() {
	local name=$1 p=$2 sol=$3 to=$4; shift 4
	local o="$work/$name/obj-$arch"
	mkdir -p "$o"
	cp "$work/obj/checker.o" "$work/obj/runner.o" "$work/obj/$p"/*.o "$o/" 2>/dev/null
	$EVAL --problem "$p" --problems "$pdir" --arch "$arch" --workdir "$work/$name" --timeout "$to" "$@" "$sol" \
		> "$work/$name.out" 2>&1
	echo $? > "$work/$name.rc"
}
rc_of() { cat "$work/$1.rc" 2>/dev/null || echo 99; }
json() {  # json NAME KEY: a top-level scalar of NAME's result.json
	sed -n "s/^\t\"$2\":\t\(.*\),\{0,1\}$/\1/p" "$work/$1/result.json" 2>/dev/null | head -1 | sed 's/,$//; s/^"//; s/"$//'
}
shape_vals() {  # shape_vals NAME KEY: the shapes' KEY, one a line
	sed -n "s/^\t\t\t\"$2\":\t\([^,]*\),\{0,1\}$/\1/p" "$work/$1/result.json" 2>/dev/null
}
mutant() {  # mutant FILE PROBLEM_NUMBER KIND
	printf '#define MUT_PROBLEM %d\n#define MUT_KIND %d\n#include "%s/mutant.cuh"\n' "$2" "$3" "$gdir" > "$1"
}
throttle() { while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do sleep 0.5; done; }

# ---- phase 1: correctness only, in parallel ----------------------------------
say "phase 1: runs judged on correctness alone (in parallel)"
for p in $problems; do
	num=$((10#${p%%_*}))
	for k in 1 2; do
		mutant "$work/mut$k-$p.cu" "$num" "$k"
		throttle; run_eval "mut$k-$p" "$p" "$work/mut$k-$p.cu" 240 &
	done
	# the independent timer's binary (run alone in phase 2)
	throttle
	TMPDIR="$work/tmp" "$nvcc" "${flags[@]}" -I"$pdir/$p" -o "$work/kbtimer-$p" "$gdir/timer.cu" \
		"$work/obj/$p/driver.o" "$work/obj/$p/reference.o" "$work/obj/$p/call.o" "$pdir/$p/baseline.cu" \
		> "$work/kbtimer-$p.log" 2>&1 &
done
gpu_rows=$(grep -v '^#' "$hdir/MANIFEST" | awk '$4 == "gpu" { print $1, $2, $3 }')
while read -r file prob outcome; do
	[ -z "$file" ] && continue
	p=$(pname "$prob"); has "$p" || continue
	case $outcome in FAIL) throttle; run_eval "hack-${file%.cu}" "$p" "$hdir/$file" 240 --trials 5 & ;; esac
done <<< "$gpu_rows"
if has 04_kahan_softmax; then
	throttle; run_eval wrong_04 04_kahan_softmax "$gdir/wrong_04.cu" 120 &
	throttle; run_eval hang 04_kahan_softmax "$gdir/hang.cu" 30 &
	throttle; run_eval crash 04_kahan_softmax "$gdir/crash.cu" 60 &
fi
wait $(jobs -rp) 2>/dev/null
echo "($(( $(date +%s) - t_start )) s so far)"

# ---- phase 2: timed, one at a time -------------------------------------------
say "phase 2: timed runs, one at a time"
for p in $problems; do
	run_eval "base-$p" "$p" "$pdir/$p/baseline.cu" 300
	trials=$(sed -n 's/.*"num_perf_trials": *\([0-9]*\).*/\1/p' "$pdir/$p/problem.json")
	[ -x "$work/kbtimer-$p" ] && "$work/kbtimer-$p" "${trials:-30}" $((256 << 20)) > "$work/indep-$p.txt" 2>&1
done
while read -r file prob outcome; do
	[ -z "$file" ] && continue
	p=$(pname "$prob"); has "$p" || continue
	case $outcome in FAIL) ;; *) run_eval "hack-${file%.cu}" "$p" "$hdir/$file" 240 ;; esac
done <<< "$gpu_rows"
has 04_kahan_softmax && run_eval again 04_kahan_softmax "$pdir/04_kahan_softmax/baseline.cu" 120
# decks: the first one's 01 (its 0.01 on the current inputs) and the
# published verdict of a near-zero 03 (the deck's check alone passes it)
has 01_fp8_gemm && run_eval deck-kbh-01 01_fp8_gemm "$pdir/01_fp8_gemm/baseline.cu" 300 --deck kbh-2026-04 --trials 5
has 03_paged_attention && [ -f "$work/mut2-03_paged_attention.cu" ] &&
	run_eval deck-zero-03 03_paged_attention "$work/mut2-03_paged_attention.cu" 240 --no-own-checks --trials 5
echo "($(( $(date +%s) - t_start )) s so far)"

# ---- the verdicts ------------------------------------------------------------
say "verdicts"
for p in $problems; do
	b="base-$p"; nsh=$(shape_vals "$b" ms | wc -l)
	ncase=$(grep -c '^case shape=' "$work/$b/check.log" 2>/dev/null)
	expect "$p" "baseline PASS (exit 0, correct)" '[ "$(rc_of "$b")" = 0 ] && [ "$(json "$b" correct)" = true ]'
	expect "$p" "baseline: $ncase cases = $nsh shapes x (3 seeds + 1 adversarial)" \
		'[ "$nsh" -gt 0 ] && [ "$ncase" -eq $((nsh * 4)) ]'
	pfs=$(shape_vals "$b" peak_fraction | tr '\n' ' ')
	expect "$p" "baseline: every 0 < peak_fraction <= 1 ($pfs)" \
		'[ -n "$pfs" ] && echo "$pfs" | awk "{ for (i = 1; i <= NF; i++) if (!(\$i > 0 && \$i <= 1)) exit 1 }"'
	for k in 1 2; do
		what=$([ $k = 1 ] && echo "off-by-one output (last element)" || echo "all-zero output")
		expect "$p" "$what: FAIL" '[ "$(rc_of "mut$k-$p")" = 1 ] && [ "$(json "mut$k-$p" correct)" = false ] &&
			grep -q "^FAIL: shape=" "$work/mut$k-$p/check.log"'
	done
	ours=$(shape_vals "$b" ms | tr '\n' ' ')
	theirs=$(sed -n 's/^indep shape=[0-9]* ev_ms=\([0-9.]*\) .*/\1/p' "$work/indep-$p.txt" 2>/dev/null | tr '\n' ' ')
	expect "$p" "independent timer within 5% + 2 us (ours: $ours; theirs: $theirs)" \
		'[ -n "$theirs" ] && [ "$(echo "$ours" | wc -w)" = "$(echo "$theirs" | wc -w)" ] &&
		 paste <(echo "$ours" | tr " " "\n" | sed "/^$/d") <(echo "$theirs" | tr " " "\n" | sed "/^$/d") |
		 awk "{ d = \$1 - \$2; if (d < 0) d = -d; if (d > 0.05 * \$2 + 0.002) exit 1 }"'
done
while read -r file prob outcome; do
	[ -z "$file" ] && continue
	p=$(pname "$prob"); has "$p" || continue
	h="hack-${file%.cu}"
	case $outcome in
	FAIL) expect "$file" "FAIL (not correct, no score)" '[ "$(rc_of "$h")" != 0 ] && [ "$(json "$h" correct)" = false ]' ;;
	INVALID) expect "$file" "INVALID (never a score)" \
		'[ "$(rc_of "$h")" != 0 ] && [ "$(json "$h" invalid)" = true ] && [ "$(json "$h" result)" = INVALID ]' ;;
	PASS) expect "$file" "PASS, its time agreeing with the host clock" \
		'[ "$(rc_of "$h")" = 0 ] && [ "$(json "$h" correct)" = true ] && [ "$(json "$h" invalid)" = false ]' ;;
	NOTCATCHABLE)
		echo "note - $file: not catchable by design; it ended: correct=$(json "$h" correct) result=$(json "$h" result) peak_fraction=$(json "$h" peak_fraction)"
		table="$table$(printf '%-22s %-54s %s' "$file" "not catchable, by design (reported)" "$(json "$h" result)")
" ;;
	esac
	grep -m1 -E "^(FAIL|INVALID|REFUSED)" "$work/$h/check.log" "$work/$h/benchmark.log" 2>/dev/null | cut -c1-200 | sed 's/^/   /'
done <<< "$gpu_rows"
if has 04_kahan_softmax; then
	expect wrong_04 "FAIL (exit 1), a wrong answer, not a crash" '[ "$(rc_of wrong_04)" = 1 ] &&
		grep -q "^FAIL: shape=" "$work/wrong_04/check.log" && [ "$(json wrong_04 crashed)" = false ]'
	expect hang "killed at its limit, reported as a timeout" '[ "$(rc_of hang)" = 1 ] && [ "$(json hang timed_out)" = true ] &&
		! pgrep -f "$work/hang/kb(check|run)" > /dev/null'
	expect crash "reported as a crash" '[ "$(rc_of crash)" = 1 ] && [ "$(json crash crashed)" = true ]'
	expect again "after those, the 04 baseline passes again" '[ "$(rc_of again)" = 0 ]'
fi

if has 01_fp8_gemm; then
	expect deck-kbh-01 "01 baseline PASSes kbh-2026-04 (0.01), deck recorded" \
		'[ "$(rc_of deck-kbh-01)" = 0 ] && [ "$(json deck-kbh-01 deck)" = kbh-2026-04 ]'
	expect base-01_fp8_gemm "01 baseline ran as the GPU's current deck ($(json base-01_fp8_gemm deck))" \
		'case "$(json base-01_fp8_gemm deck)" in kbcom-*) true ;; *) false ;; esac'
fi
if has 03_paged_attention; then
	expect deck-zero-03 "all-zero 03 passes the deck's check alone (--no-own-checks), fails ours" \
		'[ "$(json deck-zero-03 correct)" = true ] && [ "$(json deck-zero-03 adversarial_correct)" = false ]'
fi

say "baselines on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) ($arch)"
printf '%-22s %5s %12s %12s %10s %10s %10s\n' problem shape ms host_ms TFLOPS GB/s peak_frac
for p in $problems; do
	b="base-$p"
	paste <(shape_vals "$b" ms) <(shape_vals "$b" host_ms) <(shape_vals "$b" tflops) <(shape_vals "$b" gbps) \
		<(shape_vals "$b" peak_fraction) | awk -v p="$p" '{ printf "%-22s %5d %12s %12s %10s %10s %10s\n", p, NR - 1, $1, $2, $3, $4, $5 }'
	printf '%-22s %5s %12s %12s %10s %10s %10s\n' "$p" gmean "" "" "" "" "$(json "$b" peak_fraction)"
done

say "verdict table"
printf '%s' "$table"
echo
echo "$pass expectations met, $failed not ($(( $(date +%s) - t_start )) s)"
if [ -n "${OUT:-}" ]; then
	mkdir -p "$OUT/runs"
	for d in "$work"/*/; do
		n=$(basename "$d"); [ -f "$d/result.json" ] || continue
		mkdir -p "$OUT/runs/$n"
		cp "$d"/result.json "$d"/*.log "$OUT/runs/$n/" 2>/dev/null
	done
fi
rm -rf "$work"
[ "$failed" -eq 0 ]
