#!/bin/sh
# The eval loop on the screen (kbtui eval --tui) and R, the re-evaluation
# of a recorded run's solution at a step, driven in tmux. No GPU here: the
# python loop runs against a stand-in KernelBench-Hard checkout and a
# stand-in python written below; the native loop is shown up to nvcc's
# error (when nvcc is installed).
. "$KB_SRCDIR/tests/tmux.sh"

# ---- a stand-in checkout and python ------------------------------------------
# eval_kbh.c wants problems/NAME/ with problem.yaml (problem_find), and runs
# `python check.py` then `python benchmark.py` in a copy of that folder
kbh="$tmp/kbh"
mkdir -p "$kbh/problems/04_kahan_softmax"
printf 'name: 04_kahan_softmax\n' > "$kbh/problems/04_kahan_softmax/problem.yaml"
echo '# stand-in' > "$kbh/problems/04_kahan_softmax/check.py"
echo '# stand-in' > "$kbh/problems/04_kahan_softmax/benchmark.py"
fakepy="$tmp/fakepy"
cat > "$fakepy" <<'PY'
#!/bin/sh
# check.py: keeps the solution it was given in $SEEN, then PASS;
# benchmark.py: numbers that tell version 1 and version 2 apart. The sleeps
# (while the file $HOLD.check or $HOLD.bench is there, at most 30 s) make each
# step observable.
hold() { i=0; while [ -e "$HOLD.$1" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done; }
case "$1" in
check.py)
	if [ -n "$SEEN" ]; then
		mkdir -p "$SEEN"; n=$(ls "$SEEN" | wc -l); cp solution.py "$SEEN/solution-$((n+1)).py"
	fi
	echo "checking 1 shape"; hold check; echo PASS ;;
benchmark.py)
	if grep -q version2 solution.py; then
		echo "shape=0 variant=solution tflops=2.5 gbps=900 ms=0.04"; hold bench; echo "peak_fraction: 0.55"
	else
		echo "shape=0 variant=solution tflops=1.2 gbps=800 ms=0.05"; hold bench; echo "peak_fraction: 0.42"
	fi
	echo "RESULT: OK" ;;
esac
PY
chmod +x "$fakepy"
# The stand-in reports to this test through $SEEN and $HOLD, outside its work
# directory: exactly what the sandbox forbids (tests/test_evalbox.c shows it
# does). So the runs of the stand-in are unsandboxed, on purpose.
nosb="KBTUI_SANDBOX=none"
echo 'import torch  # version1' > "$tmp/solution.py"

# ---- kbtui eval --tui, the python loop ----------------------------------------
"$kb" eval --tui --kbh "$kbh" --problem 04 "$tmp/solution.py" < /dev/null > "$tmp/notty.out" 2> "$tmp/notty.err"
rc=$?
t "--tui without a terminal: exit 2 and says why" \
	'[ $rc = 2 ] && grep -q "needs a terminal" "$tmp/notty.err" && [ ! -s "$tmp/notty.out" ]'

hold="$tmp/hold"
touch "$hold.check" "$hold.bench"
start e $nosb HOLD="$hold" "$kb" eval --tui --kbh "$kbh" --python "$fakepy" --problem 04_kahan_softmax \
	--workdir "$tmp/wd" "$tmp/solution.py"
t "while check.py runs, the status shows the stage" 'wait_for e "EVAL check" "checking 1 shape"'
t "the step is a tool call named check in the list" 'has "call +check "'
rm -f "$hold.check"
t "the benchmark step brings the timing pane, its shape line there while it runs" \
	'wait_for e "EVAL bench" "GPU timing" "call +benchmark " "solution +1\.2.* 800.* 0\.05"'
rm -f "$hold.bench"
t "the loop ends" 'wait_for e "ENDED: PASS peak_fraction 0\.4200"'
keys e V V
t "the last event (detail pane) is the verdict: PASS, peak_fraction 0.42, the shape" \
	'wait_for e "event 5 +text" "kbtui eval: 04_kahan_softmax: PASS, peak_fraction 0\.4200 \(OK\)" "shape 0.*ms=0\.0500 tflops=1\.200 gbps=800\.0"'
keys e 4 G v v
t "the timing pane shows benchmark.py's shape line and peak_fraction of event 4" \
	'wait_for e "GPU timing" "event 4/5" "solution +1\.2.* 800.* 0\.05" "peak_fraction.* 0\.42"'
sp='[[:space:]]*'
t "result.json written: correct, peak_fraction 0.42, shape 0 ms 0.05" \
	'grep -q "\"correct\":${sp}true" "$tmp/wd/result.json" && grep -q "\"peak_fraction\":${sp}0.42" "$tmp/wd/result.json" && grep -q "\"ms\":${sp}0.05" "$tmp/wd/result.json"'
keys e q
t "q after the end leaves, with the verdict on stdout and exit 0" \
	'wait_for e "kbtui exited: 0" "kbtui eval: 04_kahan_softmax: PASS, peak_fraction 0\.4200 \(OK\)"'

# q while the loop runs: a question, n stays, y kills it and leaves
touch "$hold.check"
start a $nosb HOLD="$hold" "$kb" eval --tui --kbh "$kbh" --python "$fakepy" --problem 04_kahan_softmax \
	--workdir "$tmp/wd-abort" "$tmp/solution.py"
wait_for a "EVAL check" > /dev/null
keys a q
t "q while running asks first" 'wait_for a "abort it and quit\? \(y/n\)"'
keys a n
t "n keeps the loop running" 'wait_for a "EVAL check" && ! has "kbtui exited"'
keys a q; wait_for a "y/n" > /dev/null; keys a y
t "y aborts the loop and leaves with exit 1" 'wait_for a "kbtui exited: 1"'
t "result.json of the aborted loop says so" 'grep -q "aborted by the user" "$tmp/wd-abort/result.json"'
rm -f "$hold.check"

# ---- kbtui eval --tui, the native loop: nvcc's error in the compiler pane ------------
if command -v nvcc > /dev/null 2>&1 || [ -n "$KBTUI_NVCC" ]; then
	printf '#include "interface.h"\n\nint broken(void) { return no_such_name; }\n' > "$tmp/bad.cu"
	# the one-pane layout: the compiler pane by itself beside the list
	start c KBTUI_LAYOUT=one "$kb" eval --tui --problems "$KB_SRCDIR/problems" --problem 04 --arch sm_90a \
		--workdir "$tmp/wd-cu" "$tmp/bad.cu"
	KB_WAIT=3000 wait_for c "ENDED: FAIL at compile" > /dev/null
	t "nvcc's error shows in the compiler pane (there by itself) with file:line" \
		'wait_for c "compiler output" "bad\.cu:3: error: identifier \"no_such_name\" is undefined"'
	t "the status says where it failed" 'has "ENDED: FAIL at compile"'
else
	echo "# SKIP nvcc not found: the native loop's compile error is not shown"
fi

# ---- R: re-evaluation from a replay ------------------------------------------------
# a dataset-shaped run: solution.py written twice, a benchmark after each
run="$tmp/run"
mkdir -p "$run"
cat > "$run/transcript.jsonl" <<'EOF2'
{"type":"system","subtype":"init","session_id":"sess-r","cwd":"/w","model":"claude-x","tools":["Write","Bash"]}
{"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"toolu_1","name":"Write","input":{"file_path":"/w/solution.py","content":"import torch  # version1\n"}}]},"session_id":"sess-r"}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"File created successfully at: /w/solution.py"}]},"session_id":"sess-r"}
{"type":"assistant","message":{"id":"msg_2","type":"message","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"toolu_2","name":"Bash","input":{"command":"python check.py && python benchmark.py"}}]},"session_id":"sess-r"}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_2","content":"PASS\nshape=0 variant=solution tflops=1.1 gbps=701 ms=0.061\npeak_fraction: 0.3100\nRESULT: OK"}]},"session_id":"sess-r"}
{"type":"assistant","message":{"id":"msg_3","type":"message","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"toolu_3","name":"Write","input":{"file_path":"/w/solution.py","content":"import torch  # version2\n"}}]},"session_id":"sess-r"}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_3","content":"File written: /w/solution.py"}]},"session_id":"sess-r"}
{"type":"assistant","message":{"id":"msg_4","type":"message","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"toolu_4","name":"Bash","input":{"command":"python check.py && python benchmark.py"}}]},"session_id":"sess-r"}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_4","content":"PASS\nshape=0 variant=solution tflops=3.3 gbps=1703 ms=0.029\npeak_fraction: 0.7700\nRESULT: OK"}]},"session_id":"sess-r"}
{"type":"assistant","message":{"id":"msg_5","type":"message","role":"assistant","model":"claude-x","content":[{"type":"text","text":"Done."}]},"session_id":"sess-r"}
{"type":"result","subtype":"success","is_error":false,"result":"Done.","session_id":"sess-r"}
EOF2
echo '{"problem":"04_kahan_softmax","harness":"claude","model":"claude-x"}' > "$run/result.json"

# without a checkout: a message that says how to set one
start n XDG_CACHE_HOME="$tmp/cache" KBTUI_KBH= "$kb" "$run"
wait_for n "event 1/11" > /dev/null
keys n 5 G; wait_for n "event 5/11" > /dev/null
keys n R
t "R asks before it runs the transcript's code" \
	'wait_for n "run the agent.s solution\.py of event 2 here \(code from the transcript\)\? \(y/n\)"'
keys n y
t "R without \$KBTUI_KBH says how to set it" 'wait_for n "set KBTUI_KBH=DIR"'
keys n q

seen="$tmp/seen"
touch "$hold.check"
start r $nosb XDG_CACHE_HOME="$tmp/cache" KBTUI_KBH="$kbh" KBTUI_PYTHON="$fakepy" SEEN="$seen" HOLD="$hold" "$kb" "$run"
wait_for r "event 1/11" > /dev/null
keys r 5 G
wait_for r "event 5/11" > /dev/null
keys r R
wait_for r "y/n" > /dev/null
keys r n
t "n at the question: nothing runs" 'wait_gone r "y/n" && ! has "Re-evaluation of" && [ ! -d "$seen" ]'
keys r R; wait_for r "y/n" > /dev/null; keys r y
t "R: a running indicator while the loop runs" 'wait_for r "RUNNING: check"'
rm -f "$hold.check"
t "R at event 5: the loop got the first version of solution.py" \
	'wait_for r "PASS, peak_fraction 0\.4200" && grep -q version1 "$seen/solution-1.py"'
t "R at event 5: our numbers (0.0500, 0.4200) beside the agent's (0.0610, 0.3100)" \
	'has "0\.0610 .* 0\.0500" && has "peak_fraction +0\.3100 +\| +0\.4200"'
t "R says whose benchmark output the agent's numbers are" 'has "benchmark output at event 5"'
t "the work directory is under \$XDG_CACHE_HOME/kbtui/reeval, not in the run" \
	'ls -d "$tmp"/cache/kbtui/reeval/run-ev5-* > /dev/null 2>&1 && [ ! -e "$run/kbh" ] && [ ! -e "$run/in" ]'
keys r Escape
t "Esc closes the overlay" 'wait_gone r "Re-evaluation of"'
keys r 9 G
wait_for r "event 9/11" > /dev/null
keys r R; wait_for r "y/n" > /dev/null; keys r y
t "R at event 9: the loop got the second version" \
	'wait_for r "PASS, peak_fraction 0\.5500" && grep -q version2 "$seen/solution-2.py"'
t "R at event 9: the agent's 0.0290 / 0.7700 beside our 0.0400 / 0.5500" \
	'has "0\.0290 .* 0\.0400" && has "peak_fraction +0\.7700 +\| +0\.5500"'
keys r G
t "a key the overlay does not take goes to the replay under it: G, the last event; the overlay stays" \
	'wait_for r "event 11/11" && has "Re-evaluation of"'
keys r h
t "h over the overlay: the replay's keys" 'wait_for r "Next run or event; in a focused pane, scroll down"'
keys r Escape
t "a key closes the help: the overlay is back over the replay" \
	'wait_for r "Re-evaluation of" && has "event 11/11" && ! has "Next run or event"'
keys r /
t "/ opens the replay's search prompt under the overlay" 'wait_for r "Enter go  Esc cancel"'
keys r j k q
t "... which takes every key then: j, k and q are typed, the overlay stays" \
	'wait_for r "/jkq" && has "Re-evaluation of"'
keys r Escape
t "Esc closes the prompt, not the overlay" 'wait_gone r "Enter go  Esc cancel" && has "Re-evaluation of"'
keys r q
t "q closes the overlay, not the replay" 'wait_gone r "Re-evaluation of" && ! has "kbtui exited"'
keys r 1 G; wait_for r "event 1/11" > /dev/null
keys r R
t "R before any solution was written says so" 'wait_for r "no solution.py or solution.cu"'

# R on one of our runs (solution.cu): the native loop; a compile error shows
# with its step and nvcc's words
if command -v nvcc > /dev/null 2>&1 || [ -n "$KBTUI_NVCC" ]; then
	cu="$tmp/run-cu"
	mkdir -p "$cu"
	cat > "$cu/transcript.jsonl" <<'EOF2'
{"type":"system","subtype":"init","session_id":"sess-c","cwd":"/w","model":"claude-x","tools":["Write"]}
{"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"toolu_1","name":"Write","input":{"file_path":"/w/solution.cu","content":"#include \"interface.h\"\n\nint broken(void) { return no_such_name; }\n"}}]},"session_id":"sess-c"}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"File created successfully at: /w/solution.cu"}]},"session_id":"sess-c"}
{"type":"result","subtype":"success","is_error":false,"result":"Done.","session_id":"sess-c"}
EOF2
	echo '{"problem":"04_kahan_softmax"}' > "$cu/result.json"
	# the one-pane layout: R paints over the one pane beside the list, at its width
	start k KBTUI_LAYOUT=one XDG_CACHE_HOME="$tmp/cache" KBTUI_HARDWARE=H200 "$kb" "$cu"
	wait_for k "event 1/" > /dev/null
	keys k 3 G; wait_for k "event 3/" > /dev/null
	keys k R; wait_for k "y/n" > /dev/null; keys k y
	t "R on solution.cu: the native loop, FAIL at compile with nvcc's error" \
		'KB_WAIT=3000 wait_for k "native loop" "FAIL at compile" "solution\.cu:3: error: identifier \"no_such_name\" is undefined"'
	keys k q
else
	echo "# SKIP nvcc not found: R on a solution.cu is not shown"
fi

echo "1..$n"
exit $fail
