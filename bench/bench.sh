#!/bin/sh
# make bench: kbtui's parser against jq over the real sample's transcripts,
# at 1x and 10x, plus index load time and resident memory.
kbh="${KB_SHARED:-$KB_SRCDIR/../shared}/kbh"
bench="$KB_BUILDDIR/bench/kbbench"
if [ ! -f "$kbh/runs.jsonl" ]; then
	echo "bench: $kbh is absent; nothing to measure"
	exit 0
fi
files=$(find "$kbh/runs" -name transcript.jsonl -size +0 | sort)
n=$(echo "$files" | wc -l)
bytes=$(cat $files | wc -c)
echo "corpus: $n transcripts, $bytes bytes"

# CPU time (user + sys, children included) of a command in ms: wall time
# on a shared machine measures the neighbours as much as the program
ms1() {
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f "%U %S" -o "$tmp" "$@" >/dev/null 2>&1
		awk '{printf "%d\n", ($1 + $2) * 1000}' "$tmp"
	else
		s=$(date +%s%N); "$@" >/dev/null 2>&1; e=$(date +%s%N); echo $(( (e - s) / 1000000 ))
	fi
}
# the best of three: a busy neighbour (caches, frequency) only adds time
ms() {
	a=$(ms1 "$@"); b=$(ms1 "$@"); c=$(ms1 "$@")
	printf '%s\n%s\n%s\n' "$a" "$b" "$c" | sort -n | head -1
}
tmp=$(mktemp); trap 'rm -f "$tmp"' EXIT
[ -x /usr/bin/time ] && echo "times are CPU time (user+sys), best of 3" || echo "times are wall clock, best of 3 (install 'time' for CPU time)"
for rep in 1 10; do
	"$bench" parse $rep $files
	kb_ms=$(ms "$bench" parse $rep $files)
	if command -v jq >/dev/null; then
		jq_ms=$(ms sh -c "for i in \$(seq $rep); do cat $(echo $files | tr '\n' ' '); done | jq -c . >/dev/null")
		echo "  ${rep}x: kbtui ${kb_ms} ms, jq -c . ${jq_ms} ms, kbtui is $(awk "BEGIN{printf \"%.1f\", $jq_ms/($kb_ms>0?$kb_ms:1)}")x faster"
	else
		echo "  ${rep}x: kbtui ${kb_ms} ms (jq not installed: no comparison)"
	fi
done
"$bench" keep $files
"$bench" index "$kbh"
