#!/bin/sh
# Hostile transcripts through the real program: what reaches the terminal
# from `kbtui dump` has no byte a terminal acts on. Inputs are generated
# here, at test time.
kb="$KB_BUILDDIR/kbtui"
n=0; fail=0
t() { n=$((n+1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fail=1; fi; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C

# title change, clear, cursor moves, OSC 52 clipboard, 8-bit CSI, raw ESC
{
	printf '{"type":"thought","data":"title \\u001b]0;pwned\\u0007 bell \\u0007"}\n'
	printf '{"type":"text","data":"clear \\u001b[2J home \\u001b[H up \\u001b[5A clip \\u001b]52;c;aGk=\\u0007"}\n'
	printf '{"type":"error","data":"csi8 \\u009b31m raw \033[1m del \\u007f cr \\r"}\n'
	printf '{"type":"end","sessionId":"s\\u001b]0;x\\u0007"}\n'
} > "$tmp/esc.jsonl"
ctl=$(printf '[\001-\010\013-\037\177]')
c1=$(printf '\302[\200-\237]')

"$kb" dump "$tmp/esc.jsonl" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "dump of an escape-laden transcript exits 0" '[ $rc -eq 0 ]'
t "dump prints its three events" '[ $(wc -l < "$tmp/out") -eq 3 ]'
t "dump output has no C0 control, ESC, BEL or DEL" '! grep -q "$ctl" "$tmp/out"'
t "dump output has no C1 control" '! grep -q "$c1" "$tmp/out"'
t "the title change is shown as text" 'grep -qF "^[]0;pwned^G" "$tmp/out"'
t "the OSC 52 clipboard write is shown as text" 'grep -qF "^[]52;c;aGk=^G" "$tmp/out"'
t "the 8-bit CSI is shown as text" 'grep -qF "<U+009B>31m" "$tmp/out"'
t "stderr has no control byte either" '! grep -q "$ctl" "$tmp/err" && ! grep -q "$c1" "$tmp/err"'

"$kb" dump --jsonl "$tmp/esc.jsonl" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "dump --jsonl exits 0" '[ $rc -eq 0 ]'
t "dump --jsonl has no raw C0 control, ESC, BEL or DEL" '! grep -q "$ctl" "$tmp/out"'
t "dump --jsonl has no raw C1 control" '! grep -q "$c1" "$tmp/out"'
t "dump --jsonl escapes ESC and BEL as JSON" 'grep -qF "\\u001b]0;pwned\\u0007" "$tmp/out"'
t "dump --jsonl escapes the 8-bit CSI and DEL as JSON" 'grep -qF "\\u009b31m" "$tmp/out" && grep -qF "del \\u007f" "$tmp/out"'
if command -v jq > /dev/null; then
	t "dump --jsonl is still JSON, the text intact" '[ "$(jq -r "select(.kind==\"error\") | .text" < "$tmp/out" | od -An -c | tr -s " " | head -1)" = "$(printf "csi8 \302\23331m raw \033[1m del \177 cr \r\n" | od -An -c | tr -s " " | head -1)" ]'
fi

# 10,000-deep nesting through the program: refused by line, no crash
{
	printf '{"type":"thought","data":"before"}\n{"type":"text","data":'
	head -c 10000 /dev/zero | tr '\0' '['
	head -c 10000 /dev/zero | tr '\0' ']'
	printf '}\n{"type":"text","data":"after"}\n{"type":"end","sessionId":"s"}\n'
} > "$tmp/deep.jsonl"
"$kb" dump --jsonl "$tmp/deep.jsonl" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "10,000-deep line: exit 1 (a malformed line), not a crash" '[ $rc -eq 1 ]'
t "10,000-deep line: message names line 2" 'grep -q "deep.jsonl:2: " "$tmp/err"'
t "10,000-deep line: the lines around it are dumped" 'grep -q "\"text\":\"before\"" "$tmp/out" && grep -q "\"text\":\"after\"" "$tmp/out"'

# a 600-byte YAML alias bomb in annotations/: every command that reads the
# annotations refuses that file by name and line, and finishes
ds="$tmp/ds"; R=20260101_000000_grok_m_01_fp8_gemm
mkdir -p "$ds/runs/R" "$ds/annotations"
printf '{"type":"text","data":"ok"}\n{"type":"end","sessionId":"s"}\n' > "$ds/runs/R/transcript.jsonl"
printf '{"run_id":"%s","harness":"grok","model":"m","problem":"01_fp8_gemm","correct":true,"peak_fraction":0.25,"format":"grok","transcript":"runs/R/transcript.jsonl"}\n' "$R" > "$ds/runs.jsonl"
{
	printf 'run_id: %s\nverdict: clean\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n' "$R"
	for k in 1 2 3 4 5 6 7 8; do
		j=$((k - 1))
		printf 'a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n' $k $k $j $j $j $j $j $j $j $j $j $j
	done
} > "$ds/annotations/$R.yaml"
cp "$ds/annotations/$R.yaml" "$tmp/bomb.before"
bomb_msg="annotations/$R.yaml:[0-9]+: alias \*a[0-9] expands past"
(cd "$tmp" && "$kb" runs "$ds") > "$tmp/out" 2> "$tmp/err"; rc=$?
t "runs on a dataset with an alias bomb: finishes, lists the run" '[ $rc -le 1 ] && grep -q "$R" "$tmp/out"'
t "runs names the bomb's file and line" 'grep -qE "$bomb_msg" "$tmp/err"'
"$kb" annotations check "$ds/annotations" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "annotations check: exit 1, the file unreadable, by file and line" '[ $rc -eq 1 ] && grep -q "1 unreadable" "$tmp/out" && grep -qE "$bomb_msg" "$tmp/err"'
"$kb" export --format md "$ds" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "export: finishes, the run exported without its verdict, the bomb named" '[ $rc -le 1 ] && grep -q "$R" "$tmp/out" && grep -qE "$bomb_msg" "$tmp/err"'
"$kb" annotate "$R" --verdict bug --implication x "$ds" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "annotate over the bomb: exit 1, the bomb named" '[ $rc -eq 1 ] && grep -qE "$bomb_msg" "$tmp/err"'
t "and the file is left as it was" 'cmp -s "$tmp/bomb.before" "$ds/annotations/$R.yaml"'

# a file or run name with a terminal's escapes in it, given to each command
# that names it back on stderr: shown as ^[, never sent raw
evil=$(printf 'x\033]0;pwned\007\033[2Jy')
mkdir -p "$tmp/evil/$evil"
printf 'not a transcript\n' > "$tmp/evil/$evil/t.jsonl"
for args in "dump $tmp/evil/$evil/t.jsonl" "search x $tmp/evil/$evil/t.jsonl" "flags $tmp/evil/$evil/t.jsonl" \
	"compare $tmp/evil/$evil/t.jsonl $tmp/evil/$evil/t.jsonl" "compare $evil $evil $ds" "watch $tmp/evil/$evil/none/t.jsonl" \
	"export --format csv $evil" "dump $evil" "eval --problem $evil $tmp/evil/$evil/t.jsonl" \
	"live --problem 01_fp8_gemm --model m --budget $evil" "sweep --models $evil --problems all --out $tmp/o"; do
	# shellcheck disable=SC2086
	(IFS='
'; set -f; "$kb" $(printf '%s' "$args" | tr ' ' '\n')) < /dev/null > "$tmp/out" 2> "$tmp/err"; rc=$?
	t "kbtui ${args%% *} naming it: exits non-zero, says so, no control byte on stderr" \
		'[ $rc -ne 0 ] && [ -s "$tmp/err" ] && ! grep -q "$ctl" "$tmp/err" && ! grep -q "$c1" "$tmp/err"'
done

echo "1..$n"
exit $fail
