#!/bin/sh
# kbtui live --headless when the run directory cannot take another byte (a
# full disk, played by RLIMIT_FSIZE with SIGXFSZ ignored, so every write
# past the limit fails with EFBIG): the run ends at once with an error that
# names the file and a non-zero exit, never "done"; transcript.jsonl keeps
# only whole lines (valid JSONL); the tool call the transcript could not
# record is not made; result.json says the run ended in error. Against the
# fake model server tests/fakellm on 127.0.0.1.
kb="$KB_BUILDDIR/kbtui"
fakellm="$KB_BUILDDIR/tests/fakellm"
problems="$KB_SRCDIR/problems"
n=0; fail=0
t() { n=$((n+1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fail=1; fi; }
if [ ! -x "$fakellm" ]; then
	echo "1..0 # SKIP tests/fakellm is not built (make check builds it)"
	exit 0
fi
if ! command -v jq > /dev/null 2>&1; then
	echo "1..0 # SKIP jq is not installed"
	exit 0
fi
tmp=$(mktemp -d)
trap 'kill $llmpid 2> /dev/null; rm -rf "$tmp"' EXIT

# turn 1 records fine; turn 2's text (600 KB) is past the limit, and its
# tool call would leave ran.txt in the work directory
big=$(head -c 600000 /dev/zero | tr '\0' x)
{
	echo '{"text":"first","tool":"bash","args":"{\"command\":\"echo first-tool\"}"}'
	printf '{"text":"%s","chunk":65536,"tool":"bash","args":"{\\"command\\":\\"touch ran.txt\\"}"}\n' "$big"
	echo '{"text":"All done."}'
} > "$tmp/script.ndjson"
"$fakellm" --script "$tmp/script.ndjson" --log "$tmp/llm.log" --timeout 60 > "$tmp/llm.port" 2> "$tmp/llm.err" &
llmpid=$!
port=""; i=0
while [ $i -lt 100 ] && [ -z "$port" ]; do
	port=$(sed -n 's/^port=//p' "$tmp/llm.port"); [ -n "$port" ] || sleep 0.1; i=$((i + 1))
done
[ -n "$port" ] || { echo "# fakellm did not start: $(cat "$tmp/llm.err")"; exit 1; }

run="$tmp/run"
# 400 blocks (200 KiB in dash's 512-byte blocks, 400 KiB in bash's): room for
# the problem's files and the first turn, not the second
(
	trap '' XFSZ
	ulimit -f 400
	OPENAI_API_KEY=sk-test-disk exec "$kb" live --problem 04 --problems "$problems" --model fake-model \
		--base-url "http://127.0.0.1:$port/v1" --no-eval --headless --sandbox none --out "$run"
) > "$tmp/out" 2> "$tmp/err" < /dev/null
rc=$?
tr="$run/transcript.jsonl"
t "a failed write ends the run with a non-zero exit" '[ $rc -ne 0 ]'
t "... saying which file and why" 'grep -q "kbtui live: cannot write .*transcript.jsonl: File too large" "$tmp/err"'
t "... and that the run is incomplete" 'grep -q "is incomplete: a write failed" "$tmp/err"'
t "it never says done" '! grep -q "kbtui live: done" "$tmp/out"'
t "the transcript holds what fitted: the first turn" 'grep -q "first-tool" "$tr"'
t "the transcript is valid JSONL: every line parses, none is cut" \
	'jq -c . "$tr" > "$tmp/parsed" && [ -s "$tr" ] && [ $(wc -l < "$tmp/parsed") -eq $(wc -l < "$tr") ]'
t "... and ends with a whole line" '[ "$(tail -c 1 "$tr" | od -An -c | tr -d " ")" = "\n" ]'
t "... under the limit" '[ $(wc -c < "$tr") -le 409600 ]'
t "the tool call it could not record was not made" '[ ! -e "$run/work/ran.txt" ]'
t "result.json says the run ended in error, naming the file" \
	'jq -e ".end == \"error\" and (.error | test(\"transcript.jsonl: File too large\"))" "$run/result.json" > /dev/null'
t "no third request: the run stopped" '[ $(grep -c . "$tmp/llm.log") -eq 2 ]'
echo "1..$n"
exit $fail
