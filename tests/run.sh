#!/bin/sh
# The test runner: each test (a C program or a shell script, all printing
# TAP) is run, its output kept in tests/NAME.log and its counts in
# tests/NAME.res; failures are shown; the last line is the summary
# "N passed, N failed" that CI reads.
#   run.sh TEST...            run them one after the other, then the summary
#   run.sh --one TEST         run one (make runs these in parallel: make check -j2)
#   run.sh --summary TEST...  the summary of tests already run
# A TEST is tests/test_x (a program in the build directory) or
# tests/test_x.sh (a script under $KB_SRCDIR).
: "${KB_SRCDIR:=.}"
export KB_SRCDIR
# the programs read the data of this source tree, whatever is installed
# (absolute: tests change directory)
: "${KBTUI_DATADIR:=$(cd "$KB_SRCDIR" && pwd)}"
export KBTUI_DATADIR

# Every test runs once: a flaky test is fixed, never retried. Each run's
# sanitizer reports go to files of their own (ASAN_OPTIONS and UBSAN_OPTIONS
# log_path, kept as the caller set them otherwise), so a report from any
# process, even one whose stderr a test threw away, is seen. A test fails
# when any of its processes left a sanitizer report, when it died by a
# signal, or when its output shows a crash (a shell's "Segmentation
# fault", glibc's "double free"), whatever its assertions said.
kb_asan=${ASAN_OPTIONS:-} kb_ubsan=${UBSAN_OPTIONS:-}
run_tap() {
	san="$(pwd)/tests/$2.san"
	rm -rf "$san"; mkdir -p "$san"
	export ASAN_OPTIONS="${kb_asan:+$kb_asan:}log_path=$san/asan"
	export UBSAN_OPTIONS="${kb_ubsan:+$kb_ubsan:}print_stacktrace=1:log_path=$san/ubsan"
	case "$1" in
	*.sh) out=$(sh "$KB_SRCDIR/tests/$2" 2>&1); rc=$? ;;
	*) out=$("./$1" 2>&1); rc=$? ;;
	esac
	p=$(printf '%s\n' "$out" | grep -c '^ok ')
	f=$(printf '%s\n' "$out" | grep -c '^not ok ')
	crash=""
	for r in "$san"/*; do
		[ -f "$r" ] || continue
		crash="$crash
# sanitizer report ($(basename "$r")):
$(head -n 20 "$r" | sed 's/^/#   /')"
	done
	[ "$rc" -gt 128 ] && crash="$crash
# the test died by signal $((rc - 128))"
	# (TAP lines and comments are the test's words, which may quote a
	# transcript; a crash shows in the lines around them)
	crashout=$(printf '%s\n' "$out" | grep -vE '^(ok |not ok |#|1\.\.)' |
		grep -E 'AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|: runtime error: |double free or corruption|free\(\): (double free|invalid)|Segmentation fault|\(core dumped\)' | head -5)
	[ -n "$crashout" ] && crash="$crash
# its output shows a crash:
$(printf '%s\n' "$crashout" | sed 's/^/#   /')"
	[ -z "$crash" ] && rm -rf "$san"
}

run_one() {
	t=$1; name=$(basename "$t")
	run_tap "$t" "$name"
	if [ -n "$crash" ]; then
		f=$((f + 1))
		out="$out$crash
not ok - $name crashed or left a sanitizer report (tests/$name.san)"
	fi
	s=$(printf '%s\n' "$out" | grep -c '^# SKIP')
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1  # crashed or exited non-zero without saying which assertion
		out="$out
not ok - $name exited with status $rc"
		crashed=1
	else
		crashed=0
	fi
	printf '%s\n' "$out" > "tests/$name.log" 2>/dev/null || true
	# one write of the whole report, so that parallel tests do not interleave
	{
		if [ "$crashed" = 1 ]; then
			printf '%s\n' "$out" | grep -v '^ok ' | tail -25 | sed 's/^/    | /'
		fi
		if [ "$f" -gt 0 ]; then
			printf 'FAIL %-20s %4d passed, %d failed\n' "$name" "$p" "$f"
			# each failed check, the comments under it (a terminal test's
			# screen, 50 lines at most), then three lines of context
			printf '%s\n' "$out" | awk '/^not ok/ { print; c = 50; a = 3; next }
				c > 0 && /^#/ { print; c--; next } { c = 0 } a > 0 { print; a-- }' | sed 's/^/    /'
			[ -n "$crash" ] && printf '%s\n' "$crash" | head -30 | sed 's/^/    /'
		else
			printf 'ok   %-20s %4d passed%s\n' "$name" "$p" "$( [ "$s" -gt 0 ] && echo ", $s skipped")"
		fi
		printf '%s\n' "$out" | grep '^# SKIP' | sed 's/^/    /'
	} > "tests/$name.report" 2>/dev/null
	cat "tests/$name.report"
	rm -f "tests/$name.report"
	echo "$p $f $s" > "tests/$name.res"
}

summary() {
	passed=0 failed=0 skipped=0 bad=""
	for t in "$@"; do
		name=$(basename "$t")
		if [ -r "tests/$name.res" ]; then
			read -r p f s < "tests/$name.res"
		else
			p=0 f=1 s=0  # never ran
			echo "FAIL $name: no result (tests/$name.res)"
		fi
		passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
		[ "$f" -gt 0 ] && bad="$bad $name"
	done
	[ -n "$bad" ] && echo "failing:$bad"
	if [ "$skipped" -gt 0 ]; then
		echo "$passed passed, $failed failed, $skipped skipped"
	else
		echo "$passed passed, $failed failed"
	fi
	[ "$failed" -eq 0 ]
}

mkdir -p tests
case "$1" in
--one) run_one "$2" ;;
--summary) shift; summary "$@" ;;
*)
	for t in "$@"; do
		rm -f "tests/$(basename "$t").res"
		run_one "$t"
	done
	summary "$@"
	;;
esac
