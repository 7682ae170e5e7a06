#!/bin/sh
# The command line's grammar, as a user runs it: commands win over folders
# of the same name, the dataset the working directory is in is the default,
# a run is an id, a prefix, a directory or a transcript for every command,
# write errors fail, and a file that is no transcript is an error.
kb="$KB_BUILDDIR/kbtui"; fx="$KB_SRCDIR/tests/fixtures/cli"
n=0; fail=0
t() { n=$((n+1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fail=1; fi; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
case "$kb" in /*) ;; *) kb="$(pwd)/$kb" ;; esac
case "$fx" in /*) ;; *) fx="$(pwd)/$fx" ;; esac
unset KBTUI_DATA

# a dataset with runs/ and annotations/, two runs
ds="$tmp/ds"
mkdir -p "$ds/runs/20260101_alpha_one" "$ds/runs/20260102_beta_two" "$ds/annotations"
cp "$fx/grok_ok.jsonl" "$ds/runs/20260101_alpha_one/transcript.jsonl"
cp "$fx/grok_ok.jsonl" "$ds/runs/20260102_beta_two/transcript.jsonl"
cat > "$ds/runs.jsonl" <<JSON
{"run_id":"20260101_alpha_one","harness":"grok","model":"m-alpha","problem":"01_fp8_gemm","correct":true,"peak_fraction":0.25,"transcript":"runs/20260101_alpha_one/transcript.jsonl"}
{"run_id":"20260102_beta_two","harness":"grok","model":"m-beta","problem":"02_kda_cutlass","correct":false,"transcript":"runs/20260102_beta_two/transcript.jsonl"}
JSON
# one annotation with a schema error (no implication for a reward_hack)
printf 'run_id: 20260101_alpha_one\nverdict: reward_hack\nsummary: edits the grader\n' > "$ds/annotations/20260101_alpha_one.yaml"

# ---- --help of every command ---------------------------------------------
for c in annotate export runs dump search flags; do
	"$kb" "$c" --help > "$tmp/help" 2> "$tmp/err"; rc=$?
	t "$c --help: exit 0, its own usage, no error" '[ $rc -eq 0 ] && head -1 "$tmp/help" | grep -q "^Usage: kbtui $c" && [ ! -s "$tmp/err" ]'
done
"$kb" annotate --bogus > /dev/null 2> "$tmp/err"; rc=$?
t "an unknown option of a command points at its --help" '[ $rc -eq 2 ] && grep -q "Try .kbtui annotate --help." "$tmp/err"'

# ---- commands win over folders of the same name ---------------------------
cd "$ds"
"$kb" runs > "$tmp/out" 2> "$tmp/err"; rc=$?
t "inside a dataset, 'kbtui runs' lists its runs (runs/ is there too)" '[ $rc -eq 0 ] && grep -q "^20260101_alpha_one " "$tmp/out" && grep -q "^20260102_beta_two " "$tmp/out"'
t "... and says nothing of which dataset (it is the working directory)" '[ ! -s "$tmp/err" ]'
"$kb" runs . > "$tmp/out" 2> "$tmp/err"; rc=$?
t "'kbtui runs .' lists the runs of ." '[ $rc -eq 0 ] && [ $(grep -c "^202601" "$tmp/out") -eq 2 ]'
"$kb" annotations check > "$tmp/out" 2> "$tmp/err"; rc=$?
t "'kbtui annotations check' inside a dataset (annotations/ is there) checks its annotations" '[ $rc -eq 1 ] && grep -q "^1 files: 0 unreadable, 1 schema errors" "$tmp/out"'
"$kb" export --format csv > "$tmp/out" 2> "$tmp/err"; rc=$?
t "export with no DIR inside a dataset exports that dataset" '[ $rc -eq 0 ] && grep -q "^20260101_alpha_one," "$tmp/out" && ! grep -q sample "$tmp/out"'

# ---- the dataset you are in is the default ---------------------------------
cd "$ds/runs/20260102_beta_two"
"$kb" runs > "$tmp/out" 2> "$tmp/err"; rc=$?
t "in a run directory, runs lists the dataset above it" '[ $rc -eq 0 ] && [ $(grep -c "^202601" "$tmp/out") -eq 2 ]'
t "... and says on stderr which dataset it used" 'grep -qF "kbtui: dataset: $ds " "$tmp/err"'
cd "$tmp"
"$kb" runs > "$tmp/out" 2> "$tmp/err"; rc=$?
t "outside any dataset, runs says which dataset it fell back to" '[ $rc -eq 0 ] && grep -q "^kbtui: dataset: .*sample" "$tmp/err"'
KBTUI_DATA="$ds" "$kb" export --format json > "$tmp/out" 2> "$tmp/err"; rc=$?
t "KBTUI_DATA outside a dataset: used, and named as the reason" '[ $rc -eq 0 ] && grep -q "20260102_beta_two" "$tmp/out" && grep -qF "kbtui: dataset: $ds (\$KBTUI_DATA)" "$tmp/err"'

# ---- annotations check DATASET --------------------------------------------
"$kb" annotations check "$ds" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "annotations check DATASET checks DATASET/annotations" '[ $rc -eq 1 ] && grep -q "^1 files: 0 unreadable, 1 schema errors" "$tmp/out"'
"$kb" annotations check "$ds/annotations" > "$tmp/out2" 2>&1
t "... the same as naming the annotations directory" '[ "$(tail -1 "$tmp/out")" = "$(tail -1 "$tmp/out2")" ]'

# ---- a run: an id, a prefix, a directory, a transcript ---------------------
cd "$ds"
"$kb" dump 20260101_alpha_one > "$tmp/id" 2> "$tmp/err"; rc=$?
"$kb" dump "$ds/runs/20260101_alpha_one" > "$tmp/dir" 2>&1
t "dump takes a run id" '[ $rc -eq 0 ] && [ -s "$tmp/id" ] && cmp -s "$tmp/id" "$tmp/dir"'
"$kb" dump 20260102 > "$tmp/pre" 2> "$tmp/err"; rc=$?
t "dump takes a unique prefix" '[ $rc -eq 0 ] && cmp -s "$tmp/pre" "$tmp/dir"'
"$kb" dump 202601 > /dev/null 2> "$tmp/err"; rc=$?
t "an ambiguous prefix: exit 1, the candidates named" '[ $rc -eq 1 ] && grep -q "matches 2 runs" "$tmp/err" && grep -q "^  20260101_alpha_one" "$tmp/err"'
"$kb" dump nosuchrun > /dev/null 2> "$tmp/err"; rc=$?
t "an unknown run: exit 1, named" '[ $rc -eq 1 ] && grep -q "no run .nosuchrun." "$tmp/err"'
"$kb" search -l reference 20260101_alpha > "$tmp/out" 2> "$tmp/err"; rc=$?
t "search takes a run id prefix: that run alone" '[ $rc -eq 0 ] && [ "$(cat "$tmp/out")" = "20260101_alpha_one" ]'
"$kb" flags 20260101_alpha_one > "$tmp/out" 2> "$tmp/err"; rc=$?
t "flags takes a run id" '[ $rc -eq 0 ] && tail -1 "$tmp/out" | grep -qE "^(not )?flagged$"'
for r in 20260102 "$ds/runs/20260102_beta_two" "$ds/runs/20260102_beta_two/transcript.jsonl"; do
	"$kb" export --format csv "$r" > "$tmp/out" 2> "$tmp/err"; rc=$?
	t "export csv of a run ($r): the header and that run's row alone" \
		'[ $rc -eq 0 ] && [ ! -s "$tmp/err" ] && [ $(wc -l < "$tmp/out") -eq 2 ] && sed -n 2p "$tmp/out" | grep -q "^20260102_beta_two,m-beta,"'
done
"$kb" export --format jsonl 20260101_alpha > "$tmp/out" 2> "$tmp/err"; rc=$?
t "export jsonl of a run: one object, its own" '[ $rc -eq 0 ] && [ $(wc -l < "$tmp/out") -eq 1 ] && grep -q "\"run_id\": *\"20260101_alpha_one\"" "$tmp/out"'
"$kb" export --format csv "$fx/grok_ok.jsonl" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "export csv of a transcript outside any dataset: exit 1, says why and what does" \
	'[ $rc -eq 1 ] && [ ! -s "$tmp/out" ] && grep -q "outside any dataset has no row.*--format html" "$tmp/err"'
"$kb" annotate "$ds/runs/20260102_beta_two" --verdict clean > "$tmp/out" 2> "$tmp/err"; rc=$?
t "annotate takes a run directory" '[ $rc -eq 0 ] && grep -q "^verdict: clean" "$ds/annotations/20260102_beta_two.yaml"'
"$kb" annotate 20260102_beta --verdict interesting --implication "read it" "$ds" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "annotate takes a prefix and a DIR" '[ $rc -eq 0 ] && grep -q "^verdict: interesting" "$ds/annotations/20260102_beta_two.yaml"'
mkdir -p "$tmp/loose"; cp "$fx/grok_ok.jsonl" "$tmp/loose/transcript.jsonl"
"$kb" annotate "$tmp/loose" --verdict clean > /dev/null 2> "$tmp/err"; rc=$?
t "annotate of a run outside any dataset: exit 1, says why" '[ $rc -eq 1 ] && grep -q "not a run of a dataset" "$tmp/err"'
"$kb" 20260101_alpha < /dev/null > /dev/null 2> "$tmp/err"; rc=$?
t "the replay takes a run id (found, then: needs a terminal)" '[ $rc -eq 2 ] && grep -q "needs a terminal" "$tmp/err"'
"$kb" nosuchrun < /dev/null > /dev/null 2> "$tmp/err"; rc=$?
t "the replay of an unknown word: exit 1, no such run" '[ $rc -eq 1 ] && grep -q "no run .nosuchrun." "$tmp/err"'

# ---- a write error fails every command ------------------------------------
if [ -w /dev/full ]; then
	for args in "runs $ds" "runs --json $ds" "dump $ds/runs/20260101_alpha_one" "formats" "keys" "--help" "runs --help" \
		"export --format md $ds" "search reference $ds" "flags $ds" "annotations check $ds/annotations" "help"; do
		# shellcheck disable=SC2086
		"$kb" $args > /dev/full 2> "$tmp/err"; rc=$?
		t "kbtui $args > /dev/full: non-zero, says so" '[ $rc -ne 0 ] && grep -q "write error" "$tmp/err"'
	done
else
	echo "# SKIP /dev/full is not writable here"
fi
"$kb" runs "$ds" >&- 2> "$tmp/err"; rc=$?
t "kbtui runs with stdout closed: non-zero, says so" '[ $rc -ne 0 ] && grep -q "write error" "$tmp/err"'
"$kb" annotate 20260102_beta --verdict clean "$ds" >&- 2> "$tmp/err"; rc=$?
t "... and a closed stdout is never the annotation file" 'grep -q "^run_id: 20260102_beta_two" "$ds/annotations/20260102_beta_two.yaml" && ! grep -q "updated clean" "$ds/annotations/20260102_beta_two.yaml"'

# ---- a file that is not a transcript is an error ----------------------------
printf 'Some notes about the run.\nNothing like JSON here.\n' > "$tmp/notes.txt"
"$kb" "$tmp/notes.txt" < /dev/null > /dev/null 2> "$tmp/err"; rc=$?
t "kbtui NOTES.txt: exit 1, the file named, not a replay" '[ $rc -eq 1 ] && grep -q "notes.txt" "$tmp/err" && grep -q "unrecognised transcript format" "$tmp/err" && ! grep -q "needs a terminal" "$tmp/err"'
printf '%s\n' '{"hello":"world"}' > "$tmp/other.jsonl"
"$kb" "$tmp/other.jsonl" < /dev/null > /dev/null 2> "$tmp/err"; rc=$?
t "JSON lines of no known format: exit 1 too" '[ $rc -eq 1 ] && grep -q "other.jsonl:1: " "$tmp/err"'
: > "$tmp/empty.jsonl"
"$kb" "$tmp/empty.jsonl" < /dev/null > /dev/null 2> "$tmp/err"; rc=$?
t "an empty transcript is still a (short) replay: it only needs a terminal" '[ $rc -eq 2 ] && grep -q "needs a terminal" "$tmp/err"'

# search and flags say so too (they said nothing: 'no match', 'not flagged')
for f in notes.txt other.jsonl; do
	"$kb" search Nothing "$tmp/$f" > "$tmp/out" 2> "$tmp/err"; rc=$?
	t "search REGEX $f: exit 2, the file and its first line named, no output" \
		'[ $rc -eq 2 ] && grep -q "$f:1: .*unrecognised transcript format" "$tmp/err" && [ ! -s "$tmp/out" ]'
	"$kb" flags "$tmp/$f" > "$tmp/out" 2> "$tmp/err"; rc=$?
	t "flags $f: exit 1, the file named, no verdict" \
		'[ $rc -eq 1 ] && grep -q "$f:1: .*unrecognised transcript format" "$tmp/err" && ! grep -q flagged "$tmp/out"'
done
"$kb" compare "$tmp/notes.txt" "$fx/grok_ok.jsonl" < /dev/null > "$tmp/out" 2> "$tmp/err"; rc=$?
t "compare with a file that is no transcript: exit 1, the file named (before asking for a terminal)" \
	'[ $rc -eq 1 ] && grep -q "notes.txt:1: .*unrecognised transcript format" "$tmp/err" && ! grep -q "needs a terminal" "$tmp/err"'
"$kb" search Nothing "$tmp/empty.jsonl" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "search in an empty transcript: no match (exit 1), nothing on stderr" '[ $rc -eq 1 ] && [ ! -s "$tmp/err" ]'
"$kb" flags "$tmp/empty.jsonl" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "flags of an empty transcript: not flagged, exit 0, nothing on stderr" '[ $rc -eq 0 ] && grep -qx "not flagged" "$tmp/out" && [ ! -s "$tmp/err" ]'
# in a dataset: that run named (each time: it is not cached), the others searched
bad="$tmp/bad"
cp -r "$ds" "$bad"
cp "$tmp/notes.txt" "$bad/runs/20260102_beta_two/transcript.jsonl"
sleep 2.1  # (a file's entry is kept once it is 2 s old: idcache_racy)
for pass in cold warm; do
	XDG_CACHE_HOME="$tmp/cache" "$kb" search -l . "$bad" > "$tmp/out" 2> "$tmp/err"; rc=$?
	t "search over a dataset with one such run ($pass): the other found (exit 0), that one named" \
		'[ $rc -eq 0 ] && grep -qx 20260101_alpha_one "$tmp/out" && ! grep -q beta "$tmp/out" && grep -q "20260102_beta_two/transcript.jsonl:1: .*unrecognised" "$tmp/err"'
done
t "the run that is a transcript was cached, the other not" '[ $(ls "$tmp/cache/kbtui/text" | wc -l) -eq 1 ]'
"$kb" flags "$bad" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "flags over it: the table of the run it read, that run named, exit 1" \
	'[ $rc -eq 1 ] && grep -q "20260102_beta_two/transcript.jsonl:1: .*unrecognised" "$tmp/err" && grep -qE "^\(none\) +0 +1$|^reward_hack +[01] +[01]$" "$tmp/out"'
# a transcript with one cut-off line: flags names the line and still flags the rest
cp "$fx/grok_ok.jsonl" "$tmp/cut.jsonl"
printf '%s\n' '{"type":"text","data":"cut off' >> "$tmp/cut.jsonl"
"$kb" flags "$tmp/cut.jsonl" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "flags of a transcript with a malformed line: the verdict, the line named, exit 1" \
	'[ $rc -eq 1 ] && grep -qE "^(not )?flagged$" "$tmp/out" && grep -q "cut.jsonl:[0-9]*: not valid JSON" "$tmp/err"'

echo "1..$n"
exit $fail
