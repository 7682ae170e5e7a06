#!/bin/sh
# Untrusted text through every human-readable command output: a dataset
# whose index, annotations, file names and transcripts carry terminal
# escapes (OSC 52 clipboard writes, a title change, CSI, the 8-bit CSI,
# a bidi override, invalid UTF-8, an escaped NUL). Nothing a terminal acts
# on may come out raw; JSON escapes it. Inputs are generated here.
kb="$KB_BUILDDIR/kbtui"
n=0; fail=0
t() { n=$((n+1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fail=1; fi; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C

# raw in the output would be: C0 but tab and newline, DEL, C1 as UTF-8,
# U+2028..U+202E and U+2066..U+2069, or bytes that are not UTF-8
ctl=$(printf '[\001-\010\013-\037\177]')
c1=$(printf '\302[\200-\237]')
bidi=$(printf '\342\200[\250-\256]|\342\201[\246-\251]')
clean() {  # file: no byte a terminal acts on, and valid UTF-8
	! grep -q "$ctl" "$1" && ! grep -q "$c1" "$1" && ! grep -qE "$bidi" "$1" &&
	iconv -f UTF-8 -t UTF-8 "$1" > /dev/null 2>&1
}
# CR is a control too, but CSV ends its records with CRLF: checked apart
crlf_only() { [ "$(tr -d '\n' < "$1" | tr -cd '\r' | wc -c)" -eq "$(grep -c . "$1")" ]; }

ds="$tmp/ds"
R1=20260101_000000_grok_m_01_fp8_gemm
R2=20260101_000001_grok_m_02_kda_cutlass
mkdir -p "$ds/runs/a" "$ds/runs/b" "$ds/annotations" "$tmp/other"
printf '{"type":"text","data":"ok"}\n{"type":"end","sessionId":"s"}\n' > "$ds/runs/a/transcript.jsonl"
printf '{"type":"text","data":"ok"}\n{"type":"end","sessionId":"s"}\n' > "$ds/runs/b/transcript.jsonl"
# the index: model with OSC 52, harness with a title change, problem with CSI
# and the 8-bit CSI (escaped and raw), a bidi override and invalid UTF-8 raw
{
	printf '{"run_id":"%s","harness":"grok\\u001b]0;pwned\\u0007","model":"m\\u001b]52;c;aGk=\\u0007","problem":"01_fp8_gemm\\u001b[2J\\u009b31m","label":"lab\\u202eel \377\376","correct":true,"peak_fraction":0.25,"format":"grok","transcript":"runs/a/transcript.jsonl"}\n' "$R1"
	printf '{"run_id":"%s","harness":"grok","model":"m \302\2331m raw \377","problem":"02_kda_cutlass","correct":true,"peak_fraction":0.5,"format":"grok","transcript":"runs/b/transcript.jsonl"}\n' "$R2"
	printf '{"run_id":"20260101_000002_grok_m_03_x","harness":"grok","model":"m","problem":"03_x","transcript":"../\\u001b]0;path-title\\u0007/t.jsonl"}\n'
} > "$ds/runs.jsonl"
# annotations: verdicts that carry escapes, a NUL that tries to hide the rest
cat > "$ds/annotations/$R1.yaml" <<EOT
run_id: $R1
verdict: "clean\0\e[2J\e]52;c;aGk=\a hidden"
annotator: "al\e]0;title\aice \u202Eevil \x9b"
EOT
cat > "$ds/annotations/$R2.yaml" <<EOT
run_id: $R2
verdict: "reward_hack\e]52;c;aGk=\a"
implication: "x"
EOT
# a file name with an escape in it
printf 'run_id: odd\nverdict: [not, a, scalar\n' > "$ds/annotations/$(printf 'odd\033]0;name\007').yaml"
cp "$ds/annotations/$R1.yaml" "$ds/annotations/$R2.yaml" "$tmp/other/"

for f in md csv json; do
	"$kb" export --format $f "$ds" > "$tmp/export.$f" 2> "$tmp/export.$f.err"
done
t "export md: no raw control, C1, bidi or invalid UTF-8" 'clean "$tmp/export.md"'
t "export md: the OSC 52 and title change shown as text" 'grep -qF "m^[]52;c;aGk=^G" "$tmp/export.md" && grep -qF "grok^[]0;pwned^G" "$tmp/export.md"'
t "export md: CSI, 8-bit CSI, bidi override, invalid bytes shown" 'grep -qF "01_fp8_gemm^[[2J<U+009B>31m" "$tmp/export.md" && grep -qF "lab<U+202E>el <FF><FE>" "$tmp/export.md"'
t "export md: the verdict's NUL does not hide the rest" 'grep -qF "clean\\0^[[2J^[]52;c;aGk=^G hidden" "$tmp/export.md"'
t "export md: a hidden verdict is not marked clean in the grid" '! grep -qE "\\| 0\\.250 C \\|" "$tmp/export.md"'
t "export csv: no raw control but CRLF record ends, no C1, bidi or invalid UTF-8" 'tr -d "\r" < "$tmp/export.csv" > "$tmp/csv.nocr" && clean "$tmp/csv.nocr" && crlf_only "$tmp/export.csv"'
t "export csv: the annotator's title change shown, the formula guard kept for the verdict" 'grep -qF "al^[]0;title^Gice <U+202E>evil <U+009B>" "$tmp/export.csv"'
t "export json: no raw control, C1, bidi or invalid UTF-8" 'clean "$tmp/export.json"'
t "export json: escapes as JSON" 'grep -qF "\\u001b]52;c;aGk=\\u0007" "$tmp/export.json" && grep -qF "\\u202e" "$tmp/export.json" && grep -qF "\\u009b" "$tmp/export.json" && grep -qF "\\ufffd" "$tmp/export.json"'
if command -v jq > /dev/null; then
	t "export json: still JSON" 'jq -e "length == 3" "$tmp/export.json" > /dev/null'
fi
t "export's stderr: clean" 'clean "$tmp/export.md.err" && clean "$tmp/export.csv.err" && clean "$tmp/export.json.err"'

"$kb" annotations check "$ds/annotations" > "$tmp/check.out" 2> "$tmp/check.err"; rc=$?
t "annotations check: exit 1 (one unreadable file)" '[ $rc -eq 1 ]'
t "annotations check: stdout clean" 'clean "$tmp/check.out"'
t "annotations check: stderr clean" 'clean "$tmp/check.err"'
t "annotations check: the verdict made visible, its NUL shown as backslash-0" 'grep -qF "verdict \`clean\\0^[[2J^[]52;c;aGk=^G hidden\` is beyond" "$tmp/check.out"'
t "annotations check: the file name with an escape shown" 'grep -qF "odd^[]0;name^G.yaml:" "$tmp/check.err"'

"$kb" annotations agree "$ds/annotations" "$tmp/other" > "$tmp/agree.out" 2> "$tmp/agree.err"
t "annotations agree: stdout clean" 'clean "$tmp/agree.out"'
t "annotations agree: stderr clean" 'clean "$tmp/agree.err"'
t "annotations agree: the verdicts are in the table, made visible" 'grep -qF "reward_hack^[" "$tmp/agree.out" && grep -qF "clean\\0^[[2J" "$tmp/agree.out"'

(cd "$tmp" && "$kb" runs "$ds") > "$tmp/runs.out" 2> "$tmp/runs.err"
t "runs: stdout clean" 'clean "$tmp/runs.out"'
t "runs: the dataset's message about a path leaving it is clean" 'clean "$tmp/runs.err" && grep -qF "../^[]0;path-title^G/t.jsonl" "$tmp/runs.err"'
(cd "$tmp" && "$kb" runs --jsonl "$ds") > "$tmp/runs.json" 2> /dev/null
t "runs --json: clean, escaped" 'clean "$tmp/runs.json" && grep -qF "\\u009b1m raw" "$tmp/runs.json"'

# parser diagnostics: record types and file names
tr_dir="$tmp/$(printf 'dir\033]0;t\007')"
mkdir -p "$tr_dir"
{
	printf '{"type":"session_meta","payload":{"id":"s"}}\n'
	printf '{"type":"x\\u001b]52;c;aGk=\\u0007\\u009b2J","payload":"not an object"}\n'
	printf '{"type":"\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9","payload":"x"}\n'
} > "$tr_dir/codex.jsonl"
"$kb" dump --format codex "$tr_dir/codex.jsonl" > "$tmp/dump.out" 2> "$tmp/dump.err"
t "dump: a record type with escapes, in a directory with one: stderr clean" 'clean "$tmp/dump.err"'
t "dump: the message names the file and the record type, made visible" 'grep -qF "dir^[]0;t^G/codex.jsonl:2: codex x^[]52;c;aGk=^G<U+009B>2J record" "$tmp/dump.err"'
t "dump: a long record type is cut between characters (valid UTF-8)" 'grep -q ":3: codex " "$tmp/dump.err" && iconv -f UTF-8 -t UTF-8 "$tmp/dump.err" > /dev/null 2>&1'
printf '{"type":"text","data":"all fine\\u0000\\u001b[8m the hack"}\n{"type":"end","sessionId":"s"}\n' > "$tmp/nul.jsonl"
"$kb" dump "$tmp/nul.jsonl" > "$tmp/nul.out" 2>&1
t "dump: a transcript's escaped NUL does not hide the rest" 'clean "$tmp/nul.out" && grep -qF "all fine$(printf "\342\220\200")^[[8m the hack" "$tmp/nul.out"'
"$kb" dump "$tr_dir/missing.jsonl" > /dev/null 2> "$tmp/main.err"
t "an error about a missing file whose name has an escape: clean" 'clean "$tmp/main.err" && grep -qF "dir^[]0;t^G" "$tmp/main.err"'

# a \u0000 inside a call's arguments (codex keeps them as JSON text) does
# not end them: what follows is still searched and flagged
printf '%s\n' '{"type":"session_meta","payload":{"id":"s"}}' \
	'{"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"echo ok\\u0000 cat ../other_run/solution.py\"]}","call_id":"c1"}}' > "$tmp/nulargs.jsonl"
"$kb" search 'other_run' "$tmp/nulargs.jsonl" > "$tmp/nulargs.out" 2> "$tmp/nulargs.err"; rc=$?
t "search: the arguments after a \\u0000 are searched (exit 0, the NUL shown)" '[ $rc -eq 0 ] && [ ! -s "$tmp/nulargs.err" ] && grep -qF "echo ok$(printf "\342\220\200") cat ../other_run/solution.py" "$tmp/nulargs.out"'
printf 'rule peek\nwhy reads another run\nmatch other_run/solution\nin tool-args\n' > "$tmp/peek.rules"
"$kb" flags --rules "$tmp/peek.rules" "$tmp/nulargs.jsonl" > "$tmp/nulflags.out" 2> "$tmp/nulflags.err"; rc=$?
t "flags: a rule matches the arguments after a \\u0000" '[ $rc -eq 0 ] && [ ! -s "$tmp/nulflags.err" ] && grep -q ":2: peek:" "$tmp/nulflags.out"'

# a newline in a file name or record type cannot forge a line of its own
nl_dir="$tmp/$(printf 'a\nkbtui: all runs clean\nb')"
mkdir -p "$nl_dir"
{
	printf '{"type":"session_meta","payload":{"id":"s"}}\n'
	printf '{"type":"x\\nkbtui: forged","payload":"not an object"}\n'
} > "$nl_dir/codex.jsonl"
"$kb" dump --format codex "$nl_dir/codex.jsonl" > /dev/null 2> "$tmp/nl.err"; rc=$?
t "dump: a file name and record type with newlines: exit 1 (a malformed record), one message line" '[ $rc -eq 1 ] && [ "$(grep -c . "$tmp/nl.err")" -eq 1 ]'
t "dump: the name's newlines shown as ^J, the record type's as a space" 'grep -qF "a^Jkbtui: all runs clean^Jb/codex.jsonl:2: codex x kbtui: forged record" "$tmp/nl.err"'
t "dump: no line starts with the forged text" '! grep -q "^kbtui: all runs clean" "$tmp/nl.err" && ! grep -q "^kbtui: forged" "$tmp/nl.err"'
"$kb" dump "$nl_dir/missing.jsonl" > /dev/null 2> "$tmp/nl2.err"; rc=$?
t "dump of a missing file whose name has newlines: fails, names it, forges no line" '[ $rc -ne 0 ] && grep -qF "missing.jsonl" "$tmp/nl2.err" && ! grep -q "^kbtui: all runs clean" "$tmp/nl2.err" && ! grep -q "^b/missing" "$tmp/nl2.err"'

echo "1..$n"
exit $fail
