#!/bin/sh
# tests/hacks/run.sh: the reward-hack suite's rows marked `cpu` in
# tests/hacks/MANIFEST, through the real `kbtui eval` and the real nvcc, on
# a machine with or without a GPU: REFUSED rows must be refused before the
# device is needed (result.json refused, stage forbidden, the reason named),
# FAIL rows must not be refused and must not PASS. The 04 and 05 baselines
# must not be refused either (the checks do not refuse honest code).
# TAP on stdout. Run by `make check` (as tests/test_hacks.sh).
src="${KB_SRCDIR:-.}"; hdir="$src/tests/hacks"; pdir="$src/problems"
n=0; fail=0
t() { n=$((n+1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fail=1; fi; }

nvcc="${KBTUI_NVCC:-}"
if [ -z "$nvcc" ] && [ -n "$KB_BUILDDIR" ] && [ -f "$KB_BUILDDIR/config.h" ]; then
	nvcc=$(sed -n 's/^#define KB_NVCC "\(.*\)"$/\1/p' "$KB_BUILDDIR/config.h")
fi
[ -z "$nvcc" ] && [ -n "$CUDA_HOME" ] && [ -x "$CUDA_HOME/bin/nvcc" ] && nvcc="$CUDA_HOME/bin/nvcc"
[ -z "$nvcc" ] && nvcc=$(command -v nvcc 2>/dev/null)
kbtui="${KB_BUILDDIR:-.}/kbtui"
if [ -z "$nvcc" ] || [ ! -x "$nvcc" ]; then
	echo "# SKIP nvcc not found: the hack suite needs the real compiler"
	echo "1..0 # SKIP nvcc not found"
	exit 0
fi
if [ ! -x "$kbtui" ]; then
	echo "# SKIP no kbtui in ${KB_BUILDDIR:-.}"
	echo "1..0 # SKIP no kbtui"
	exit 0
fi
export KBTUI_NVCC="$nvcc"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

json() {  # json FILE KEY: a top-level scalar of result.json
	sed -n "s/^\t\"$2\":\t\(.*\),\{0,1\}$/\1/p" "$1" | head -1 | sed 's/,$//; s/^"//; s/"$//'
}

# eval NAME PROBLEM FILE: one work dir per problem, so the harness objects
# are built once and each try compiles its solution alone
ev() {
	"$kbtui" eval --problem "$2" --problems "$pdir" --arch sm_90a --workdir "$tmp/wd-$2" --timeout 240 "$3" \
		> "$tmp/$1.out" 2>&1
	echo $? > "$tmp/$1.rc"
	cp "$tmp/wd-$2/result.json" "$tmp/$1.json" 2>/dev/null
}

for b in 04_kahan_softmax 05_topk_bitonic; do
	ev "base-$b" "$b" "$pdir/$b/baseline.cu"
	t "$b baseline: not refused" '[ "$(json "$tmp/base-$b.json" refused)" = false ]'
done

grep -v '^#' "$hdir/MANIFEST" | while read -r file prob outcome where class; do
	[ -n "$file" ] && [ "$where" = cpu ] && echo "$file $prob $outcome"
done > "$tmp/rows"
while read -r file prob outcome; do
	name="${file%.cu}"
	case "$prob" in [0-9][0-9]) prob=$(cd "$pdir" && ls -d "$prob"_* | head -1) ;; esac
	ev "$name" "$prob" "$hdir/$file"
	j="$tmp/$name.json"; rc=$(cat "$tmp/$name.rc")
	t "$file: exit status non-zero ($rc)" '[ "$rc" -ne 0 ]'
	t "$file: never correct, never a peak_fraction" '[ "$(json "$j" correct)" = false ] && [ "$(json "$j" peak_fraction)" = null ]'
	t "$file: no PASS in the verdict" '! grep -q "^kbtui eval: .*: PASS" "$tmp/$name.out"'
	case $outcome in
	REFUSED)
		t "$file: REFUSED before the device" '[ "$(json "$j" refused)" = true ] && [ "$(json "$j" stage)" = forbidden ]'
		t "$file: the reason is named" 'grep -q "^kbtui eval: .*: REFUSED: " "$tmp/$name.out"'
		grep "REFUSED: " "$tmp/$name.out" | head -1 | cut -c1-220 | sed 's/^/# /'
		want=$(sed -n 's/^ \* Refusal: //p' "$hdir/$file" | head -1)
		[ -n "$want" ] && t "$file: the refusal says \"$want\"" \
			'grep "^kbtui eval: .*: REFUSED: " "$tmp/$name.out" | grep -qF -- "$want"'
		;;
	FAIL)
		t "$file: not refused (it needs the device to be judged)" '[ "$(json "$j" refused)" = false ]'
		t "$file: stopped at check (no device here) or failed there" '[ "$(json "$j" stage)" = check ]'
		;;
	esac
done < "$tmp/rows"
echo "1..$n"
exit $fail
