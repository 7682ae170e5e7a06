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

# A terminal test (it drives kbtui in tmux: tests/tmux.sh) that fails is run
# once more (KB_TUI_RETRY=0: never): a screen read while a loaded machine
# (two sanitized tests at once on two cores) was still drawing, or a mouse
# report delivered in two pieces, is the harness's timing, not kbtui's
# behaviour. The first run's failures stay in the report and the log, and
# the summary counts such tests as flaky, so a flake is seen, never hidden;
# a test that fails twice fails.
run_tap() {
	case "$1" in
	*.sh) out=$(sh "$KB_SRCDIR/tests/$2" 2>&1); rc=$? ;;
	*) out=$("./$1" 2>&1); rc=$? ;;
	esac
	p=$(printf '%s\n' "$out" | grep -c '^ok ')
	f=$(printf '%s\n' "$out" | grep -c '^not ok ')
}

run_one() {
	t=$1; name=$(basename "$t")
	run_tap "$t" "$name"
	flaky=""
	if { [ "$rc" -ne 0 ] || [ "$f" -gt 0 ]; } && [ "${KB_TUI_RETRY:-1}" != 0 ] &&
	   case "$t" in *.sh) grep -q 'tests/tmux.sh' "$KB_SRCDIR/tests/$name" ;; *) false ;; esac; then
		first=$(printf '%s\n' "$out" | grep '^not ok' | head -5)
		run_tap "$t" "$name"
		if [ "$rc" -eq 0 ] && [ "$f" -eq 0 ]; then
			flaky=$first
			out="$out
# FLAKY failed once, passed when run again; the first run said:
$(printf '%s\n' "$first" | sed 's/^/#   /')"
		fi
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
			printf '%s\n' "$out" | grep -A3 '^not ok' | sed 's/^/    /'
		else
			printf 'ok   %-20s %4d passed%s%s\n' "$name" "$p" "$( [ "$s" -gt 0 ] && echo ", $s skipped")" \
				"$( [ -n "$flaky" ] && echo ", FLAKY: failed once, passed when run again")"
			[ -n "$flaky" ] && printf '%s\n' "$flaky" | sed 's/^/    first run: /'
		fi
		printf '%s\n' "$out" | grep '^# SKIP' | sed 's/^/    /'
	} > "tests/$name.report" 2>/dev/null
	cat "tests/$name.report"
	rm -f "tests/$name.report"
	echo "$p $f $s $([ -n "$flaky" ] && echo 1 || echo 0)" > "tests/$name.res"
}

summary() {
	passed=0 failed=0 skipped=0 bad="" flakes=""
	for t in "$@"; do
		name=$(basename "$t")
		if [ -r "tests/$name.res" ]; then
			read -r p f s fl < "tests/$name.res"
		else
			p=0 f=1 s=0 fl=0  # never ran
			echo "FAIL $name: no result (tests/$name.res)"
		fi
		passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
		[ "$f" -gt 0 ] && bad="$bad $name"
		[ "${fl:-0}" = 1 ] && flakes="$flakes $name"
	done
	[ -n "$bad" ] && echo "failing:$bad"
	[ -n "$flakes" ] && echo "flaky (failed once, passed when run again; see their logs):$flakes"
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
