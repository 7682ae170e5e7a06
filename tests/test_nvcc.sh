#!/bin/sh
# Every problem's checker (checker + driver + reference) and runner (runner
# + call + baseline) build with the real nvcc for the H100/H200 (sm_90a,
# what `kbtui eval` uses there) and the RTX PRO 6000 (sm_120a), each binary
# holding both; the checker holds no solution code and the runner none of
# the checker's (tolerance, reference, driver); the checker lists the
# problem's shapes without a GPU and, run with `info`, names the device or
# says clearly that there is none. Problems build in parallel.
src=$(cd "${KB_SRCDIR:-.}" && pwd); pdir="$src/problems"
n=0; fail=0
t() { n=$((n+1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fail=1; fi; }

nvcc="${KBTUI_NVCC:-}"
if [ -z "$nvcc" ] && [ -n "$KB_BUILDDIR" ] && [ -f "$KB_BUILDDIR/config.h" ]; then
	nvcc=$(sed -n 's/^#define KB_NVCC "\(.*\)"$/\1/p' "$KB_BUILDDIR/config.h")
fi
[ -z "$nvcc" ] && [ -n "$CUDA_HOME" ] && [ -x "$CUDA_HOME/bin/nvcc" ] && nvcc="$CUDA_HOME/bin/nvcc"
[ -z "$nvcc" ] && nvcc=$(command -v nvcc 2>/dev/null)
if [ -z "$nvcc" ] || [ ! -x "$nvcc" ]; then
	echo "# SKIP nvcc not found"
	echo "1..0 # SKIP nvcc not found"
	exit 0
fi

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
probs=""
for d in "$pdir"/[0-9]*/; do
	[ -f "$d/problem.json" ] && probs="$probs $(basename "$d")"
done
if [ -z "$probs" ]; then
	echo "# SKIP no problems/*/problem.json"
	echo "1..0 # SKIP no problems"
	exit 0
fi

# the number of shapes problem.json lists, when a JSON reader is at hand
nshapes() {
	if command -v python3 > /dev/null 2>&1; then
		python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["shapes"]))' "$1" 2>/dev/null
	elif command -v jq > /dev/null 2>&1; then
		jq '.shapes | length' "$1" 2>/dev/null
	fi
}

archs="-gencode=arch=compute_90a,code=sm_90a -gencode=arch=compute_120a,code=sm_120a"
# the checker's and the runner's mains once, shared by every problem
mkdir -p "$tmp/tmp"
for u in checker runner; do
	TMPDIR="$tmp/tmp" "$nvcc" -std=c++17 -O3 -lineinfo $archs -I"$pdir/include" -c "$pdir/harness/$u.cu" \
		-o "$tmp/$u.o" > "$tmp/$u.log" 2>&1
	t "$u.cu builds for sm_90a and sm_120a" '[ -f "$tmp/$u.o" ]'
	t "$u.cu builds without warnings" '! grep -q warning "$tmp/$u.log"'
	sed 's/^/#   /' "$tmp/$u.log" | head -5
done

build() {
	p=$1
	mkdir -p "$tmp/$p/tmp"
	TMPDIR="$tmp/$p/tmp" "$nvcc" -std=c++17 -O3 -lineinfo $archs -I"$pdir/include" -I"$pdir/$p" \
		-o "$tmp/$p/kbcheck" "$tmp/checker.o" \
		"$pdir/$p/driver.cu" "$pdir/$p/reference.cu" > "$tmp/$p/log" 2>&1 &&
	TMPDIR="$tmp/$p/tmp" "$nvcc" -std=c++17 -O3 -lineinfo $archs -I"$pdir/$p" \
		-o "$tmp/$p/kbrun" "$tmp/runner.o" "$pdir/$p/call.cu" "$pdir/$p/baseline.cu" >> "$tmp/$p/log" 2>&1
	echo $? > "$tmp/$p/rc"
	# tests/gpu/run.sh's mutant of this problem (the off-by-one kind)
	num=$(echo "$p" | sed 's/^0*\([0-9]*\)_.*/\1/')
	printf '#define MUT_PROBLEM %d\n#define MUT_KIND 1\n#include "%s/tests/gpu/mutant.cuh"\n' "$num" "$src" \
		> "$tmp/$p/mutant.cu"
	TMPDIR="$tmp/$p/tmp" "$nvcc" -std=c++17 -O3 $archs -I"$pdir/$p" -c "$tmp/$p/mutant.cu" -o "$tmp/$p/mutant.o" \
		> "$tmp/$p/mutant.log" 2>&1
	echo $? > "$tmp/$p/mutant.rc"
}

jobs=$(nproc 2>/dev/null || echo 2)
running=0
for p in $probs; do
	build "$p" &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then wait; running=0; fi
done
wait

# the GPU suite's other pieces: the independent timer (with 04) and every
# solution of the hack suite, for both targets; run.sh parses
mkdir -p "$tmp/gpu/tmp"
TMPDIR="$tmp/gpu/tmp" "$nvcc" -std=c++17 -O3 $archs -I"$pdir/include" -I"$pdir/04_kahan_softmax" -o "$tmp/gpu/kbtimer" \
	"$src/tests/gpu/timer.cu" "$pdir/04_kahan_softmax/driver.cu" "$pdir/04_kahan_softmax/reference.cu" \
	"$pdir/04_kahan_softmax/call.cu" "$pdir/04_kahan_softmax/baseline.cu" > "$tmp/gpu/timer.log" 2>&1
t "tests/gpu/timer.cu builds with 04 for sm_90a and sm_120a" '[ -x "$tmp/gpu/kbtimer" ]'
for h in "$src"/tests/hacks/*.cu; do
	hn=$(basename "$h" .cu)
	hp=$(sed -n "s/^$hn\.cu  *\([0-9][0-9]\) .*/\1/p" "$src/tests/hacks/MANIFEST" | head -1)
	hd=$(ls -d "$pdir/${hp}"_* 2>/dev/null | head -1)
	TMPDIR="$tmp/gpu/tmp" "$nvcc" -std=c++17 -O3 $archs -I"$pdir/include" -I"$hd" -c "$h" -o "$tmp/gpu/$hn.o" > "$tmp/gpu/$hn.log" 2>&1
	t "tests/hacks/$hn.cu builds for sm_90a and sm_120a" '[ -f "$tmp/gpu/$hn.o" ]'
	[ -f "$tmp/gpu/$hn.o" ] || grep -m3 error "$tmp/gpu/$hn.log" | sed 's/^/#   /'
done
t "tests/gpu/run.sh is bash-syntax clean" 'bash -n "$src/tests/gpu/run.sh"'
t "tests/hacks/run.sh is sh-syntax clean" 'sh -n "$src/tests/hacks/run.sh"'

gpu=no
command -v nvidia-smi > /dev/null 2>&1 && nvidia-smi -L > /dev/null 2>&1 && gpu=yes
for p in $probs; do
	exe="$tmp/$p/kbcheck"; run="$tmp/$p/kbrun"
	t "$p: checker and runner build for sm_90a and sm_120a" '[ "$(cat "$tmp/$p/rc")" = 0 ] && [ -x "$exe" ] && [ -x "$run" ]'
	if [ ! -x "$exe" ] || [ ! -x "$run" ]; then
		grep -m5 -E "error|warning" "$tmp/$p/log" | sed 's/^/#   /'
		continue
	fi
	if command -v cuobjdump > /dev/null 2>&1 || [ -x "$(dirname "$nvcc")/cuobjdump" ]; then
		cob=$(command -v cuobjdump || echo "$(dirname "$nvcc")/cuobjdump")
		archs=$("$cob" --list-elf "$exe" 2>/dev/null)
		t "$p: the binary holds sm_90a and sm_120a code" 'echo "$archs" | grep -q sm_90a && echo "$archs" | grep -q sm_120a'
	fi
	"$exe" shapes > "$tmp/$p/shapes" 2>&1; rc=$?
	want=$(nshapes "$pdir/$p/problem.json")
	got=$(grep -c '^shape [0-9]*: ' "$tmp/$p/shapes")
	t "$p: 'shapes' runs without a GPU and lists $got shapes" '[ $rc -eq 0 ] && [ "$got" -gt 0 ]'
	[ -n "$want" ] && t "$p: as many shapes as problem.json ($want)" '[ "$got" = "$want" ]'
	"$exe" info > "$tmp/$p/info" 2>&1; rc=$?
	if [ "$gpu" = yes ]; then
		t "$p: info names the device" '[ $rc -eq 0 ] && grep -q "^device=.* cc=[0-9]* sms=[0-9]* l2=[0-9]* mem=[0-9]*$" "$tmp/$p/info"'
	else
		t "$p: info without a GPU: exit 4, 'no CUDA device: ...'" '[ $rc -eq 4 ] && grep -q "^no CUDA device: " "$tmp/$p/info"'
		"$exe" check --runner "$run" --atol 1 --rtol 1 > "$tmp/$p/check" 2>&1; rc=$?
		t "$p: check without a GPU: exit 4 too" '[ $rc -eq 4 ]'
	fi
	"$exe" frobnicate > /dev/null 2>&1; rc=$?
	t "$p: an unknown command is a usage error (2)" '[ $rc -eq 2 ]'
	if command -v nm > /dev/null 2>&1; then
		entry=$(sed -n 's/.*"interface": *"\([A-Za-z0-9_]*\)".*/\1/p' "$pdir/$p/problem.json")
		t "$p: the checker holds no solution code ($entry)" '! nm "$exe" | grep -qw "$entry"'
		t "$p: the runner holds none of the checker's names" '! nm "$run" | grep -Eq " (kb_atol|kb_rtol|KB_DRIVER|kbref_[a-z0-9_]*)$"'
		t "$p: the runner has the entry point" 'nm "$run" | grep -qw "T $entry"'
	fi
	t "$p: tests/gpu/mutant.cuh builds for it" '[ "$(cat "$tmp/$p/mutant.rc")" = 0 ]'
	"$run" > "$tmp/$p/run.out" 2>&1; rc=$?
	t "$p: the runner started by hand refuses (2)" '[ $rc -eq 2 ] && grep -q "started by the checker only" "$tmp/$p/run.out"'
done
[ "$gpu" = no ] && echo "# SKIP no GPU here: check and bench run in tests/gpu/run.sh"
echo "1..$n"
exit $fail
