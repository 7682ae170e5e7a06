#!/bin/sh
# tests/run.sh itself: a test that dies by a signal, whose output shows a
# crash, or whose processes left a sanitizer report fails, whatever its
# assertions said, and is never run twice; a test that quotes crash words
# in its TAP lines or comments (a transcript's text) does not fail for it.
n=0; fail=0
t() { n=$((n+1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fail=1; fi; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src/tests" "$tmp/build"
# each fake test counts its runs in a file of its own
cat > "$tmp/src/tests/test_segv.sh" <<'T'
echo run >> "$KB_COUNT/segv"; echo "ok 1 - fine"; sh -c 'kill -SEGV $$'; echo "1..1"
T
cat > "$tmp/src/tests/test_sig.sh" <<'T'
echo run >> "$KB_COUNT/sig"; echo "ok 1 - fine"; kill -KILL $$
T
cat > "$tmp/src/tests/test_asan.sh" <<'T'
echo run >> "$KB_COUNT/asan"; echo "ok 1 - fine"
echo "==7==ERROR: AddressSanitizer: heap-use-after-free" > "${ASAN_OPTIONS##*log_path=}.7"; echo "1..1"
T
cat > "$tmp/src/tests/test_ubsan.sh" <<'T'
echo "ok 1 - fine"; u=${UBSAN_OPTIONS##*log_path=}; echo "x.c:3:5: runtime error: signed integer overflow" > "$u.9"; echo "1..1"
T
cat > "$tmp/src/tests/test_free.sh" <<'T'
echo "ok 1 - fine"; echo "free(): double free detected in tcache 2" >&2; echo "1..1"
T
cat > "$tmp/src/tests/test_quote.sh" <<'T'
case $ASAN_OPTIONS in detect_leaks=1:log_path=/*) ;; *) echo "not ok 2 - ASAN_OPTIONS lost the caller's: $ASAN_OPTIONS" ;; esac
echo "ok 1 - the screen shows Segmentation fault (core dumped) from the transcript"
echo "# AddressSanitizer: quoted by a transcript"; echo "1..1"
T
cat > "$tmp/src/tests/test_flake.sh" <<'T'
echo run >> "$KB_COUNT/flake"; echo "not ok 1 - failed"; echo "1..1"
T
mkdir "$tmp/count"
(cd "$tmp/build" && KB_COUNT="$tmp/count" KB_SRCDIR="$tmp/src" ASAN_OPTIONS=detect_leaks=1 \
	sh "$KB_SRCDIR/tests/run.sh" tests/test_segv.sh tests/test_sig.sh tests/test_asan.sh tests/test_ubsan.sh \
	tests/test_free.sh tests/test_quote.sh tests/test_flake.sh > "$tmp/out" 2> "$tmp/err")
rc=$?
sed 's/^/# /' "$tmp/out"
t "the runner exits non-zero" '[ $rc -ne 0 ]'
t "stderr holds no more than the shell's word on the killed test" '[ -z "$(grep -v "Killed" "$tmp/err")" ]'
for x in segv sig asan ubsan free; do
	t "test_$x.sh fails though its assertion passed" 'grep -q "^FAIL test_$x.sh  *1 passed, 1 failed" "$tmp/out"'
done
t "a sanitizer report is shown with its file" 'grep -q "sanitizer report (asan.7)" "$tmp/out" && grep -q "heap-use-after-free" "$tmp/out"'
t "a death by signal is named" 'grep -q "died by signal 9" "$tmp/out"'
t "the report stays on disk for the developer" '[ -f "$tmp/build/tests/test_asan.sh.san/asan.7" ]'
t "crash words quoted in TAP lines or comments fail nothing; the caller's ASAN_OPTIONS kept beside log_path" 'grep -q "^ok   test_quote.sh" "$tmp/out"'
t "nothing is run twice: no retry of a crash, a sanitizer report or a failure" '
	[ "$(wc -l < "$tmp/count/segv")" -eq 1 ] && [ "$(wc -l < "$tmp/count/sig")" -eq 1 ] &&
	[ "$(wc -l < "$tmp/count/asan")" -eq 1 ] && [ "$(wc -l < "$tmp/count/flake")" -eq 1 ]'
t "the summary counts the six failures" 'tail -n 1 "$tmp/out" | grep -q "^6 passed, 6 failed$"'
echo "1..$n"
exit $fail
