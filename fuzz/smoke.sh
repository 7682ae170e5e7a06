#!/bin/sh
# smoke.sh [SECONDS [TARGET...]]: runs every fuzz target (or the ones named) for SECONDS (default 20) on
# seeds built by seed.sh; fails when any target finds a crash, a leak or a
# sanitizer report. Run from a build configured with --enable-fuzzing
# (make fuzz-smoke does). Prints executions per target.
set -u
secs=${1:-${FUZZ_SECONDS:-20}}
[ $# -gt 0 ] && shift
[ -n "$secs" ] || secs=20
src=${KB_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
bld=${KB_BUILDDIR:-.}
work=$(mktemp -d "${TMPDIR:-/tmp}/kbfuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
KB_SRCDIR=$src sh "$src/fuzz/seed.sh" "$work/seeds" >/dev/null
fail=0
if [ $# -gt 0 ]; then targets=$(for a in "$@"; do printf '%s/fuzz/%s ' "$bld" "$a"; done)
else targets=$(ls "$bld"/fuzz/fuzz_* 2>/dev/null); fi
for t in $targets; do
	[ -x "$t" ] && [ -f "$t" ] || continue
	case $t in *.o|*.c) continue;; esac
	name=$(basename "$t")
	corpus=$work/corpus/$name
	mkdir -p "$corpus" "$work/seeds/$name" "$work/art/$name"
	"$t" -max_total_time="$secs" -max_len=65536 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$work/art/$name/" "$corpus" "$work/seeds/$name" \
		> "$work/$name.log" 2>&1
	rc=$?
	execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/$name.log" | grep -o '[0-9]*$')
	[ -n "$execs" ] || execs=$(grep -o '^#[0-9]*' "$work/$name.log" | tail -1 | tr -d '#')
	if [ $rc -ne 0 ] || ls "$work/art/$name"/* >/dev/null 2>&1; then
		echo "not ok - $name: rc=$rc after ${execs:-?} executions"
		grep -m 20 -E 'ERROR|SUMMARY|==[0-9]+==|abort|#0|#1|#2|#3' "$work/$name.log" | sed 's/^/#   /'
		for a in "$work/art/$name"/*; do
			[ -f "$a" ] && mkdir -p "$bld/fuzz-crashes" && cp "$a" "$bld/fuzz-crashes/$name-$(basename "$a")" &&
				echo "#   input kept: $bld/fuzz-crashes/$name-$(basename "$a")"
		done
		fail=1
	else
		echo "ok - $name: ${execs:-?} executions in ${secs}s"
	fi
done
exit $fail
