#!/bin/sh
# dump_same.sh OLD_KBTUI NEW_KBTUI DIR...: whether `kbtui dump --jsonl`
# writes the same bytes (and exits the same way) with both programs on every
# transcript under each DIR (a dataset, a run directory, or synthetic
# transcripts). For changes meant to keep output identical (pairing,
# parsing speed): build the commit before in another directory and compare.
# Prints one line per difference and a summary; exits 1 when any differ.
old=$1 new=$2
shift 2 || { echo "usage: dump_same.sh OLD_KBTUI NEW_KBTUI DIR..." >&2; exit 2; }
[ -x "$old" ] && [ -x "$new" ] || { echo "dump_same.sh: $old or $new is not a program" >&2; exit 2; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
n=0 bad=0
for f in $(find "$@" -type f \( -name 'transcript*.jsonl' -o -name '*.jsonl' \) ! -name runs.jsonl | sort); do
	n=$((n + 1))
	"$old" dump --jsonl "$f" >"$tmp/a" 2>"$tmp/ae"; ra=$?
	"$new" dump --jsonl "$f" >"$tmp/b" 2>"$tmp/be"; rb=$?
	if [ $ra -ne $rb ] || ! cmp -s "$tmp/a" "$tmp/b" || ! cmp -s "$tmp/ae" "$tmp/be"; then
		bad=$((bad + 1))
		echo "DIFFERS: $f (exit $ra vs $rb; $(cmp "$tmp/a" "$tmp/b" 2>&1 | head -1))"
	fi
done
echo "dump --jsonl: $((n - bad)) of $n transcripts byte-identical"
[ $bad -eq 0 ] && [ $n -gt 0 ]
