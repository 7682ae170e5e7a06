#!/bin/sh
# prefilter.sh: `kbtui search` cold and warm against grep -rE over the same
# transcripts, on the sample (1x) and on a copy ten times its size (files
# hard-linked, as kbbench dataset makes them), for patterns with a literal
# every match holds (skipped to by memmem before PCRE2 runs) and without
# one. Run alone: KB_SRCDIR=. KB_BUILDDIR=. sh bench/prefilter.sh; with
# KB_BEFORE=path/to/an/older/kbtui the same figures for that binary beside
# (the before and after of a change, on the same machine in one run). CPU
# ms (user + sys), the median of three: on a shared machine wall time
# measures the neighbours too.
bench_name=prefilter
. "$KB_SRCDIR/bench/common.sh"

n=$(grep -c . "$kbh/runs.jsonl")
"$bench" dataset "$kbh" $((n * 10)) "$work/ds10x" > /dev/null
echo "== kbtui search: the literal prefilter (CPU ms, median of 3; cold: empty cache) =="
for ds in "$kbh" "$work/ds10x"; do
	reps=10; [ "$ds" = "$kbh" ] || reps=3
	find "$ds/runs" -name transcript.jsonl -size +0 | sort > "$work/files"  # (too many for one argument)
	echo "-- $(grep -c . "$ds/runs.jsonl") runs, $(du -cl $(cat "$work/files") | tail -1 | cut -f1) KB read by grep"
	for re in 'tflops=' 'cudaMalloc|cudaFree|torch\.cuda' 'peak_fraction:\s*[0-9.]+' 'no such words at all' '\w+_kernel\(' '[a-z]+_fraction' 'speedup' 'kernel' 'error|warning' 'kernel|speedup'; do
		gi=; printf '%s' "$re" | grep -q '[A-Z]' || gi=-i
		# (output to a file: to /dev/null GNU grep stops at each file's first match)
		g=$(cpu "xargs grep $gi -E '$re' < '$work/files' > '$work/out'")
		line="/$re/: grep -E $g"
		for bin in $KB_BEFORE "$kb"; do
			tag=after; [ "$bin" = "$kb" ] || tag=before
			c=$(cpu "'$bin' search '$re' '$ds' > '$work/out'" "rm -rf '$work/cache'")
			w=$(cpu "'$bin' search '$re' '$ds' > '$work/out'")
			line="$line, $tag cold $c ($(ratio "$c" "$g")x) warm $w ($(ratio "$w" "$g")x)"
		done
		echo "$line"
	done
done
