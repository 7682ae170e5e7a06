#!/bin/sh
# kbtui live replaying real recorded runs (tests/fixtures/kbh, or $KB_KBH) through the live
# path end to end: tests/fakellm --from-transcript turns each assistant
# turn of a recorded run into one streamed reply (OpenAI Chat Completions
# or Anthropic Messages), its tool calls mapped to ours; kbtui live runs
# the tools for real in a work directory and records its own transcript.
# Headless, for a Claude Code run (with thinking) over both protocols, an
# OpenCode run and a Codex run: the recorded live run has the same tool
# calls byte for byte, the thinking as reasoning, real tool results, the
# backend's result.json, and the key in no file. Then the same on the live
# screen in tmux.
. "$KB_SRCDIR/tests/tmux.sh"
KB_WAIT=${KB_WAIT:-300}

fakellm="$KB_BUILDDIR/tests/fakellm"
problems="$KB_SRCDIR/problems"
# Four real runs ship with the tests; KB_KBH=DIR replays another dataset's.
kbh="${KB_KBH:-$KB_SRCDIR/tests/fixtures/kbh}"
KEY="sk-test-SECRET-replay-4242"
if [ ! -x "$fakellm" ]; then
	echo "1..0 # SKIP tests/fakellm is not built (make check builds it)"
	exit 0
fi
if [ ! -d "$kbh/runs" ]; then
	echo "1..0 # SKIP no recorded runs in $kbh"
	exit 0
fi
if ! command -v jq > /dev/null 2>&1; then
	echo "1..0 # SKIP jq is not installed"
	exit 0
fi
# The recorded commands run for real in the sandbox (no network, only the
# work directory writable) when bwrap works here. Without it they must not
# run (they install packages, write to /tmp): a `bash` first in PATH runs
# plain listings and answers the rest with a note.
sandbox=bwrap kbpath=$PATH
if [ -n "$KB_REPLAY_NO_BWRAP" ] || ! command -v bwrap > /dev/null 2>&1 ||
	! bwrap --ro-bind / / --unshare-net true 2> /dev/null; then
	sandbox=none kbpath="$tmp/shim:$PATH"
	mkdir "$tmp/shim"
	cat > "$tmp/shim/bash" <<'EOF'
#!/bin/sh
case $2 in
*[\;\&\|\<\>\`\$\(\)]*) ;;
ls | "ls "*) exec /bin/bash -c "$2" ;;
esac
echo "[replay: not run without a sandbox]"
EOF
	chmod +x "$tmp/shim/bash"
	echo "# no working bwrap: of the recorded commands only plain ls runs"
fi

# the first run of a harness on one of our problems (01..07) with tool calls
pick() {
	for d in "$kbh"/runs/*_"$1"*; do
		case $d in *_0[1-7]_[a-z]*) ;; *) continue ;; esac
		[ -f "$d/transcript.jsonl" ] || continue
		[ -n "$2" ] && ! grep -q "$2" "$d/transcript.jsonl" && continue
		echo "$d"; return 0
	done
	return 1
}
# our problem for a recorded run: its number (01_fp8_gemm -> 01)
problem_of() { basename "$1" | sed -n 's/.*_\(0[1-7]\)_[a-z].*/\1/p'; }

pids=""
trap 'for p in $pids; do kill $p 2> /dev/null; done; tm kill-server > /dev/null 2>&1; rm -rf "$tmp"' EXIT

# serve LABEL RUN [fakellm options]: a fakellm replaying RUN; sets $port
serve() {
	sl=$1 sr=$2; shift 2
	: > "$tmp/$sl.log"
	"$fakellm" --from-transcript "$sr/transcript.jsonl" --log "$tmp/$sl.log" --timeout 600 "$@" \
		> "$tmp/$sl.port" 2> "$tmp/$sl.llmerr" &
	pids="$pids $!"
	port=""; i=0
	while [ $i -lt 100 ] && [ -z "$port" ]; do
		port=$(sed -n 's/^port=//p' "$tmp/$sl.port"); [ -n "$port" ] || sleep 0.1; i=$((i + 1))
	done
	[ -n "$port" ] || echo "# fakellm did not start: $(cat "$tmp/$sl.llmerr")"
}

# The files a run's write_file and edit_file calls left, from its own dump:
# {path: content} for each path written with success, edits applied as the
# results say they were, forgetting a path that a later command names.
cat > "$tmp/files.jq" <<'EOF'
(map(select(.kind == "tool_result")) | map({key: .call_id, value: .text}) | from_entries) as $res
| reduce (.[] | select(.kind == "tool_call")) as $c ({};
    ($c.args | fromjson) as $a
    | if $c.name == "write_file" and $res[$c.call_id] == "wrote \($a.content | utf8bytelength) bytes to \($a.path)"
        then .[$a.path] = $a.content
      elif $c.name == "edit_file" and has($a.path) and $res[$c.call_id] == "edited \($a.path)"
        then .[$a.path] |= (split($a.old_string) | join($a.new_string))
      elif $c.name == "bash"
        then with_entries(select(.key | split("/") | last as $b | $a.command | contains($b) | not))
      else . end)
EOF

# The names of the calls of each turn of a run, from its dump: calls with
# no result between them are one turn's.
cat > "$tmp/turns.jq" <<'EOF'
reduce (.[] | select(.kind == "tool_call" or .kind == "tool_result")) as $e ({turns: [], open: false};
    if $e.kind == "tool_result" then .open = false
    elif .open then .turns[-1] += [$e.name]
    else .turns += [[$e.name]] | .open = true end)
| .turns[]
EOF

# replay LABEL RUN PROVIDER [fakellm options]: one headless replay; leaves
# the script in $tmp/LABEL.script, the run in $tmp/LABEL, its dump in
# $tmp/LABEL.dump and the seconds it took in $secs
replay() {
	rl=$1 rr=$2 rp=$3; shift 3
	prob=$(problem_of "$rr")
	"$fakellm" --from-transcript "$rr/transcript.jsonl" --print-script > "$tmp/$rl.script" 2> "$tmp/$rl.summary"
	serve "$rl" "$rr" "$@"
	if [ "$rp" = anthropic ]; then
		url="http://127.0.0.1:$port" keyvar=ANTHROPIC_API_KEY
	else
		url="http://127.0.0.1:$port/v1" keyvar=OPENAI_API_KEY
	fi
	t0=$(date +%s.%N)
	env PATH="$kbpath" "$keyvar=$KEY" "$kb" live --headless --provider "$rp" --problem "$prob" --problems "$problems" \
		--model replay --base-url "$url" --sandbox $sandbox --max-turns 400 --budget 8m \
		--out "$tmp/$rl" > "$tmp/$rl.out" 2> "$tmp/$rl.err" < /dev/null
	rc=$?
	secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
	"$kb" dump --jsonl "$tmp/$rl/transcript.jsonl" > "$tmp/$rl.dump"
	jq -c '.calls[] | [.name, .args]' "$tmp/$rl.script" > "$tmp/$rl.want"
	jq -c 'select(.kind == "tool_call") | [.name, .args]' "$tmp/$rl.dump" > "$tmp/$rl.got"
	replies=$(grep -c . "$tmp/$rl.script")
	# a recorded run that ends with words ends the replay; one that ends
	# with calls gets the fake's plain last word after them
	turns=$((replies + $(tail -n 1 "$tmp/$rl.script" | jq '.calls | if length > 0 then 1 else 0 end')))
	ncalls=$(grep -c . "$tmp/$rl.want")
	echo "# $rl: $(basename "$rr") over $rp: $(cat "$tmp/$rl.summary" | sed 's/^fakellm: [^:]*: //')"
}

# the checks every replay passes; $3: how many written files at least are
# left as written (1; a run whose commands name every file it wrote: 0)
check_replay() {
	cl=$1 cp=$2 minfiles=${3:-1}
	t "$cl: the replay ends as the recorded run did (exit 0, done)" \
		'[ $rc -eq 0 ] && grep -q "kbtui live: done after $turns turns, $ncalls tool calls" "$tmp/$cl.out"'
	t "$cl: no sanitizer report on stderr" '! grep -qE "runtime error|Sanitizer" "$tmp/$cl.err"'
	t "$cl: fakellm says what it replayed and skipped" \
		'grep -qE "replayed $ncalls calls in $replies replies, skipped [0-9]+" "$tmp/$cl.summary"'
	t "$cl: one request a turn" '[ "$(grep -c . "$tmp/$cl.log")" -eq $turns ]'
	t "$cl: the same tool calls as the recorded run, byte for byte ($ncalls)" \
		'[ "$ncalls" -ge 10 ] && cmp -s "$tmp/$cl.want" "$tmp/$cl.got"'
	t "$cl: the recorded grouping: calls per turn as recorded" \
		'jq -c "[.calls[].name] | select(length > 0)" "$tmp/$cl.script" > "$tmp/$cl.gw" &&
		 jq -sc -f "$tmp/turns.jq" "$tmp/$cl.dump" | cmp -s "$tmp/$cl.gw" -'
	t "$cl: every call has its result" \
		'[ "$(jq -s "[.[] | select(.kind==\"tool_result\")] | length" "$tmp/$cl.dump")" -eq "$ncalls" ]'
	jq -s -f "$tmp/files.jq" "$tmp/$cl.dump" > "$tmp/$cl.files.json"
	writes=$(jq -rs '(map(select(.kind == "tool_result")) | map({key: .call_id, value: .text}) | from_entries) as $res
		| [.[] | select(.kind == "tool_call" and .name == "write_file") | (.args | fromjson) as $a
		   | $res[.call_id] == "wrote \($a.content | utf8bytelength) bytes to \($a.path)"]
		| "\(length) \(map(select(.)) | length)"' "$tmp/$cl.dump")
	t "$cl: write_file results say what was written ($writes)" '[ "${writes% *}" -ge 1 ] && [ "${writes% *}" = "${writes#* }" ]'
	t "$cl: the files written and edited are in the work directory as the run left them" '
		ok=1
		[ "$(jq length "$tmp/$cl.files.json")" -ge "$minfiles" ] || ok=0
		for p in $(jq -r "keys[]" "$tmp/$cl.files.json"); do
			jq -j --arg p "$p" ".[\$p]" "$tmp/$cl.files.json" | cmp -s - "$tmp/$cl/work/$p" || { echo "# differs: $p"; ok=0; }
		done
		[ $ok = 1 ]'
	t "$cl: result.json: no solution.cu (the recorded run wrote Python), so not judged, and says so" \
		'jq -e ".harness == \"kbtui-live\" and .provider == \"$cp\" and .has_solution == false and .correct == false and
		        .judged == \"no: the eval backend did not run\" and .turns == $turns and .session_complete == true" \
		 "$tmp/$cl/result.json" > /dev/null'
	t "$cl: the headless log is UTF-8: no character cut in two" \
		'! command -v iconv > /dev/null || iconv -f UTF-8 -t UTF-8 "$tmp/$cl.out" > /dev/null 2>&1'
	t "$cl: the key is in no file of the run" '! grep -rqF "$KEY" "$tmp/$cl"'
	t "$cl: ... nor in fakellm's log, nor in the output" \
		'! grep -qF "$KEY" "$tmp/$cl.log" "$tmp/$cl.out" "$tmp/$cl.err" "$tmp/$cl.llmerr"'
}

# ---- Claude Code with thinking, over both protocols --------------------------------
cc=$(pick zai-claude '"thinking":"[A-Za-z]') || cc=$(pick minimax-claude '"thinking":"[A-Za-z]')
if [ -n "$cc" ]; then
	replay cc_an "$cc" anthropic
	echo "# cc_an: $ncalls calls, $replies replies, $(grep -c . "$tmp/cc_an.dump") events in $secs s"
	check_replay cc_an anthropic
	t "cc_an: skipped tools are named (TodoWrite)" 'grep -q "TodoWrite x" "$tmp/cc_an.summary"'
	t "cc_an: a bash ls of the recorded problem folder lists our problem's files" \
		'jq -r "select(.kind==\"tool_result\") | .text" "$tmp/cc_an.dump" | grep -q "^reference.cu$" &&
		 jq -r "select(.kind==\"tool_result\") | .text" "$tmp/cc_an.dump" | grep -q "^PROMPT.txt$"'
	t "cc_an: the recorded thinking is the live run's reasoning, turn by turn" \
		'jq -c "select(.reasoning) | .reasoning" "$tmp/cc_an.script" > "$tmp/cc_an.rw" && [ -s "$tmp/cc_an.rw" ] &&
		 jq -c "select(.kind==\"reasoning\") | .text" "$tmp/cc_an.dump" | cmp -s "$tmp/cc_an.rw" -'
	t "cc_an: ... and the recorded text its text" \
		'jq -c "select(.text) | .text" "$tmp/cc_an.script" > "$tmp/cc_an.tw" && [ -s "$tmp/cc_an.tw" ] &&
		 jq -c "select(.kind==\"text\" and .text != \"done\") | .text" "$tmp/cc_an.dump" | cmp -s "$tmp/cc_an.tw" -'
	t "cc_an: thinking goes back to the API with its signature" \
		'sed -n 2p "$tmp/cc_an.log" | grep -q "\"type\":\"thinking\",\"thinking\":\"[^\"]*.*\"signature\":\"sig-fake-0\""'

	replay cc_oa "$cc" openai
	check_replay cc_oa openai
	t "cc_oa: the thinking arrives as reasoning_content and is recorded as reasoning" \
		'jq -c "select(.kind==\"reasoning\") | .text" "$tmp/cc_oa.dump" | cmp -s "$tmp/cc_an.rw" -'
else
	echo "# SKIP no Claude Code run with thinking on problems 01-07"
fi

# ---- the final eval: the replay, then a hand-written reply that leaves a solution.cu ----
if [ -n "$cc" ]; then
	prob=$(problem_of "$cc")
	base=$(ls -d "$problems/${prob}"_*)/baseline.cu
	jq -nc --rawfile c "$base" '{text: "Writing the kernel.", calls: [{name: "write_file",
		args: ({path: "solution.cu", content: $c} | tojson)}]}' > "$tmp/extra.jsonl"
	serve ev "$cc" --script "$tmp/extra.jsonl"
	PATH="$kbpath" ANTHROPIC_API_KEY=$KEY "$kb" live --headless --provider anthropic --problem "$prob" --problems "$problems" \
		--model replay --base-url "http://127.0.0.1:$port" --sandbox $sandbox --budget 8m \
		--out "$tmp/ev" > "$tmp/ev.out" 2> "$tmp/ev.err" < /dev/null
	t "eval: the run ends with the solution.cu beside its transcript" \
		'cmp -s "$base" "$tmp/ev/solution.cu" && jq -e ".has_solution == true" "$tmp/ev/result.json" > /dev/null'
	if nvidia-smi -L > /dev/null 2>&1; then
		t "eval: result.json is the eval backend's (a GPU is here)" \
			'jq -e ".harness == \"kbtui-eval\" and (.correct | type) == \"boolean\"" "$tmp/ev/result.json" > /dev/null'
	else
		echo "# no GPU here: result.json says the backend did not judge, and why: $(jq -r .judged "$tmp/ev/result.json")"
		t "eval: no GPU: result.json says the backend did not run, and why" \
			'jq -e ".harness == \"kbtui-live\" and .correct == false and
			        (.judged | startswith(\"no: the eval backend did not run: \") and length > 40)" "$tmp/ev/result.json" > /dev/null'
	fi
	t "eval: the key is in no file" '! grep -rqF "$KEY" "$tmp/ev" "$tmp/ev.log"'
fi

# ---- OpenCode over OpenAI ---------------------------------------------------------------
oc=$(pick opencode '"tool":"write"')
if [ -n "$oc" ]; then
	replay oc "$oc" openai
	check_replay oc openai
	t "oc: opencode's filePath arguments became paths of the work directory" \
		'jq -r ".[1] | fromjson | .path // empty" "$tmp/oc.got" > "$tmp/oc.paths" && [ -s "$tmp/oc.paths" ] &&
		 ! grep -q "^/" "$tmp/oc.paths"'
else
	echo "# SKIP no OpenCode run on problems 01-07"
fi

# ---- Codex over Anthropic ------------------------------------------------------------
cx=$(pick codex)
if [ -n "$cx" ]; then
	replay cx "$cx" anthropic
	# its commands name the files its patches wrote: none is known to stay
	check_replay cx anthropic 0
	t "cx: exec_command became bash, write_stdin is skipped" \
		'grep -q "write_stdin x" "$tmp/cx.summary" && grep -q "^\[\"bash\"" "$tmp/cx.got"'
else
	echo "# SKIP no Codex run on problems 01-07"
fi

# ---- a long run, timed -------------------------------------------------------------------
long=$(pick claude_claude-opus-4-7)
if [ -n "$long" ]; then
	replay long "$long" openai
	ev=$(grep -c . "$tmp/long.dump")
	echo "# long replay: $ncalls calls in $replies replies, $ev events in $secs s ($(awk -v e="$ev" -v s="$secs" 'BEGIN { printf "%.0f", e / s }') events/s), $(du -k "$tmp/long.log" | cut -f1) KiB of requests"
	t "long: the same $ncalls tool calls" '[ $rc -eq 0 ] && cmp -s "$tmp/long.want" "$tmp/long.got"'
	t "long: the key is in no file" '! grep -rqF "$KEY" "$tmp/long" "$tmp/long.log"'
fi

# ---- on the live screen -----------------------------------------------------------------
if [ -n "$cc" ]; then
	serve L "$cc" --chunk 6 --delay-ms 15
	start L PATH="$kbpath" ANTHROPIC_API_KEY=$KEY "$kb" live --provider anthropic --problem "$(problem_of "$cc")" \
		--problems "$problems" --model replay --base-url "http://127.0.0.1:$port" --sandbox $sandbox \
		--max-turns 3 --out "$tmp/L"
	jq -r "select(.reasoning) | .reasoning" "$tmp/cc_an.script" | head -n 1 | cut -c1-30 > "$tmp/L.think"
	jq -r "select(.text) | .text" "$tmp/cc_an.script" | head -n 1 | cut -c1-30 > "$tmp/L.text"
	t "screen: the recorded thinking streams in, the status line counts the turn" \
		'wait_for L "think +$(sed "s/[][().*+?|\\\\^$]/./g" "$tmp/L.think")" "LIVE \\| turn 1 "'
	t "screen: the recorded text" 'wait_for L "text +$(sed "s/[][().*+?|\\\\^$]/./g" "$tmp/L.text")"'
	t "screen: the replayed calls by name, with their results" \
		'wait_for L "call +bash ls \\./" "result +bash PROMPT\\.txt" "call +read_file"'
	t "screen: the turn budget ends the run, the status line says so" 'wait_for L "ENDED: turn budget spent \\| turn 3 \\|"'
	t "screen: the calls of 3 turns, as recorded" \
		'head -n 3 "$tmp/cc_an.script" | jq -c ".calls[] | [.name, .args]" > "$tmp/L.want" &&
		 "$kb" dump --jsonl "$tmp/L/transcript.jsonl" | jq -c "select(.kind==\"tool_call\") | [.name, .args]" | cmp -s "$tmp/L.want" -'
	keys L q
	t "screen: q leaves (exit 1: a budget ended the run)" 'wait_for L "kbtui exited: 1"'
	t "screen: no sanitizer report on stderr" '! grep -qE "runtime error|Sanitizer" "$tmp/L.err"'

	# the whole run at full speed: the screen parses the transcript while
	# the agent writes it, turn after turn
	serve F "$cc"
	start F PATH="$kbpath" ANTHROPIC_API_KEY=$KEY "$kb" live --provider anthropic --problem "$(problem_of "$cc")" \
		--problems "$problems" --model replay --base-url "http://127.0.0.1:$port" --sandbox $sandbox \
		--out "$tmp/F"
	fturns=$(grep -c . "$tmp/cc_an.script")
	t "screen: the whole recorded run replays to its end ($((fturns + 1)) turns)" \
		'wait_for F "ENDED: done \\| turn $((fturns + 1)) \\|"'
	t "screen: ... with the same calls" \
		'"$kb" dump --jsonl "$tmp/F/transcript.jsonl" | jq -c "select(.kind==\"tool_call\") | [.name, .args]" |
		 cmp -s "$tmp/cc_an.want" -'
	keys F q
	t "screen: q leaves, exit 0" 'wait_for F "kbtui exited: 0"'
	t "screen: no sanitizer report on stderr (the whole run)" '! grep -qE "runtime error|Sanitizer" "$tmp/F.err"'
	t "screen: the key was on no screen, in no file" '! grep -qF "$KEY" "$scr" "$tmp/L.err" "$tmp/F.err" && ! grep -rqF "$KEY" "$tmp/L" "$tmp/F"'
fi

echo "1..$n"
exit $fail
