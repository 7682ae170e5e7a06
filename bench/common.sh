# common.sh: what bench/cache.sh and bench/prefilter.sh share, sourced with
# bench_name set: the programs, the sample (else the shipped fixture), a
# work folder removed at exit with its own cache, and CPU-time helpers.
kb="$KB_BUILDDIR/kbtui"
bench="$KB_BUILDDIR/bench/kbbench"
kbh="${KB_SHARED:-$KB_SRCDIR/../shared}/kbh"
[ -f "$kbh/runs.jsonl" ] || kbh="$KB_SRCDIR/tests/fixtures/kbh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME="$work/cache"  # the cache under test, not the user's
unset KBTUI_NO_CACHE KBTUI_CACHE_MAX
if [ ! -x /usr/bin/time ]; then
	echo "$bench_name: /usr/bin/time is not installed (package time): no CPU times"
	exit 0
fi

# cpu CMD [PREP]: CPU ms of the shell command CMD (run $reps times: CPU
# time comes in ticks of 10 ms), the median of three, PREP run before each
# (timed too: an rm of a few ms). time's own line about a non-zero exit is
# skipped.
cpu() {
	for k in 1 2 3; do
		/usr/bin/time -f "%U %S" -o "$work/t" sh -c "i=0; while [ \$i -lt $reps ]; do ${2:-:}; $1; i=\$((i+1)); done" >/dev/null 2>&1
		tail -1 "$work/t" | awk -v n="$reps" '{ printf "%.1f\n", ($1 + $2) * 1000 / n }'
	done | sort -n | sed -n 2p
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / (b > 0 ? b : 10) }'; }
verdict() { awk -v r="$1" -v l="$2" 'BEGIN { print (r <= l ? "ok" : "FAILED") }'; }
