#!/bin/sh
# kbtui dump and a cold kbtui search in bounded memory (issue #28): their
# peak RSS follows the number of events, not their text. Two runs of the same 40001 events, one with
# results of 4x the text of the other, must take nearly the same memory,
# and far less than the transcript. Loose ratios only (the machine is
# shared; malloc's habits vary); skipped without /usr/bin/time or under
# AddressSanitizer, whose quarantine keeps freed memory on purpose.
kb="$KB_BUILDDIR/kbtui"
n=0; fail=0
t() { n=$((n+1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fail=1; sed 's/^/# /' "$tmp/err"; fi; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
if [ ! -x /usr/bin/time ] || grep -aq __asan_init "$kb"; then
	echo "# SKIP no /usr/bin/time, or a sanitizer build"
	echo "1..0"
	exit 0
fi

# run TURNS BYTES FILE: a Claude Code stream-json run of TURNS tool calls,
# each answered by a result of BYTES bytes (40001 events for 20000 turns)
run() {
	awk -v turns="$1" -v bytes="$2" 'BEGIN {
		pad = "shape 4096x4096: 1.000 ms, tflops=300.0, the kernel spills no registers; ";
		while (length(body) < bytes) body = body pad;
		body = substr(body, 1, bytes);
		print "{\"type\":\"system\",\"subtype\":\"init\",\"cwd\":\"/w\",\"session_id\":\"s\",\"tools\":[\"Bash\"],\"mcp_servers\":[],\"model\":\"m\",\"permissionMode\":\"bypassPermissions\"}";
		for (i = 0; i < turns; i++) {
			printf "{\"type\":\"assistant\",\"message\":{\"id\":\"msg_%d\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[{\"type\":\"tool_use\",\"id\":\"toolu_%d\",\"name\":\"Bash\",\"input\":{\"command\":\"./sol --bench %d\"}}]},\"parent_tool_use_id\":null,\"session_id\":\"s\",\"uuid\":\"a%d\"}\n", i, i, i, i;
			printf "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_%d\",\"content\":\"%d %s\"}]},\"parent_tool_use_id\":null,\"session_id\":\"s\",\"uuid\":\"u%d\"}\n", i, i, body, i;
		}
	}' > "$3"
}
# rss FILE MODE: peak RSS in KB of kbtui dump MODE FILE; checks it went well
rss() {
	/usr/bin/time -f %M -o "$tmp/rss" "$kb" dump $2 "$1" > "$tmp/out" 2> "$tmp/err"
	echo "$? $(wc -l < "$tmp/out") $(cat "$tmp/rss")"
}
run 20000 500 "$tmp/small.jsonl"
run 20000 2000 "$tmp/big.jsonl"
small=$(wc -c < "$tmp/small.jsonl"); big=$(wc -c < "$tmp/big.jsonl")
for mode in "" --jsonl; do
	set -- $(rss "$tmp/small.jsonl" "$mode"); rc=$1 lines=$2 rs=$3
	t "dump ${mode:-(text)} of 40001 events: exit 0, every event, nothing on stderr" '[ $rc = 0 ] && [ $lines = 40001 ] && [ ! -s "$tmp/err" ]'
	set -- $(rss "$tmp/big.jsonl" "$mode"); rc=$1 lines=$2 rb=$3
	t "dump ${mode:-(text)} of 40001 events with 4x the text: exit 0, every event, nothing on stderr" '[ $rc = 0 ] && [ $lines = 40001 ] && [ ! -s "$tmp/err" ]'
	echo "# dump ${mode:-(text)}: $rs KB for $((small / 1024)) KB, $rb KB for $((big / 1024)) KB"
	# a whole load took about twice the file; this is well under half of it
	t "dump $mode: peak RSS under half the transcript ($rb KB for $((big / 1024)) KB)" '[ $((rb * 1024)) -lt $((big / 2)) ]'
	# 30 MB more text, and the memory grows by less than a fifth of it
	t "dump $mode: 4x the text, RSS grows by under a fifth of the bytes added ($rs -> $rb KB)" \
		'[ $(((rb - rs) * 1024)) -lt $(((big - small) / 5)) ]'
done
# kbtui search reads a run the cache does not know the same way (issue
# #28): each settled slice searched, written to the cache entry, dropped
srss() {
	XDG_CACHE_HOME="$tmp/cache" /usr/bin/time -f %M -o "$tmp/rss" "$kb" search -c tflops "$1" > "$tmp/out" 2> "$tmp/err"
	echo "$? $(cat "$tmp/out") $(cat "$tmp/rss")"
}
set -- $(srss "$tmp/small.jsonl"); rc=$1 got=$2 rs=$3
t "search -c of 40001 events: every result's line counted, exit 0, nothing on stderr" '[ $rc = 0 ] && [ "$got" = "small.jsonl:20000" ] && [ ! -s "$tmp/err" ]'
set -- $(srss "$tmp/big.jsonl"); rc=$1 got=$2 rb=$3
t "... with 4x the text: the same, exit 0, nothing on stderr" '[ $rc = 0 ] && [ "$got" = "big.jsonl:20000" ] && [ ! -s "$tmp/err" ]'
echo "# search, cold cache: $rs KB for $((small / 1024)) KB, $rb KB for $((big / 1024)) KB"
t "search, cold cache: peak RSS under half the transcript ($rb KB for $((big / 1024)) KB)" '[ $((rb * 1024)) -lt $((big / 2)) ]'
t "search: 4x the text, RSS grows by under a fifth of the bytes added ($rs -> $rb KB)" \
	'[ $(((rb - rs) * 1024)) -lt $(((big - small) / 5)) ]'
t "and both runs' text went into the cache, whole" '[ $(ls "$tmp/cache/kbtui/text" | wc -l) -eq 2 ]'
XDG_CACHE_HOME="$tmp/cache" "$kb" search -c tflops "$tmp/big.jsonl" > "$tmp/out2" 2> "$tmp/err"; rc=$?
t "searched again from that entry: the same count" '[ $rc = 0 ] && cmp -s "$tmp/out" "$tmp/out2"'

echo "1..$n"
exit $fail
