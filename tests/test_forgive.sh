#!/bin/sh
# The command line forgives and explains (issue 30): a typo of a command,
# an option or a problem gets "did you mean", a path that is not there is
# "No such file or directory" (never a run of the default dataset), and
# what was typed is checked before the API key, the sandbox or the GPU.
kb="$KB_BUILDDIR/kbtui"
n=0; fail=0
t() { n=$((n+1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fail=1; sed 's/^/# /' "$tmp/err"; fi; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
unset OPENAI_API_KEY ANTHROPIC_API_KEY

# commands
"$kb" anotate > "$tmp/out" 2> "$tmp/err"; rc=$?
t "kbtui anotate: usage error, did you mean 'annotate'" '[ $rc -eq 2 ] && grep -q "did you mean '"'"'annotate'"'"'" "$tmp/err" && [ ! -s "$tmp/out" ]'
"$kb" runz > /dev/null 2> "$tmp/err"; rc=$?
t "kbtui runz: did you mean 'runs'" '[ $rc -eq 2 ] && grep -q "did you mean '"'"'runs'"'"'" "$tmp/err"'
"$kb" zzzzzzzz > /dev/null 2> "$tmp/err"; rc=$?
t "a word far from every command is still looked up as a run" '[ $rc -eq 1 ] && grep -q "no run" "$tmp/err" && ! grep -q "did you mean" "$tmp/err"'

printf '{"type":"text","data":"x"}\n' > "$tmp/t.jsonl"
"$kb" stats "$tmp/t.jsonl" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "kbtui stats FILE (no such command, nothing close): 2, the word is no command, not 'one PATH at most'" \
	'[ $rc -eq 2 ] && grep -q "^kbtui: '"'"'stats'"'"' is not a command (nor a file or a run); kbtui --help lists the commands$" "$tmp/err" &&
	 ! grep -q "one PATH" "$tmp/err" && [ ! -s "$tmp/out" ]'
"$kb" "$tmp/t.jsonl" "$tmp/t.jsonl" > /dev/null 2> "$tmp/err"; rc=$?
t "two paths: 2, one PATH at most" '[ $rc -eq 2 ] && grep -q "one PATH at most" "$tmp/err"'
"$kb" "$(printf 'st\033[2Jats')" "$tmp/t.jsonl" > /dev/null 2> "$tmp/err"; rc=$?
t "the word is shown with its escape made visible" '[ $rc -eq 2 ] && grep -q "is not a command" "$tmp/err" && ! grep -q "$(printf '\033')" "$tmp/err"'

# paths
for p in /nonexistent ./nope/run nope.jsonl; do
	"$kb" "$p" > /dev/null 2> "$tmp/err"; rc=$?
	t "kbtui $p: 1, No such file or directory, no fallback to a dataset" '[ $rc -eq 1 ] && grep -q "^kbtui: $p: No such file or directory$" "$tmp/err" && ! grep -q "dataset" "$tmp/err" && [ $(wc -l < "$tmp/err") -eq 1 ]'
done

# options
for c in "export --fromat csv:--format" "runs --jsno:--json" "dump --jsnol x:--jsonl" "flags --jsn:--json" \
         "search --fromat x y:--format" "live --problme x:--problem" "sweep --modles x:--models" \
         "eval --problme x:--problem" "fetch --quite:--quiet" "annotate --verdcit x:--verdict"; do
	args=${c%:*}; want=${c##*:}
	"$kb" $args > /dev/null 2> "$tmp/err"; rc=$?
	t "kbtui $args: 2, did you mean '$want'" '[ $rc -eq 2 ] && grep -q "unknown option .*did you mean '"'"'$want'"'"'" "$tmp/err"'
done
"$kb" --blnd > /dev/null 2> "$tmp/err"; rc=$?
t "kbtui --blnd (the browser's options): did you mean '--blind'" '[ $rc -eq 2 ] && grep -q "did you mean '"'"'--blind'"'"'" "$tmp/err"'
for c in "dump --format claud x:claude" "search --format codx a b:codex" "--format grk:grok" "watch --format opencod x:opencode" \
         "annotations chek:check" "annotations agre a b:agree" "help anotate:annotate"; do
	args=${c%:*}; want=${c##*:}
	"$kb" $args > /dev/null 2> "$tmp/err"; rc=$?
	t "kbtui $args: 2, did you mean '$want'" '[ $rc -eq 2 ] && grep -q "did you mean '"'"'$want'"'"'?$" "$tmp/err"'
done
"$kb" dump --format zzzzzz x > /dev/null 2> "$tmp/err"; rc=$?
t "a format far from every other: kbtui formats lists them" '[ $rc -eq 2 ] && grep -q "unknown format '"'"'zzzzzz'"'"' (kbtui formats lists them)" "$tmp/err"'
"$kb" export --zzzzzz > /dev/null 2> "$tmp/err"; rc=$?
t "an option far from every other: unknown, no suggestion" '[ $rc -eq 2 ] && grep -q "unknown option '"'"'--zzzzzz'"'"'$" "$tmp/err"'

# problems, checked before the key
"$kb" live --problem 99_none --model m > /dev/null 2> "$tmp/err"; rc=$?
t "live: an unknown problem is named before the missing key" '[ $rc -eq 1 ] && grep -q "no problem '"'"'99_none'"'"'" "$tmp/err" && ! grep -q "API key" "$tmp/err"'
t "live: with no close one, the problems there are listed" 'grep -q "the problems there: 01_fp8_gemm" "$tmp/err"'
"$kb" live --problem fp8_gem --model m > /dev/null 2> "$tmp/err"; rc=$?
t "live --problem fp8_gem: did you mean '01_fp8_gemm'" '[ $rc -eq 1 ] && grep -q "did you mean '"'"'01_fp8_gemm'"'"'" "$tmp/err"'
"$kb" live --problem 01_fp8_gemm --model m > /dev/null 2> "$tmp/err"; rc=$?
t "live: a known problem, no key: the key is asked for" '[ $rc -eq 1 ] && grep -q "no API key" "$tmp/err"'
OPENAI_API_KEY=k "$kb" live --problem 01_fp8_gemm --model m --out "$tmp/live1" > /dev/null 2> "$tmp/err"; rc=$?
t "live: a one-character key is refused at start, with its length and the minimum" '[ $rc -eq 1 ] && grep -q "OPENAI_API_KEY is 1 characters long; an API key has at least 8" "$tmp/err" && [ ! -e "$tmp/live1" ]'
ANTHROPIC_API_KEY=1234567 "$kb" live --provider anthropic --problem 01_fp8_gemm --model m --out "$tmp/live7" > /dev/null 2> "$tmp/err"; rc=$?
t "live: a seven-character Anthropic key too" '[ $rc -eq 1 ] && grep -q "ANTHROPIC_API_KEY is 7 characters long" "$tmp/err" && [ ! -e "$tmp/live7" ]'
echo 'x' > "$tmp/s.cu"
"$kb" eval --problem kahan_sofmax "$tmp/s.cu" > /dev/null 2> "$tmp/err"; rc=$?
t "eval --problem kahan_sofmax: did you mean '04_kahan_softmax', before any sandbox or GPU" '[ $rc -eq 1 ] && grep -q "did you mean '"'"'04_kahan_softmax'"'"'" "$tmp/err" && [ $(wc -l < "$tmp/err") -eq 1 ]'
"$kb" eval --problem 04 "$tmp/none.cu" > /dev/null 2> "$tmp/err"; rc=$?
t "eval of a solution that is not there: No such file or directory" '[ $rc -eq 1 ] && grep -q "none.cu: No such file or directory" "$tmp/err"'
printf -- '- label: a\n  provider: openai\n  model: m\n  key_env: K\n' > "$tmp/models.yaml"
"$kb" sweep --models "$tmp/models.yaml" --problems w4a16_gem --out "$tmp/sw" > /dev/null 2> "$tmp/err"; rc=$?
t "sweep --problems w4a16_gem: did you mean '07_w4a16_gemm', nothing made" '[ $rc -eq 1 ] && grep -q "did you mean '"'"'07_w4a16_gemm'"'"'" "$tmp/err" && [ ! -e "$tmp/sw" ]'
echo "1..$n"
exit $fail
