#!/bin/bash
# tests/gpu/run.sh: the eval backend on a real GPU, in under 5 minutes.
#   - every problem's baseline.cu: PASS expected, then benchmarked;
#   - tests/gpu/wrong_04.cu: FAIL expected (caught by the adversarial input);
#   - tests/gpu/hang.cu: killed at its time limit, reported as a timeout;
#   - tests/gpu/crash.cu: an illegal address, reported as a crash;
#   - the 04 baseline once more: the next run after those works;
# then a table of ms, TFLOPS, GB/s and peak_fraction per shape.
# Arguments, if any, name the problems to run (default: all).
# Output goes to stdout and, when $OUT is set, to $OUT/gpu-report.txt.
# Uses $KB_BUILDDIR/kbtui when it has `eval`, else builds what it needs in
# ${KB_BUILDDIR:-/tmp/kbtui-gpu-build}. Exit 0 when every expectation held.
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
if [ -n "${OUT:-}" ]; then
	mkdir -p "$OUT"
	exec > >(tee "$OUT/gpu-report.txt") 2>&1
fi
t_start=$(date +%s)
work=$(mktemp -d /tmp/kbtui-gpu-XXXXXX)
pdir="$src/problems"
pass=0; failed=0; notes=""
expect() {  # expect DESCRIPTION CONDITION
	if eval "$2"; then pass=$((pass + 1)); echo "ok - $1"
	else failed=$((failed + 1)); echo "not ok - $1"; notes="$notes\n  $1"; fi
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
[ -z "$nvcc" ] || [ ! -x "$nvcc" ] && nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
"$nvcc" --version | tail -1
echo "arch $arch, work in $work"

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
		# kbtui without `eval` wired yet: the same cmd_eval in a program of its own
		cc -I"$src/src" -I"$build" "$src/tests/gpu/eval_main.c" "$build/src/libkbcore.a" \
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

# ---- objects in parallel: then each eval compiles only its solution --------
# (kbtui eval keeps harness/driver/reference objects in WORKDIR/obj-ARCH and
# rebuilds them only when a source is newer; see src/eval.c)
say "compiling harness, drivers and references in parallel"
flags=(-std=c++17 -O3 -lineinfo "-gencode=arch=compute_${arch#sm_},code=$arch" -I"$pdir/include")
mkdir -p "$work/tmp"
pids=()   # a plain `wait` would also wait for the tee of $OUT
for p in $problems; do
	o="$work/$p/obj-$arch"; mkdir -p "$o"
	for u in driver reference; do
		TMPDIR="$work/tmp" "$nvcc" "${flags[@]}" -I"$pdir/$p" -c "$pdir/$p/$u.cu" -o "$o/$u.o" > "$o/$u.log" 2>&1 &
		pids+=($!)
	done
done
TMPDIR="$work/tmp" "$nvcc" "${flags[@]}" -c "$pdir/harness/harness.cu" -o "$work/harness.o" > "$work/harness.log" 2>&1
wait "${pids[@]}"
for p in $problems; do cp "$work/harness.o" "$work/$p/obj-$arch/harness.o" 2>/dev/null; done
for p in 04_kahan_softmax; do
	for v in wrong hang crash again; do
		[ -d "$work/$p/obj-$arch" ] && mkdir -p "$work/$p-$v" && cp -r "$work/$p/obj-$arch" "$work/$p-$v/"
	done
done
echo "($(( $(date +%s) - t_start )) s so far)"

# run_eval NAME PROBLEM SOLUTION TIMEOUT: result in $work/NAME
run_eval() {
	local name=$1 p=$2 sol=$3 to=$4
	say "$name: $(basename "$sol") on $p (limit ${to}s per step)"
	local t0=$(date +%s)
	$EVAL --problem "$p" --problems "$pdir" --arch "$arch" --workdir "$work/$name" --timeout "$to" "$sol" > "$work/$name.out" 2>&1
	local rc=$?
	grep -E '^(PASS|FAIL|ERROR|no CUDA|kbtui eval: )|error' "$work/$name.out" | grep -v '^kbtui eval: compiling' | tail -6
	echo "   exit $rc, $(( $(date +%s) - t0 )) s"
	return $rc
}
json() {  # json FILE KEY: a top-level scalar of result.json
	sed -n "s/^\t\"$2\":\t\(.*\),\{0,1\}$/\1/p" "$1" | head -1 | sed 's/,$//; s/^"//; s/"$//'
}

# ---- baselines -------------------------------------------------------------
for p in $problems; do
	run_eval "$p" "$p" "$pdir/$p/baseline.cu" 240
	rc=$?
	expect "$p baseline: PASS (exit 0)" '[ $rc -eq 0 ] && grep -q "^PASS$" "$work/$p/check.log"'
	expect "$p baseline: benchmarked, peak_fraction in benchmark.log" 'grep -q "^peak_fraction: " "$work/$p/benchmark.log" 2>/dev/null'
done

# ---- solutions that must not pass -----------------------------------------
p=04_kahan_softmax
if [ -d "$pdir/$p" ] && case " $problems " in *" $p "*) true ;; *) false ;; esac; then
	run_eval "$p-wrong" "$p" "$src/tests/gpu/wrong_04.cu" 120; rc=$?
	expect "wrong_04: FAIL (exit 1)" '[ $rc -eq 1 ] && grep -q "^FAIL: shape=" "$work/$p-wrong/check.log"'
	expect "wrong_04: a wrong answer, not a crash" '[ "$(json "$work/$p-wrong/result.json" crashed)" = false ]'
	grep -m1 "^FAIL" "$work/$p-wrong/check.log" | cut -c1-200

	t0=$(date +%s)
	run_eval "$p-hang" "$p" "$src/tests/gpu/hang.cu" 30; rc=$?
	dt=$(( $(date +%s) - t0 ))
	expect "hang: killed and reported as a timeout" '[ $rc -eq 1 ] && [ "$(json "$work/$p-hang/result.json" timed_out)" = true ]'
	expect "hang: check.log ends with the timeout FAIL" 'tail -1 "$work/$p-hang/check.log" | grep -q "^FAIL: check timed out after 30 s"'
	expect "hang: no harness process left" '! pgrep -f "$work/$p-hang/kbeval" > /dev/null'

	run_eval "$p-crash" "$p" "$src/tests/gpu/crash.cu" 60; rc=$?
	expect "crash: reported as a crash" '[ $rc -eq 1 ] && [ "$(json "$work/$p-crash/result.json" crashed)" = true ]'
	json "$work/$p-crash/result.json" failure | cut -c1-200

	run_eval "$p-again" "$p" "$pdir/$p/baseline.cu" 120; rc=$?
	expect "after those, the baseline passes again" '[ $rc -eq 0 ]'
fi

# ---- the table ---------------------------------------------------------------
say "baselines on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) ($arch)"
printf '%-22s %5s %12s %10s %10s %10s\n' problem shape ms TFLOPS GB/s peak_frac
for p in $problems; do
	b="$work/$p/benchmark.log"
	[ -f "$b" ] || { printf '%-22s %s\n' "$p" "(no benchmark: $(json "$work/$p/result.json" failure | cut -c1-80))"; continue; }
	awk -v p="$p" '
		/^shape=[0-9]+ variant=solution / {
			split($1, s, "="); sh = s[2]
			for (i = 2; i <= NF; i++) { split($i, kv, "="); v[sh, kv[1]] = kv[2] }
			n[sh] = 1
		}
		/^shape=[0-9]+ solution_peak_fraction=/ { split($1, s, "="); split($2, kv, "="); v[s[2], "pf"] = kv[2] }
		/^peak_fraction: / { g = $2 }
		END {
			for (sh = 0; sh in n; sh++)
				printf "%-22s %5d %12s %10s %10s %10s\n", p, sh, v[sh, "ms"], v[sh, "tflops"], v[sh, "gbps"], \
				       ((sh, "pf") in v) ? v[sh, "pf"] : "-"
			printf "%-22s %5s %12s %10s %10s %10s\n", p, "gmean", "", "", "", g != "" ? g : "-"
		}' "$b"
done

echo
echo "$pass expectations met, $failed not ($(( $(date +%s) - t_start )) s)"
[ "$failed" -gt 0 ] && printf "failed:$notes\n"
if [ -n "${OUT:-}" ]; then
	# the logs of every run, for a look afterwards
	mkdir -p "$OUT/runs"
	for d in "$work"/*/; do
		n=$(basename "$d"); [ -f "$d/result.json" ] || continue
		mkdir -p "$OUT/runs/$n"
		cp "$d"/result.json "$d"/*.log "$OUT/runs/$n/" 2>/dev/null
	done
fi
rm -rf "$work"
[ "$failed" -eq 0 ]
