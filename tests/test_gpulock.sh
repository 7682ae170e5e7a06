#!/bin/sh
# kbtui eval takes the flock on $KBTUI_GPU_LOCK around its GPU steps (the
# sweep's local executor names one lock file per GPU): with the lock held
# by another process it says on stderr that it waits, runs no GPU step,
# and goes on once the lock is released; SIGTERM while it waits ends it
# cleanly (status 143, result.json saying why). Orders of events only: the
# holder and the eval's stderr append to one file.
kb="$KB_BUILDDIR/kbtui"
n=0; fail=0
t() { n=$((n+1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fail=1; fi; }
if ! command -v flock > /dev/null 2>&1; then
	echo "1..0 # SKIP flock(1) is not installed"
	exit 0
fi
tmp=$(mktemp -d)
pids=""
cleanup() { for p in $pids; do kill "$p" 2> /dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
wait_until() { i=0; while [ $i -lt $(($1 * 5)) ]; do eval "$2" && return 0; sleep 0.2; i=$((i + 1)); done; return 1; }

printf '// good\n' > "$tmp/solution.cu"
export KBTUI_NVCC="$KB_SRCDIR/tests/fixtures/eval/fake-nvcc"
export KBTUI_GPU_LOCK="$tmp/gpu0.lock"
ev="$tmp/events"
# hold LOCK: another eval on the GPU, until $tmp/hold is gone
hold() {
	touch "$tmp/hold"
	flock "$KBTUI_GPU_LOCK" sh -c "echo held >> '$ev'; while [ -e '$tmp/hold' ]; do sleep 0.1; done; echo released >> '$ev'" &
	holder=$!
	pids="$pids $holder"
	wait_until 10 'grep -q "^held$" "$ev" 2> /dev/null'
}
run_eval() { # run_eval NAME: in the background, stderr appended to the events
	"$kb" eval --problem 01_toy --problems "$KB_SRCDIR/tests/fixtures/eval/problems" --arch sm_90a \
		--sandbox none --workdir "$tmp/wd-$1" "$tmp/solution.cu" > "$tmp/$1.out" 2>> "$ev" < /dev/null &
	evalpid=$!
	pids="$pids $evalpid"
}

# ---- free lock: taken and released without a word of waiting -----------------
: > "$ev"
"$kb" eval --problem 01_toy --problems "$KB_SRCDIR/tests/fixtures/eval/problems" --arch sm_90a \
	--sandbox none --workdir "$tmp/wd-free" "$tmp/solution.cu" > "$tmp/free.out" 2> "$tmp/free.err" < /dev/null
rc=$?
t "a free lock: the eval passes, holding it, without waiting" '
	[ $rc -eq 0 ] && grep -q "PASS" "$tmp/free.out" &&
	grep -q "holding the GPU lock $KBTUI_GPU_LOCK" "$tmp/free.err" && ! grep -q "waiting for" "$tmp/free.err"'
t "... and leaves it free" 'flock -n "$KBTUI_GPU_LOCK" true'

# ---- held: waits, then goes on -----------------------------------------------------
: > "$ev"
hold
run_eval wait
wait_until 60 'grep -q "waiting for the GPU lock $KBTUI_GPU_LOCK" "$ev"'
t "a held lock: the eval says on stderr that it waits for it" 'grep -q "^kbtui eval: waiting for the GPU lock $KBTUI_GPU_LOCK (another eval uses this GPU)$" "$ev"'
t "... is still waiting, and ran no GPU step (no check output)" '
	kill -0 $evalpid && ! grep -q "holding" "$ev" && [ ! -s "$tmp/wd-wait/check.log" ]'
rm -f "$tmp/hold"
wait $evalpid
rc=$?
t "released: the eval goes on and passes" '[ $rc -eq 0 ] && grep -q "PASS" "$tmp/wait.out" && [ -s "$tmp/wd-wait/check.log" ]'
t "in order: held, waiting, released, then the eval holds it" '
	[ "$(grep -E "^(held|released)$|GPU lock" "$ev" | sed "s/^kbtui eval: \([a-z]*\) .*/\1/" | tr "\n" " ")" = "held waiting released holding " ]'

# ---- SIGTERM while waiting ---------------------------------------------------------------
: > "$ev"
hold
run_eval term
wait_until 60 'grep -q "waiting for the GPU lock" "$ev"'
kill -TERM $evalpid
wait $evalpid
rc=$?
t "SIGTERM while waiting ends the eval (status 143)" '[ $rc -eq 143 ]'
t "... with the reason in its summary and result.json, and no GPU step run" '
	grep -q "FAIL at check: aborted while waiting for the GPU lock" "$tmp/term.out" &&
	jq -e ".failure | startswith(\"aborted while waiting for the GPU lock\")" "$tmp/wd-term/result.json" > /dev/null &&
	! grep -q holding "$ev" && [ ! -s "$tmp/wd-term/check.log" ]'
t "... while the other holder keeps the lock" 'kill -0 $holder && ! flock -n "$KBTUI_GPU_LOCK" true'
rm -f "$tmp/hold"
wait $holder

# ---- no lock named: no lock taken ----------------------------------------------------------
KBTUI_GPU_LOCK= "$kb" eval --problem 01_toy --problems "$KB_SRCDIR/tests/fixtures/eval/problems" --arch sm_90a \
	--sandbox none --workdir "$tmp/wd-none" "$tmp/solution.cu" > "$tmp/none.out" 2> "$tmp/none.err" < /dev/null
rc=$?
t "KBTUI_GPU_LOCK unset or empty: the eval takes no lock" '[ $rc -eq 0 ] && ! grep -q "GPU lock" "$tmp/none.err"'

# ---- a lock that is not safe: refused, nothing followed (issue 30) ---------------------------
ev_at() { # ev_at NAME LOCK: the eval with that lock, its status in $rc
	KBTUI_GPU_LOCK="$2" "$kb" eval --problem 01_toy --problems "$KB_SRCDIR/tests/fixtures/eval/problems" \
		--arch sm_90a --sandbox none --workdir "$tmp/wd-$1" "$tmp/solution.cu" > "$tmp/$1.out" 2> "$tmp/$1.err" < /dev/null
	rc=$?
}
printf 'precious\n' > "$tmp/precious"
ln -s "$tmp/precious" "$tmp/link.lock"
ev_at link "$tmp/link.lock"
t "a lock file that is a symbolic link: refused with a warning (the eval runs unlocked), the target untouched" '
	[ $rc -eq 0 ] && grep -q "warning: .*link.lock: the GPU lock is a symbolic link: refused; running without it" "$tmp/link.out" "$tmp/link.err" &&
	[ "$(cat "$tmp/precious")" = precious ] && ! grep -q "holding the GPU lock" "$tmp/link.out" "$tmp/link.err"'
mkdir "$tmp/open"; chmod 0777 "$tmp/open"
ev_at open "$tmp/open/gpu0.lock"
t "a lock in a directory others can write: refused, with its mode" '
	[ $rc -eq 0 ] && grep -q "the GPU lock.s directory .*/open is writable by others (mode 0777): refused" "$tmp/open.out" "$tmp/open.err" &&
	[ ! -e "$tmp/open/gpu0.lock" ]'
mkfifo "$tmp/fifo.lock"
ev_at fifo "$tmp/fifo.lock"
t "a lock that is a FIFO: refused at once, not waited on" '[ $rc -eq 0 ] && grep -q "fifo.lock: the GPU lock is not a regular file: refused" "$tmp/fifo.out" "$tmp/fifo.err"'

echo "1..$n"
exit $fail
