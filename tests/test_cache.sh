#!/bin/sh
# The cache kbtui keeps under $XDG_CACHE_HOME/kbtui, as a user meets it
# through `kbtui search`, `kbtui runs` and `kbtui cache`: every one-byte
# damage of an entry leaves search's result as it was (and the entry is
# rebuilt); links planted at an entry's name, a table's name or the names
# of older temporary files are never written through; a directory others
# can write, or that another user owns, is not used and said so once; the
# bound removes the entries used longest ago; hard links share one entry.
kb="$KB_BUILDDIR/kbtui"; n=0; fail=0
t() { n=$((n+1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fail=1; fi; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache"
unset KBTUI_NO_CACHE KBTUI_CACHE_MAX

# ---- a dataset of three small claude runs ------------------------------------------
ds="$tmp/ds"
mkdir -p "$ds/runs/r1" "$ds/runs/r2" "$ds/runs/r3" "$ds/annotations"
asst() { printf '{"type":"assistant","message":{"id":"%s","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"%s"}],"stop_reason":null,"usage":{"input_tokens":1,"output_tokens":1}},"session_id":"s","uuid":"00000000-0000-4000-8000-00000000000%s"}\n' "$1" "$2" "$3"; }
asst m1 'tflops=2 here\\nplain' 1 > "$ds/runs/r1/transcript.jsonl"
{ asst m1 'nothing' 1; asst m2 'maybe tflops=5' 2; } > "$ds/runs/r2/transcript.jsonl"
asst m1 'a longer run of words with tflops=7 in it and more words after that' 1 > "$ds/runs/r3/transcript.jsonl"
for r in r1 r2 r3; do
	printf '{"run_id":"%s","harness":"claude","model":"m","problem":"01_fp8_gemm","transcript":"runs/%s/transcript.jsonl"}\n' $r $r
done > "$ds/runs.jsonl"
printf 'run_id: r1\nverdict: clean\n' > "$ds/annotations/r1.yaml"
# files changed in the last two seconds are not kept (the racy rule)
touch -d '-1 min' "$ds/annotations/r1.yaml" "$ds"/runs/*/transcript.jsonl

"$kb" search 'tflops=' "$ds/runs/r1" > "$tmp/want" 2> "$tmp/err"; rc=$?
t "a first search: exit 0, its line, nothing on stderr" '[ $rc -eq 0 ] && grep -q "tflops=2 here" "$tmp/want" && [ ! -s "$tmp/err" ]'
t "the cache directory and its text folder are mode 700" \
	'[ "$(stat -c %a "$tmp/cache/kbtui")" = 700 ] && [ "$(stat -c %a "$tmp/cache/kbtui/text")" = 700 ]'
ent=$(ls "$tmp/cache/kbtui/text/"* 2>/dev/null | head -1)
t "one entry, mode 600" '[ $(ls -A "$tmp/cache/kbtui/text" | wc -l) -eq 1 ] && [ "$(stat -c %a "$ent")" = 600 ]'
cp "$ent" "$tmp/entry.good"

# ---- every byte of the entry damaged in turn -----------------------------------------
size=$(stat -c %s "$ent"); same=1; quiet=1; rebuilt=1; i=0
while [ $i -lt "$size" ]; do
	cp "$tmp/entry.good" "$ent"
	b=$(dd if="$ent" bs=1 skip=$i count=1 2>/dev/null | od -An -tu1 | tr -d ' ')
	if [ "$b" = 65 ]; then c=B; else c=A; fi
	printf '%s' "$c" | dd of="$ent" bs=1 seek=$i conv=notrunc 2>/dev/null
	"$kb" search 'tflops=' "$ds/runs/r1" > "$tmp/out" 2> "$tmp/err"; rc=$?
	[ $rc -eq 0 ] && cmp -s "$tmp/out" "$tmp/want" || { same=0; echo "# byte $i: result changed (rc $rc)"; }
	[ -s "$tmp/err" ] && { quiet=0; echo "# byte $i: $(head -1 "$tmp/err")"; }
	cmp -s "$ent" "$tmp/entry.good" || { rebuilt=0; echo "# byte $i: entry not rebuilt"; }
	i=$((i+1))
done
t "each of the entry's $size bytes damaged: the same result, exit 0" '[ $same -eq 1 ] && [ $size -gt 100 ]'
t "and nothing said on stderr (a damaged entry is rebuilt silently)" '[ $quiet -eq 1 ]'
t "and the entry rebuilt as it was" '[ $rebuilt -eq 1 ]'
cp "$tmp/entry.good" "$ent"; truncate -s 20 "$ent"
"$kb" search 'tflops=' "$ds/runs/r1" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "an entry cut short: the same result, silently" '[ $rc -eq 0 ] && cmp -s "$tmp/out" "$tmp/want" && [ ! -s "$tmp/err" ]'

# ---- links planted ---------------------------------------------------------------------
echo precious > "$tmp/victim"
rm -f "$ent"; ln -s "$tmp/victim" "$ent"
"$kb" search 'tflops=' "$ds/runs/r1" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "a link at the entry's name: the same result" '[ $rc -eq 0 ] && cmp -s "$tmp/out" "$tmp/want" && [ ! -s "$tmp/err" ]'
t "the link's target untouched, the link replaced by an entry" \
	'[ "$(cat "$tmp/victim")" = precious ] && [ ! -L "$ent" ] && cmp -s "$ent" "$tmp/entry.good"'
# older versions wrote ENTRY.PID.tmp: links at the names of the next pids
rm -f "$ent"
p=$(sh -c 'echo $$'); k=0
while [ $k -lt 300 ]; do ln -s "$tmp/victim" "$ent.$((p+k)).tmp"; ln -s "$tmp/victim" "$ent.tmp.$((p+k))"; k=$((k+1)); done
"$kb" search 'tflops=' "$ds/runs/r1" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "links at the temporary names of the next 300 pids: the same result" '[ $rc -eq 0 ] && cmp -s "$tmp/out" "$tmp/want"'
t "their target untouched, the entry written" '[ "$(cat "$tmp/victim")" = precious ] && cmp -s "$ent" "$tmp/entry.good"'
rm -f "$ent".*
"$kb" runs "$ds" > /dev/null 2> "$tmp/err"
tab=$(ls "$tmp/cache/kbtui/verdicts/"* 2>/dev/null | head -1)
t "kbtui runs kept the verdicts in a table" '[ -n "$tab" ] && grep -q clean "$tab"'
rm -f "$tab"; ln -s "$tmp/victim" "$tab"
"$kb" runs "$ds" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "a link at the table's name: its target untouched, the table written in its place" \
	'[ $rc -eq 0 ] && [ "$(cat "$tmp/victim")" = precious ] && [ ! -L "$tab" ] && grep -q clean "$tab"'

# ---- kbtui cache ---------------------------------------------------------------------------
"$kb" cache --stats > "$tmp/out" 2> "$tmp/err"; rc=$?
t "cache --stats: exit 0, the text and verdicts folders and the total against the 1 GB cap" \
	'[ $rc -eq 0 ] && grep -qE "^  text +1 entries" "$tmp/out" && grep -qE "^  verdicts +1 entries" "$tmp/out" && grep -q "of 1.00 GB" "$tmp/out" && [ ! -s "$tmp/err" ]'
"$kb" cache --clear > "$tmp/out" 2> "$tmp/err"; rc=$?
t "cache --clear: exit 0, says what it removed" '[ $rc -eq 0 ] && grep -q "^removed 2 entries" "$tmp/out" && [ -z "$(ls -A "$tmp/cache/kbtui/text")" ]'
"$kb" cache --stats --clear > /dev/null 2> "$tmp/err"; rc=$?
t "--stats with --clear: usage error, exit 2" '[ $rc -eq 2 ] && grep -q "not both" "$tmp/err"'
KBTUI_NO_CACHE=1 "$kb" cache > "$tmp/out" 2> "$tmp/err"; rc=$?
t "KBTUI_NO_CACHE: the cache is off, exit 0" '[ $rc -eq 0 ] && grep -q "is off" "$tmp/out"'

# ---- the bound: the entry used longest ago goes -------------------------------------------
for r in r1 r2 r3; do "$kb" search x "$ds/runs/$r" > /dev/null; done
s1=$(stat -c %s "$tmp/cache/kbtui/text/"* | awk '{ s += $1 } END { print s }')
"$kb" cache --clear > /dev/null
"$kb" search x "$ds/runs/r1" > /dev/null; e1=$(ls "$tmp/cache/kbtui/text/"*); touch -d '-2 hours' "$e1"
"$kb" search x "$ds/runs/r2" > /dev/null; e2=$(ls -t "$tmp/cache/kbtui/text/"* | head -1); touch -d '-1 hour' "$e2"
KBTUI_CACHE_MAX=$((s1 - 1)) "$kb" search x "$ds/runs/r3" > /dev/null 2> "$tmp/err"
t "past the cap (KBTUI_CACHE_MAX) the entry used longest ago is removed, the others kept" \
	'[ ! -e "$e1" ] && [ -e "$e2" ] && [ $(ls "$tmp/cache/kbtui/text" | wc -l) -eq 2 ] && [ ! -s "$tmp/err" ]'
"$kb" search x "$ds/runs/r2" > /dev/null
t "an entry read is an entry used: its time moves to now" '[ $(( $(date +%s) - $(stat -c %Y "$e2") )) -lt 60 ]'

# ---- the bound as people write it; a value that is not a size is said, once -----------------
for v in '5MB:5.0 MB' '5M:5.0 MB' '1.5G:1.50 GB' '2GiB:2.00 GB' '3kb:3.0 KB' '1073741824:1.00 GB' '2T:2.00 TB' \
	'18446744073709551615:16777216.00 TB'; do
	KBTUI_CACHE_MAX=${v%%:*} "$kb" cache --stats > "$tmp/out" 2> "$tmp/err"; rc=$?
	t "KBTUI_CACHE_MAX=${v%%:*}: the cap is ${v#*:}, from the variable, nothing on stderr" \
		'[ $rc -eq 0 ] && grep -q "of ${v#*:} (KBTUI_CACHE_MAX)" "$tmp/out" && [ ! -s "$tmp/err" ]'
done
for v in 10X -5 5MB5 . 99999999999999999999 "$(printf '1\033[2J')"; do
	KBTUI_CACHE_MAX=$v "$kb" cache --stats > "$tmp/out" 2> "$tmp/err"; rc=$?
	t "KBTUI_CACHE_MAX='$(printf '%s' "$v" | cat -v)': not a size: stderr says so in one line, the default cap kept and named" \
		'[ $rc -eq 0 ] && [ $(wc -l < "$tmp/err") -eq 1 ] && grep -q "is not a size" "$tmp/err" && grep -q "of 1.00 GB (the default cap)" "$tmp/out" && ! grep -q "$(printf "\033")" "$tmp/err"'
done
"$kb" cache --clear > /dev/null
KBTUI_CACHE_MAX=5MB5 "$kb" search tflops "$ds" > /dev/null 2> "$tmp/err"; rc=$?
t "a search that writes three entries with a bad KBTUI_CACHE_MAX says it once" \
	'[ $rc -eq 0 ] && [ $(grep -c "KBTUI_CACHE_MAX=5MB5 is not a size" "$tmp/err") -eq 1 ] && [ $(wc -l < "$tmp/err") -eq 1 ] && [ $(ls "$tmp/cache/kbtui/text" | wc -l) -eq 3 ]'

# ---- hard links share one entry -------------------------------------------------------------
ds2="$tmp/ds2"; mkdir -p "$ds2/runs/a" "$ds2/runs/b"
ln "$ds/runs/r3/transcript.jsonl" "$ds2/runs/a/transcript.jsonl"
ln "$ds/runs/r3/transcript.jsonl" "$ds2/runs/b/transcript.jsonl"
for r in a b; do printf '{"run_id":"%s","harness":"claude","model":"m","problem":"01_fp8_gemm","transcript":"runs/%s/transcript.jsonl"}\n' $r $r; done > "$ds2/runs.jsonl"
"$kb" cache --clear > /dev/null
"$kb" search -c 'tflops' "$ds2" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "two runs hard-linked to one transcript: both found, one entry" \
	'[ $rc -eq 0 ] && [ $(wc -l < "$tmp/out") -eq 2 ] && [ $(ls "$tmp/cache/kbtui/text" | wc -l) -eq 1 ]'

# ---- listing from the index: kbtui runs opens no transcript -----------------------------------
ds3="$tmp/ds3"; mkdir -p "$ds3/runs/f1" "$ds3/runs/f2" "$ds3/runs/f3"
mkfifo "$ds3/runs/f1/transcript.jsonl"   # opened to read, it would block until timeout
cp "$ds/runs/r2/transcript.jsonl" "$ds3/runs/f2/transcript.jsonl"
cp "$ds/runs/r3/transcript.jsonl" "$ds3/runs/f3/transcript.jsonl"
touch -d '-1 min' "$ds3/runs/f2/transcript.jsonl" "$ds3/runs/f3/transcript.jsonl"
for r in f1 f2 f3; do printf '{"run_id":"%s","harness":"claude","model":"m","problem":"01_fp8_gemm","correct":true,"peak_fraction":0.5,"transcript":"runs/%s/transcript.jsonl"}\n' $r $r; done > "$ds3/runs.jsonl"
timeout 20 "$kb" runs "$ds3" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "kbtui runs over a dataset whose transcript is a FIFO: done, exit 0 (no transcript opened)" '[ $rc -eq 0 ] && [ ! -s "$tmp/err" ]'
t "its rows from the index, the counts unknown (?)" \
	'grep -qE "^f1 .* yes 0\.5000 - +\? +\? -$" "$tmp/out" && grep -qE "^f2 .* yes 0\.5000 - +\? +\? -$" "$tmp/out"'
timeout 20 "$kb" export --format csv "$ds3" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "kbtui export over it too: done, exit 0, its three rows" '[ $rc -eq 0 ] && [ $(grep -c "^f[123]," "$tmp/out") -eq 3 ] && [ ! -s "$tmp/err" ]'
timeout 20 "$kb" runs --json "$ds3" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "--json: events null, counted false" '[ $rc -eq 0 ] && grep "\"run_id\":\"f2\"" "$tmp/out" | grep -q "\"events\":null,\"tool_calls\":null,\"counted\":false"'
rm "$ds3/runs/f1/transcript.jsonl"; cp "$ds/runs/r1/transcript.jsonl" "$ds3/runs/f1/transcript.jsonl"; touch -d '-1 min' "$ds3/runs/f1/transcript.jsonl"
"$kb" runs --count-events "$ds3" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "--count-events reads them: f2's events and tool calls" '[ $rc -eq 0 ] && grep -qE "^f2 .* +4 +0 -$" "$tmp/out" && [ ! -s "$tmp/err" ]'
grep -E "^f[23] " "$tmp/out" > "$tmp/counted"
# the same file (size, mtime) with other bytes: what a listing shows comes from the cache
touch -r "$ds3/runs/f2/transcript.jsonl" "$tmp/stamp"
sz=$(stat -c %s "$ds3/runs/f2/transcript.jsonl")
head -c "$sz" /dev/zero | tr '\0' x > "$ds3/runs/f2/transcript.jsonl"; touch -r "$tmp/stamp" "$ds3/runs/f2/transcript.jsonl"
"$kb" runs "$ds3" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "counted once, kbtui runs shows the counts from the cache, reading no transcript" \
	'[ $rc -eq 0 ] && grep -E "^f[23] " "$tmp/out" | cmp -s - "$tmp/counted" && [ ! -s "$tmp/err" ]'
cp "$ds/runs/r2/transcript.jsonl" "$ds3/runs/f2/transcript.jsonl"; touch -d '-1 min' "$ds3/runs/f2/transcript.jsonl"
"$kb" runs "$ds3" > "$tmp/out" 2> "$tmp/err"
t "a transcript changed since: unknown again" 'grep -qE "^f2 .* +\? +\? -$" "$tmp/out"'
"$kb" search -c tflops "$ds3" > /dev/null 2>&1
"$kb" runs "$ds3" > "$tmp/out" 2> "$tmp/err"
t "kbtui search, which reads it, counts it for kbtui runs" 'grep -E "^f[23] " "$tmp/out" | cmp -s - "$tmp/counted"'

# ---- a directory others could write is not used -------------------------------------------
hostile() {  # $1: a name; the cache prepared by the caller under $tmp/h
	XDG_CACHE_HOME="$tmp/h" "$kb" search 'tflops=' "$ds" > "$tmp/out" 2> "$tmp/err"; rc=$?
}
"$kb" search 'tflops=' "$ds" > "$tmp/all" 2>/dev/null
mkdir -p "$tmp/h/kbtui"; chmod 777 "$tmp/h/kbtui"
hostile
t "a world-writable cache directory: the same result, exit 0" '[ $rc -eq 0 ] && cmp -s "$tmp/out" "$tmp/all"'
t "stderr says so in one line, naming it and why" \
	'[ $(wc -l < "$tmp/err") -eq 1 ] && grep -q "not using the cache $tmp/h/kbtui: writable by its group and others (mode 0777)" "$tmp/err"'
t "nothing written in it" '[ -z "$(ls -A "$tmp/h/kbtui")" ]'
"$kb" cache --stats > /dev/null 2> "$tmp/err"; XDG_CACHE_HOME="$tmp/h" "$kb" cache --clear > "$tmp/out" 2> "$tmp/err"; rc=$?
t "cache --clear refuses it: exit 1, one line on stderr" '[ $rc -eq 1 ] && [ $(wc -l < "$tmp/err") -eq 1 ] && [ ! -s "$tmp/out" ]'
chmod 770 "$tmp/h/kbtui"; hostile
t "group-writable: refused the same way" '[ $rc -eq 0 ] && [ $(wc -l < "$tmp/err") -eq 1 ] && grep -q "writable by its group" "$tmp/err"'
chmod 700 "$tmp/h/kbtui"; mkdir -m 777 "$tmp/h/kbtui/text"; chmod 777 "$tmp/h/kbtui/text"; hostile
t "a kind's folder world-writable: refused, said once, nothing written there" \
	'[ $rc -eq 0 ] && cmp -s "$tmp/out" "$tmp/all" && [ $(wc -l < "$tmp/err") -eq 1 ] && grep -q "kbtui/text: writable by its group and others" "$tmp/err" && [ -z "$(ls -A "$tmp/h/kbtui/text")" ]'
rm -rf "$tmp/h"; mkdir -p "$tmp/h/kbtui"; chmod 700 "$tmp/h/kbtui"
if [ "$(id -u)" = 0 ] && chown nobody "$tmp/h/kbtui" 2> /dev/null; then
	hostile
	t "a cache directory owned by another user: refused, said once" \
		'[ $rc -eq 0 ] && cmp -s "$tmp/out" "$tmp/all" && [ $(wc -l < "$tmp/err") -eq 1 ] && grep -q "owned by uid $(id -u nobody), not by you" "$tmp/err" && [ -z "$(ls -A "$tmp/h/kbtui")" ]'
else
	echo "ok $((n+1)) # SKIP another owner needs root (chown)"; n=$((n+1))
fi
echo "1..$n"
exit $fail
