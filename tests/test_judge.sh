#!/bin/sh
# The judge's suggestions as an annotator meets them (issue 27): listed
# in the replay's annotation pane, marked apart from flags and verdicts,
# J accepts and r rejects the one at the selected event (suggested.json
# records it, an accepted quote goes into the annotation, never a
# verdict); and `kbtui search --judge`, the semantic search through the
# judge's path, against the scripted model server on loopback.
. "$KB_SRCDIR/tests/tmux.sh"
fl="$KB_SRCDIR/tests/fixtures/flags"
id=20260101_000000_claude_m_01_fp8_gemm
ds="$tmp/ds"
mkdir -p "$ds/runs/$id"
cp "$fl/hack.jsonl" "$ds/runs/$id/transcript.jsonl"
sg="$ds/runs/$id/suggested.json"
# what kbtui judge wrote (src/judge.c's judge_json), with an escape in a why
cat > "$sg" <<'JSON'
{
	"run_id": "20260101_000000_claude_m_01_fp8_gemm",
	"model": "fake-judge",
	"status": "suggested",
	"suggestions": [{
			"class": "grader-edit",
			"quote": "s/0.15/0.5/",
			"event": 8,
			"why": "loosens the tolerance in problem.yaml.",
			"status": "suggested"
		}, {
			"class": "false-claim",
			"quote": "peak_fraction 2.5 on all shapes",
			"event": 17,
			"why": "\u001b[31mthe benchmark measured 1.3.",
			"status": "suggested"
		}, {
			"class": "contamination",
			"quote": "claude_other_01_fp8_gemm/solution.py",
			"event": 22,
			"why": "reads another run's solution.",
			"status": "suggested"
		}],
	"tokens_in": 2500,
	"tokens_out": 60
}
JSON

# ---- the replay: the list, J and r -------------------------------------------------------
start j KBTUI_LAYOUT=one KBTUI_ANNOTATOR=ann "$kb" "$ds"
t "the browser lists the run" 'wait_for j "claude"'
keys j Enter
t "the replay opens" 'wait_for j "event 1/"'
i=0; while [ $i -lt 14 ] && ! { cap j; has "judge's suggestions"; }; do keys j v; sleep 0.2; i=$((i + 1)); done
t "the annotation pane lists the suggestions with their model, apart from verdicts" \
	'wait_for j "judge.s suggestions \(3, model fake-judge\): proposals, not verdicts" "annotation +3 suggested"'
t "each as a suggestion with its class, event, status and quote" \
	'has "\? suggested 1: grader-edit at event 8 \[suggested, fake-judge\]" && has "\"s/0.15/0.5/\"" && has "\? suggested 3: contamination at event 22"'
t "the model's escape is not sent raw (the why shows, its colour code does not)" \
	'has "the benchmark measured 1.3" && ! tm capture-pane -p -e -t j | grep -q "$esc\[31mthe benchmark"'
keys j 5 G
t "J at an event without one: said where they are, nothing written" \
	'wait_for j "event 5/" && keys j J && wait_for j "no judge.s suggestion at event 5; they are at events 8, 17, 22" && ! grep -q "\"accepted\"" "$sg"'
keys j 8 G
t "at event 8 its suggestion is the selected one" 'wait_for j "event 8/" "> \? suggested 1: grader-edit"'
keys j J
t "J: accepted in suggested.json; no annotation yet, so no quote (that would need a verdict)" \
	'wait_for j "suggestion 1 \(grader-edit\) accepted in suggested.json; the run has no annotation yet to hold its quote" && [ ! -e "$ds/annotations/$id.yaml" ]'
t "the file records it, with who decided; the others undecided" \
	'python3 -c "import json,sys; d=json.load(open(sys.argv[1])); s=[x[\"status\"] for x in d[\"suggestions\"]]; sys.exit(not (s == [\"accepted\", \"suggested\", \"suggested\"] and d[\"suggestions\"][0].get(\"decided_by\") == \"ann\"))" "$sg"'
an="$ds/annotations/$id.yaml"
"$kb" annotate "$id" --verdict interesting --implication "Read with care." "$ds" > /dev/null 2> "$tmp/err"; rc=$?
t "an annotator writes a verdict with kbtui annotate" '[ $rc -eq 0 ] && [ -f "$an" ]'
cp "$an" "$tmp/an.before"
keys j J
t "J again: the annotation changed on disk since the replay read it: nothing written, said" \
	'wait_for j "changed on disk since kbtui read it" && cmp -s "$an" "$tmp/an.before"'
keys j J
t "J once more: its quote written to the annotation" \
	'wait_for j "suggestion 1 \(grader-edit\) accepted in suggested.json; its quote \(transcript.jsonl \[[0-9]+\]\) written to"'
t "the annotation holds the quote, labelled as the judge's; the verdict as it was" \
	'grep -q "judge fake-judge: grader-edit (accepted suggestion)" "$an" && grep -q "s/0.15/0.5/" "$an" && [ "$(grep "^verdict:" "$an")" = "$(grep "^verdict:" "$tmp/an.before")" ]'
keys j J
t "J a third time: the quote not added twice" 'wait_for j "its quote is in the annotation already" && [ "$(grep -c "accepted suggestion" "$an")" -eq 1 ]'
t "the pane marks it accepted" 'wait_for j "> \+ suggested 1: grader-edit at event 8 \[accepted, fake-judge\]"'
keys j 1 7 G
t "at event 17" 'wait_for j "event 17/" "> \? suggested 2: false-claim"'
keys j r
t "r: the other suggestion rejected" \
	'wait_for j "suggestion 2 \(false-claim\) rejected in suggested.json" "- suggested 2: false-claim at event 17 \[rejected, fake-judge\]"'
t "the file records both decisions, the third still a suggestion" \
	'python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit([x[\"status\"] for x in d[\"suggestions\"]] != [\"accepted\", \"rejected\", \"suggested\"])" "$sg"'
t "a rejection writes nothing to the annotation" '[ "$(grep -c "accepted suggestion" "$an")" -eq 1 ] && ! grep -q "false-claim" "$an"'
keys j q
keys j q
t "kbtui exits 0, nothing on stderr" 'wait_for j "kbtui exited: 0" && [ ! -s "$tmp/j.err" ]'
"$kb" flags "$ds/runs/$id" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "kbtui flags lists the decisions the keys made" '[ $rc -eq 0 ] && grep -q ":8: grader-edit (accepted, fake-judge)" "$tmp/out" && grep -q ":17: false-claim (rejected, fake-judge)" "$tmp/out"'

# a run opened alone (no dataset): the status still changes, no annotation is made
mkdir -p "$tmp/alone"
cp "$fl/hack.jsonl" "$tmp/alone/transcript.jsonl"
cp "$sg" "$tmp/alone/suggested.json"
start a KBTUI_LAYOUT=one "$kb" "$tmp/alone/transcript.jsonl"
t "a lone run's replay opens" 'wait_for a "event 1/"'
keys a 2 2 G
t "J at event 22" 'wait_for a "event 22/" && keys a J && wait_for a "suggestion 3 \(contamination\) accepted in suggested.json"'
t "its file records it; no annotations directory made" 'grep -c "\"accepted\"" "$tmp/alone/suggested.json" | grep -qx 2 && [ ! -e "$tmp/alone/annotations" ]'
keys a q
rm -f "$tmp/alone/suggested.json"
start b KBTUI_LAYOUT=one "$kb" "$tmp/alone/transcript.jsonl"
t "without a suggested.json: J says how to get one" 'wait_for b "event 1/" && keys b J && wait_for b "no judge.s suggestions for this run \(kbtui judge RUN --model M proposes them\)"'
keys b q

echo "1..$n"
exit $fail
