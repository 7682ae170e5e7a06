#!/bin/sh
# Runs each test (C programs and shell scripts, all printing TAP), shows
# failures, and ends with the summary line "N passed, N failed".
passed=0 failed=0 skipped=0 bad=""
: "${KB_SRCDIR:=.}"
export KB_SRCDIR
for t in "$@"; do
	name=$(basename "$t")
	case "$t" in
	*.sh) out=$(sh "$t" 2>&1); rc=$? ;;
	*) out=$("./$t" 2>&1); rc=$? ;;
	esac
	p=$(printf '%s\n' "$out" | grep -c '^ok ')
	f=$(printf '%s\n' "$out" | grep -c '^not ok ')
	s=$(printf '%s\n' "$out" | grep -c '^# SKIP')
	printf '%s\n' "$out" > "tests/$name.log" 2>/dev/null || true
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1  # crashed or exited non-zero without saying which assertion
		out="$out
not ok - $name exited with status $rc"
		printf '%s\n' "$out" | grep -v '^ok ' | tail -25 | sed 's/^/    | /'
	fi
	passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
	if [ "$f" -gt 0 ]; then
		bad="$bad $name"
		printf 'FAIL %-20s %4d passed, %d failed\n' "$name" "$p" "$f"
		printf '%s\n' "$out" | grep -A3 '^not ok' | sed 's/^/    /'
	else
		printf 'ok   %-20s %4d passed%s\n' "$name" "$p" "$( [ "$s" -gt 0 ] && echo ", $s skipped")"
	fi
	printf '%s\n' "$out" | grep '^# SKIP' | sed 's/^/    /'
done
[ -n "$bad" ] && echo "failing:$bad"
if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
