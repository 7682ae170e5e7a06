#!/bin/sh
# kbtui live on a screen, against a fake OpenAI-compatible server on
# 127.0.0.1 (tests/fakellm, scripted below): streamed reasoning and text
# appear before the turn is recorded, the tool call and its result appear,
# the status line shows turn and tokens; | pauses after the turn, : sends a
# message that reaches the server with the next request, X y aborts and the
# transcript says so; the API key is on no screen and in no file of the run.
# Then --sandbox errors, and the GPU pane: no device (a library that is not
# there) and a fake libnvidia-ml built here (the real dlopen path).
. "$KB_SRCDIR/tests/tmux.sh"
# the fake model streams for seconds at a time: waits may take longer
KB_WAIT=${KB_WAIT:-150}

fakellm="$KB_BUILDDIR/tests/fakellm"
problems="$KB_SRCDIR/problems"
KEY="sk-test-SECRET123"
if [ ! -x "$fakellm" ]; then
	echo "1..0 # SKIP tests/fakellm is not built (make check builds it)"
	exit 0
fi

seen="$tmp/seen"        # every screen looked at, for the key scan
: > "$seen"
w() { wait_for "$@"; wr=$?; cat "$scr" >> "$seen"; return $wr; }

# ---- the fake server ------------------------------------------------------------
cat > "$tmp/script.ndjson" <<'EOF'
{"reasoning":"I should read the reference first.","text":"Streaming hello from the fake model, one piece at a time until the end, slowly enough that a person (or a test) can watch it grow and press a key before it is done.","tool":"bash","args":"{\"command\":\"echo tool-output-xyz; echo key=${OPENAI_API_KEY:-none}\"}","chunk":3,"delay_ms":120,"prompt_tokens":1234,"completion_tokens":56}
{"text":"Got your message.","tool":"bash","args":"{\"command\":\"echo second-tool\"}","prompt_tokens":2000,"completion_tokens":70}
{"text":"Third turn that streams for a long while so that it can be aborted ........................................................................................................................................................................................................................","chunk":2,"delay_ms":150,"prompt_tokens":3000,"completion_tokens":90}
EOF
: > "$tmp/llm.log"
"$fakellm" --script "$tmp/script.ndjson" --log "$tmp/llm.log" --timeout 170 > "$tmp/llm.port" 2> "$tmp/llm.err" &
llmpid=$!
port=""; i=0
while [ $i -lt 100 ] && [ -z "$port" ]; do
	port=$(sed -n 's/^port=//p' "$tmp/llm.port"); [ -n "$port" ] || sleep 0.1; i=$((i + 1))
done
[ -n "$port" ] || { echo "# fakellm did not start: $(cat "$tmp/llm.err")"; exit 1; }
trap 'kill $llmpid 2> /dev/null; tm kill-server > /dev/null 2>&1; rm -rf "$tmp"' EXIT
requests() { grep -c . "$tmp/llm.log"; }

run="$tmp/run"
start L KBTUI_LAYOUT=one OPENAI_API_KEY=$KEY "$kb" live --problem 04 --problems "$problems" --model fake-model \
	--base-url "http://127.0.0.1:$port/v1" --no-eval --out "$run"

# ---- streaming ------------------------------------------------------------------
t "reasoning streams onto the screen" 'w L "think +I should read the reference"'
t "text streams onto the screen before the turn is recorded" \
	'w L "text +Streaming hello" && ! grep -q "Streaming hello" "$run/transcript.jsonl"'
t "... the list shows it after the events, unnumbered; the detail pane under the last event" \
	'w L "^ *~ +text +Streaming hello" && has "streaming: text, not recorded yet"'
t "the status line says LIVE, turn 1" 'has "LIVE \\| turn 1 \\|"'
t "the header says kbtui live" 'line 1 | grep -q "^ kbtui live "'
keys L '|'
t "| asks for a pause after the current turn" 'w L "pausing after this turn"'
t "the tool call appears" 'w L "call +bash echo tool-output-xyz"'
t "its result appears (no key in the tool environment)" 'w L "result +bash tool-output-xyz"'
t "the agent waits: PAUSED, with turn and tokens on the status line" \
	'w L "PAUSED \\| turn 1 \\| tokens 1\\.2k in, 56 out \\|"'
t "the whole text was streamed" 'has "Streaming hello from the fake model, one piece"'
t "paused: no second request was sent" '[ "$(requests)" -eq 1 ]'

# ---- a message --------------------------------------------------------------------
keys L ':'
t ": asks for a message on the status line" 'w L "message to the agent"'
keys L -l 'hello-agent-777'
keys L Enter
t "the message is queued" 'w L "PAUSED \\(message queued\\)"'
keys L '|'
t "| resumes: the second request is sent" 'i=0; while [ "$(requests)" -lt 2 ] && [ $i -lt 80 ]; do sleep 0.1; i=$((i+1)); done; [ "$(requests)" -ge 2 ]'
t "... and carries the message to the server" 'sed -n 2p "$tmp/llm.log" | grep -q "hello-agent-777"'
t "the message is in the run as a user event" 'w L "user +hello-agent-777"'
t "the second turn's tool runs" 'w L "result +bash second-tool"'

# ---- abort ----------------------------------------------------------------------------
t "the third turn streams, turn 3 on the status line" 'w L "text +Third turn that streams" "LIVE \\| turn 3 \\| tokens 3\\.2k in, 126 out"'
keys L X
t "X asks first" 'w L "abort the run\\? \\(y/n\\)"'
keys L n
t "n keeps the run going" 'w L "LIVE \\| turn 3" && ! has "ENDED"'
keys L X
w L "abort the run\\?" > /dev/null
keys L y
t "y aborts: the screen stays, saying how it ended" 'w L "ENDED: aborted \\| turn 3 \\|.*q quits"'
t "the transcript records the abort" 'tail -n 1 "$run/transcript.jsonl" | grep -q "\"subtype\":\"error_aborted\""'
t "the run stays on screen after the end" 'has "user +hello-agent-777" && has "call +bash echo tool-output-xyz"'
keys L q
t "q leaves; exit status 1 for an aborted run" 'w L "kbtui exited: 1"'
t "the summary line is printed after the screen" 'has "kbtui live: aborted after 3 turns, 2 tool calls"'

# ---- abort while paused, with a budget --------------------------------------------
cat > "$tmp/script2.ndjson" <<'EOF'
{"text":"A first turn long enough to press a key while it streams, and then some more words.","tool":"bash","args":"{\"command\":\"true\"}","chunk":3,"delay_ms":100}
EOF
: > "$tmp/llm2.log"
"$fakellm" --script "$tmp/script2.ndjson" --log "$tmp/llm2.log" --timeout 100 > "$tmp/llm2.port" 2> /dev/null &
llm2pid=$!
port2=""; i=0
while [ $i -lt 100 ] && [ -z "$port2" ]; do
	port2=$(sed -n 's/^port=//p' "$tmp/llm2.port"); [ -n "$port2" ] || sleep 0.1; i=$((i + 1))
done
start P OPENAI_API_KEY=$KEY "$kb" live --problem 04 --problems "$problems" --model fake-model \
	--base-url "http://127.0.0.1:$port2/v1" --no-eval --budget 10m --out "$tmp/run2"
w P "text +A first turn" > /dev/null
keys P '|'
t "with --budget the status line shows the budget" 'w P "PAUSED \\| turn 1 \\| .* / 10:00"'
keys P X
w P "abort the run\\?" > /dev/null
keys P y
t "X y while paused ends the run at once, at turn 1" 'w P "ENDED: aborted \\| turn 1 \\|"'
t "... no second request was sent" '[ "$(grep -c . "$tmp/llm2.log")" -eq 1 ]'
t "... and the transcript records one turn, aborted" \
	'tail -n 1 "$tmp/run2/transcript.jsonl" | grep -q "\"subtype\":\"error_aborted\".*\"num_turns\":1,"'
keys P q
kill $llm2pid 2> /dev/null

# ---- the key ------------------------------------------------------------------------
nfiles=$(find "$run" "$tmp/run2" -type f | wc -l)
echo "# key scan: $nfiles files in the run directories: $(cd "$tmp" && find run run2 -type f | sort | tr '\n' ' ')"
t "the runs wrote files to scan ($nfiles)" '[ "$nfiles" -ge 8 ]'
t "the API key is in no file the runs wrote" '! grep -rqF "$KEY" "$run" "$tmp/run2"'
t "the API key was on no screen" '[ -s "$seen" ] && ! grep -qF "$KEY" "$seen"'
t "... nor in the error output" '! grep -qF "$KEY" "$tmp/L.err"'
t "the tool's environment had no key" 'grep -q "key=none" "$run/transcript.jsonl"'
t "no request body carried the key" '! grep -qF "$KEY" "$tmp/llm.log"'

# ---- --sandbox ------------------------------------------------------------------------
OPENAI_API_KEY=$KEY KBTUI_BWRAP=/nonexistent/bwrap "$kb" live --problem 04 --problems "$problems" \
	--model m --base-url "http://127.0.0.1:$port/v1" --sandbox bwrap --headless --out "$tmp/sb" \
	> "$tmp/sb.out" 2> "$tmp/sb.err" < /dev/null
rc=$?
t "--sandbox bwrap without bwrap fails (exit 1)" '[ $rc -eq 1 ]'
t "... saying why" 'grep -q "kbtui live: --sandbox bwrap: bwrap: KBTUI_BWRAP does not name a program" "$tmp/sb.err"'
t "... before anything runs" '[ ! -e "$tmp/sb" ]'
OPENAI_API_KEY=$KEY "$kb" live --problem 04 --model m --sandbox docker --headless > /dev/null 2> "$tmp/sb.err" < /dev/null
rc=$?
t "--sandbox docker is a usage error (exit 2)" '[ $rc -eq 2 ] && grep -q "sandbox is none or bwrap" "$tmp/sb.err"'

# ---- the GPU pane ---------------------------------------------------------------------
# v until the pane beside the list is the GPU pane
to_gpu() {
	i=0
	while [ $i -lt 9 ]; do
		cap "$1"
		grep -qE "│ gpu  " "$scr" && return 0
		keys "$1" v; sleep 0.3; i=$((i + 1))
	done
	return 1
}
start G0 KBTUI_NVML_LIB=/nonexistent/libnvidia-ml.so.1 "$kb" "$run/transcript.jsonl"
w G0 "events" > /dev/null
t "v reaches the GPU pane" 'to_gpu G0'
t "without a device it says so, and why" 'w G0 "no NVIDIA device: cannot load /nonexistent/libnvidia-ml\\.so\\.1"'
keys G0 q

if command -v cc > /dev/null 2>&1 &&
	cc -shared -fPIC -o "$tmp/libfakenvml.so" "$KB_SRCDIR/tests/fixtures/nvml/fake_nvml.c" 2> "$tmp/cc.err"; then
	start G1 KBTUI_NVML_LIB="$tmp/libfakenvml.so" "$kb" "$run/transcript.jsonl"
	w G1 "events" > /dev/null
	to_gpu G1 > /dev/null
	t "a fake libnvidia-ml: the device's name" 'w G1 "Fake GPU 9000"'
	t "... utilisation, memory, SM clock, temperature, power" \
		'has "utilisation +42 %" && has "memory +3\\.0 / 8\\.0 GiB \\(38 %\\)" && has "SM clock +1234 MHz" && has "temperature +56 C" && has "power +78\\.5 W"'
	t "... a sparkline beside utilisation" 'grep -E "utilisation +42 %" "$scr" | grep -qE "[▁▂▃▄▅▆▇█_.:#=]"'
	t "readings are taken about once a second while the pane shows" 'w G1 "[3-9] readings, one a second"'
	keys G1 q
else
	echo "# SKIP no C compiler for the fake libnvidia-ml: $(cat "$tmp/cc.err" 2> /dev/null)"
fi

kill $llmpid 2> /dev/null
echo "1..$n"
exit $fail
