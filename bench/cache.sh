#!/bin/sh
# cache.sh: issue #28's figures for `make bench` (run alone: KB_SRCDIR=.
# KB_BUILDDIR=. sh bench/cache.sh): `kbtui runs` with a cold cache against
# jq over runs.jsonl, `kbtui search` cold and warm against grep -E over the
# same transcripts, and the text cache's size against the data's, on the
# sample (1x) and on a dataset of 14k runs made of it (files hard-linked,
# as kbbench dataset makes them). CPU ms (user + sys) of one process each,
# the median of three; on a shared machine wall time measures the
# neighbours too.
bench_name=cache
. "$KB_SRCDIR/bench/common.sh"
cold="rm -rf '$work/cache'"  # (its CPU is counted too: a few ms)

echo "== issue #28: the cache and listing from the index (CPU ms, median of 3) =="
"$bench" dataset "$kbh" 14000 "$work/ds14k" > /dev/null
for ds in "$kbh" "$work/ds14k"; do
	n=$(grep -c . "$ds/runs.jsonl")
	reps=10; [ "$n" -gt 1000 ] && reps=1
	# the list in a file: 14k names do not fit in one argument of sh -c
	# (E2BIG: grep then never ran, and its "time" was the failure's)
	find "$ds/runs" -name transcript.jsonl -size +0 | sort > "$work/files"
	data=$(du -s --block-size=1K $(cat "$work/files") | awk '{ s += $1 } END { print s }')  # one du: hard links once
	echo "-- $n runs ($data KB of transcripts)"
	r=$(cpu "'$kb' runs '$ds'" "$cold"); j=$(cpu "jq -c '{run_id, model, problem, correct}' '$ds/runs.jsonl'")
	echo "kbtui runs, cold cache (no transcript read): $r ms, jq over runs.jsonl $j ms: $(ratio "$r" "$j")x jq (limit 3): $(verdict "$(ratio "$r" "$j")" 3)"
	for re in 'tflops=' 'cudaMalloc|cudaFree|torch\.cuda' 'no such words at all'; do
		gi=; printf '%s' "$re" | grep -q '[A-Z]' || gi=-i
		# each writes its lines to a file: GNU grep stops at a file's first
		# match when its output is /dev/null (as -q), kbtui does not
		g=$(cpu "xargs grep $gi -E '$re' < '$work/files' > '$work/out'")
		c=$(cpu "'$kb' search '$re' '$ds' > '$work/out'" "$cold")
		w=$(cpu "'$kb' search '$re' '$ds' > '$work/out'")
		echo "search '$re': cold $c ms ($(ratio "$c" "$g")x grep, goal 3: $(verdict "$(ratio "$c" "$g")" 3)), warm $w ms ($(ratio "$w" "$g")x grep, goal 1: $(verdict "$(ratio "$w" "$g")" 1)), grep -E $g ms"
	done
	# where a cold search's time goes: the same search writing no cache
	# entry (KBTUI_NO_CACHE, a narrow switch used here only to measure),
	# and what the file system takes to create and fill as many files
	if [ "$n" -le 1000 ]; then
		e=$(ls "$work/cache/kbtui/text" | wc -l)
		fs=$(cpu "rm -rf '$work/fill'; mkdir '$work/fill'; for f in \$(ls '$work/cache/kbtui/text'); do cat '$work/cache/kbtui/text/'\$f > '$work/fill/'\$f; done" "")
		base=$(cpu "for f in \$(ls '$work/cache/kbtui/text'); do cat '$work/cache/kbtui/text/'\$f > /dev/null; done" "")
		nc=$(cpu "KBTUI_NO_CACHE=1 '$kb' search 'tflops=' '$ds' > '$work/out'" "$cold")
		"$kb" search 'tflops=' "$ds" > /dev/null  # the cache back, for its size below
		echo "   of search 'tflops=' cold: without writing the cache $nc ms ($(ratio "$nc" "$g")x grep; measured, no goal); the $e entries it writes, copied by cat into new files: $(awk -v a="$fs" -v b="$base" 'BEGIN { printf "%.1f", a - b }') ms more than cat to /dev/null"
	fi
	t=$(du -s --block-size=1K "$work/cache/kbtui/text" | cut -f1)
	echo "text cache: $t KB in $(ls "$work/cache/kbtui/text" | wc -l) entries for $n runs: $(ratio "$t" "$data")x the transcripts (hard links share an entry)"
done
# batch commands hold one run at a time: peak memory at 1.4k runs
"$bench" dataset "$kbh" 1400 "$work/ds1400" > /dev/null
for c in "export --format csv --full" "flags" "search tflops="; do
	/usr/bin/time -f "%M" -o "$work/t" sh -c "'$kb' $c '$work/ds1400'" > /dev/null 2>&1
	echo "kbtui $c at 1.4k runs: peak $(tail -1 "$work/t") KB resident"
done
"$kb" cache --stats | sed 's/^/  /'
