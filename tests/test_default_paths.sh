#!/bin/sh
# The default-path tier: each command a user runs, once, as a new user on a
# machine without a GPU runs it. No bypass flag (--no-eval, --sandbox none,
# a fake nvcc or nvidia-smi, a cache or data override): the only thing
# faked is the far end (a model server and a Hub on 127.0.0.1). The user
# is new: a fresh $HOME with no XDG variables, so kbtui's caches and data
# go where they go for anyone. Every step checks the exit status, stderr
# and the files written. tests/run.sh fails any test whose processes left
# a sanitizer report or died by a signal, so under --enable-sanitizers this
# tier is the sanitizer tier of the default paths.
. "$KB_SRCDIR/tests/tmux.sh"
KB_WAIT=${KB_WAIT:-300}
fakellm="$KB_BUILDDIR/tests/fakellm"; fakehub="$KB_BUILDDIR/tests/fakehub"
for p in "$fakellm" "$fakehub"; do
	[ -x "$p" ] || { echo "1..0 # SKIP $p is not built (make check builds it)"; exit 0; }
done
command -v jq > /dev/null 2>&1 || { echo "1..0 # SKIP jq is not installed"; exit 0; }

# A new user: nothing of the test runner's or the caller's settings.
unset KBTUI_DATADIR KBTUI_DATA KBTUI_NO_CACHE KBTUI_NVCC KBTUI_SANDBOX KBTUI_BWRAP KBTUI_GPU_LOCK \
	KBTUI_FLAGS KBTUI_LAYOUT KBTUI_THEME KBTUI_HARDWARE KBTUI_KBH KBTUI_PYTHON KBTUI_ANNOTATOR \
	XDG_CACHE_HOME XDG_DATA_HOME XDG_CONFIG_HOME XDG_STATE_HOME HF_TOKEN HF_HUB_OFFLINE HF_ENDPOINT \
	OPENAI_API_KEY ANTHROPIC_API_KEY http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy
export NO_PROXY='*' no_proxy='*' HOME="$tmp/home"
mkdir -p "$HOME" "$tmp/cwd"
cd "$tmp/cwd" || exit 1
sample="$KB_SRCDIR/data/sample"
nsample=$(ls "$sample/runs" | wc -l)
KEY="sk-test-DEFAULT-path-7731"
pids=""
trap 'for p in $pids; do kill $p 2> /dev/null; done; tm kill-server > /dev/null 2>&1; rm -rf "$tmp"' EXIT

# quiet FILE: true when FILE (a command's stderr) is empty
quiet() { [ ! -s "$1" ]; }
# sane FILE...: no crash or sanitizer words in any of them
sane() { ! grep -qE 'Sanitizer|runtime error|double free|free\(\)|Segmentation fault|core dumped|Aborted' "$@" 2> /dev/null; }
# exited NAME STATUS: the tmux session NAME shows that kbtui exited with STATUS
exited() { wait_for "$1" "kbtui exited: $2"; }
# wait_until_file FILE: waits (bounded) for FILE to be there and not empty
wait_until_file() {
	wf=0
	while [ $wf -lt "$KB_WAIT" ]; do [ -s "$1" ] && return 0; sleep 0.1; wf=$((wf + 1)); done
	return 1
}
# a run id of the sample, by problem
rid() { basename "$(ls -d "$sample"/runs/*_"$1"* | head -1)"; }

# serve NAME SCRIPT: a fake model server; sets $port
serve() {
	"$fakellm" --script "$2" --log "$tmp/$1.llmlog" --timeout 600 > "$tmp/$1.port" 2> "$tmp/$1.llmerr" &
	pids="$pids $!"; port=""; i=0
	while [ $i -lt 300 ] && [ -z "$port" ]; do
		port=$(sed -n 's/^port=//p' "$tmp/$1.port"); [ -n "$port" ] || sleep 0.1; i=$((i + 1))
	done
	[ -n "$port" ] || echo "# fakellm did not start: $(cat "$tmp/$1.llmerr")"
}
# the reply a model gives: write a solution, then say it is done
cat > "$tmp/solve.jsonl" <<'EOF'
{"text": "Writing the kernel.", "tool": "write_file", "args": "{\"path\": \"solution.cu\", \"content\": \"// a solution\\n\"}"}
{"text": "Done."}
EOF
# what a run's result.json says when the eval could not run here: no GPU
# (or, on a machine without nvcc, no compiler): never a pass, never a crash
judged_no_gpu() {
	jq -e '.correct == false and .peak_fraction == null and
		(.judged | test("^no: the eval backend did not run: .*(GPU|CUDA|device|nvcc)"))' "$1" > /dev/null
}

# ---- the browser: kbtui with no PATH, outside any dataset -> the sample ------------------
start br "$kb"
t "browser: kbtui with no PATH opens the bundled sample" 'wait_for br "$nsample runs" "04_kahan_softmax" "07_w4a16_gemm"'
keys br Enter
t "browser: Enter replays the selected run" 'wait_for br "event 1/"'
keys br q
t "browser: q leaves the replay for the list" 'wait_for br "$nsample runs"'
keys br q
t "browser: q quits with status 0" 'exited br 0'
t "browser: stderr is empty" 'quiet "$tmp/br.err"'

# ---- the replay: kbtui RUN_ID inside the dataset ------------------------------------------
r07=$(rid 07_w4a16)
tm new-session -d -s rp -x 160 -y 45 -c "$sample" \
	"env -u NO_COLOR '$kb' '$r07' 2> '$tmp/rp.err'; echo \"kbtui exited: \$?\"; sleep 30" 2> /dev/null
t "replay: kbtui RUN_ID in the dataset opens its replay" 'wait_for rp "event 1/" "07_w4a16_gemm"'
keys rp G
t "replay: G goes to the last event" 'wait_for rp "event ([0-9]+)/\1"'
keys rp q
t "replay: q quits with status 0, stderr empty" 'exited rp 0 && quiet "$tmp/rp.err"'
t "replay: the search cache went under the new user's ~/.cache" '[ ! -e "$sample/.cache" ]'

# ---- watch: a transcript that does not exist yet, then grows -----------------------------
src=$(ls "$sample"/runs/*_04_kahan*/transcript.jsonl)
mkdir "$tmp/w"
start wa "$kb" watch "$tmp/w/transcript.jsonl"
t "watch: waits for a file that is not there yet" 'wait_for wa "WAITING for the file"'
head -n 3 "$src" > "$tmp/w/transcript.jsonl"
t "watch: shows the first events once the file appears" 'wait_for wa "event [0-9]+/[0-9]+"'
cat "$src" > "$tmp/w/transcript.jsonl.new" && mv "$tmp/w/transcript.jsonl.new" "$tmp/w/transcript.jsonl"
total=$("$kb" dump --jsonl "$src" 2> /dev/null | wc -l)
t "watch: follows the file to its whole length ($total events)" 'wait_for wa "/$total( |$)"'
keys wa q
t "watch: q quits with status 0, stderr empty" 'exited wa 0 && quiet "$tmp/wa.err"'

# ---- live, headless: the default sandbox and the default final eval ---------------------
serve lh "$tmp/solve.jsonl"
OPENAI_API_KEY=$KEY "$kb" live --problem 04_kahan_softmax --model M --provider openai \
	--base-url "http://127.0.0.1:$port/v1" --headless --out "$tmp/lh" > "$tmp/lh.out" 2> "$tmp/lh.err" < /dev/null
rc=$?
t "live --headless: exits 0 (it ended, the eval saying why it could not judge)" '[ $rc -eq 0 ]'
t "live --headless: stderr has no crash or sanitizer report" 'sane "$tmp/lh.err" && quiet "$tmp/lh.err"'
t "live --headless: says it is done" 'grep -q "kbtui live: done after 2 turns, 1 tool calls" "$tmp/lh.out"'
t "live --headless: the run directory holds transcript, solution and result.json" '
	[ -s "$tmp/lh/transcript.jsonl" ] && [ -s "$tmp/lh/solution.cu" ] && [ -s "$tmp/lh/result.json" ]'
t "live --headless: result.json says why the eval did not judge (no GPU here)" 'judged_no_gpu "$tmp/lh/result.json"'
t "live --headless: the recorded run replays (kbtui dump)" '"$kb" dump --jsonl "$tmp/lh/transcript.jsonl" > "$tmp/lh.dump" 2> "$tmp/lh.dumperr" &&
	quiet "$tmp/lh.dumperr" && grep -q "\"kind\":\"tool_call\"" "$tmp/lh.dump"'
t "live --headless: the key is in no file" '! grep -rq "$KEY" "$tmp/lh" "$tmp/lh.out"'

# ---- live, on its screen -----------------------------------------------------------------
serve lt "$tmp/solve.jsonl"
start lt OPENAI_API_KEY=$KEY "$kb" live --problem 04_kahan_softmax --model M --provider openai \
	--base-url "http://127.0.0.1:$port/v1" --out "$tmp/lt"
t "live screen: the run ends on screen" 'wait_for lt "[Dd]one"'
t "live screen: result.json is written (no GPU: not judged)" 'wait_until_file "$tmp/lt/result.json" && judged_no_gpu "$tmp/lt/result.json"'
keys lt q
sleep 0.3
cap lt; has "kbtui exited" || keys lt y
t "live screen: q quits with status 0, stderr empty" 'exited lt 0 && quiet "$tmp/lt.err"'

# ---- sweep: one model on one problem, local executor, default sandbox and eval ----------
serve sw "$tmp/solve.jsonl"
cat > "$tmp/models.yaml" <<EOF
models:
  - label: fake-a
    provider: openai
    model: fake-a
    base_url: http://127.0.0.1:$port/v1
    key_env: SWEEP_KEY
EOF
SWEEP_KEY=$KEY "$kb" sweep --models "$tmp/models.yaml" --problems 04 --out "$tmp/sw" \
	> "$tmp/sw.out" 2> "$tmp/sw.err" < /dev/null
rc=$?
t "sweep: exits 0 with its one cell done" '[ $rc -eq 0 ] && grep -q "^1 cells: 1 done" "$tmp/sw.out"'
t "sweep: stderr empty" 'quiet "$tmp/sw.err"'
t "sweep: no crash in the cell's own log" 'sane "$tmp"/sw/runs/*/live.err'
t "sweep: the cell's result.json says why it was not judged" 'judged_no_gpu "$tmp"/sw/runs/*/result.json'
t "sweep: --status agrees with the files" '"$kb" sweep --status "$tmp/sw" --json 2> "$tmp/st.err" |
	jq -e ".cells | length == 1 and .[0].state == \"done\"" > /dev/null && quiet "$tmp/st.err"'
t "sweep: its folder is a dataset kbtui runs lists" '"$kb" runs "$tmp/sw" > "$tmp/swruns" 2> "$tmp/swruns.err" &&
	quiet "$tmp/swruns.err" && grep -q "04_kahan_softmax" "$tmp/swruns"'
t "sweep: the key is in no file" '! grep -rq "$KEY" "$tmp/sw"'

# ---- eval: no GPU -> a clear 'no device' result, nothing crashes --------------------------
"$kb" eval --problem 04 "$KB_SRCDIR/problems/04_kahan_softmax/baseline.cu" > "$tmp/ev.out" 2> "$tmp/ev.err"
rc=$?
if command -v nvidia-smi > /dev/null 2>&1 && nvidia-smi -L 2> /dev/null | grep -q '^GPU'; then
	echo "# SKIP eval without a GPU: this machine has one (tests/gpu/run.sh covers it)"
else
	t "eval: exits 1 (not judged), no crash" '[ $rc -eq 1 ] && sane "$tmp/ev.err"'
	t "eval: stderr says there is no CUDA device, once" '[ "$(grep -c "no CUDA device here" "$tmp/ev.err")" -eq 1 ]'
	t "eval: result.json records no_device and no verdict" 'jq -e ".no_device == true and .correct == false and
		.peak_fraction == null" kbtui-eval-04_kahan_softmax/result.json > /dev/null'
fi

# ---- search: cold, then warm from the new user's cache ----------------------------------
"$kb" search -c 'kahan' "$sample" > "$tmp/s1" 2> "$tmp/s1.err"; rc1=$?
"$kb" search -c 'kahan' "$sample" > "$tmp/s2" 2> "$tmp/s2.err"; rc2=$?
t "search: finds the word in the sample (exit 0), stderr empty" '[ $rc1 -eq 0 ] && [ -s "$tmp/s1" ] && quiet "$tmp/s1.err"'
t "search: the warm search answers the same" '[ $rc2 -eq 0 ] && cmp -s "$tmp/s1" "$tmp/s2" && quiet "$tmp/s2.err"'
t "search: its cache is under ~/.cache/kbtui, private to the user" '
	[ -d "$HOME/.cache/kbtui" ] && [ -z "$(find "$HOME/.cache/kbtui" -maxdepth 0 -perm /022)" ]'
"$kb" search 'no-such-word-zq' "$sample" > "$tmp/s3" 2> "$tmp/s3.err"; rc=$?
t "search: no match is exit 1 with nothing on stderr" '[ $rc -eq 1 ] && [ ! -s "$tmp/s3" ] && quiet "$tmp/s3.err"'

# ---- fetch from a Hub on loopback into the default place, then open it -----------------
"$fakehub" --timeout 170 --log "$tmp/hub.log" "$sample" > "$tmp/hub.port" 2> "$tmp/hub.err" &
pids="$pids $!"; port=""; i=0
while [ $i -lt 100 ] && [ -z "$port" ]; do
	port=$(sed -n 's/^port=//p' "$tmp/hub.port"); [ -n "$port" ] || sleep 0.1; i=$((i + 1))
done
HF_ENDPOINT="http://127.0.0.1:$port" "$kb" fetch > "$tmp/f.out" 2> "$tmp/f.err" < /dev/null
rc=$?
dest="$HOME/.local/share/kbtui/kernelbench-hard-runs"
t "fetch: exits 0 into ~/.local/share/kbtui (stderr: progress and summary only)" '[ $rc -eq 0 ] && sane "$tmp/f.err" &&
	! grep -qiE "error|fail" "$tmp/f.err"'
t "fetch: the fetched tree is the served one" 'diff -r -x .kbtui-fetch "$sample" "$dest" > /dev/null'
"$kb" runs > "$tmp/fr" 2> "$tmp/fr.err"; rc=$?
t "fetch: kbtui runs with no DIR lists the fetched dataset, and says so" '[ $rc -eq 0 ] &&
	[ "$(grep -c _0[1-7]_ "$tmp/fr")" -eq "$nsample" ] && [ "$(cat "$tmp/fr.err")" = "kbtui: dataset: $dest (no DIR given and none here: the fetched one)" ]'

# ---- annotate: a verdict into a copy of the sample ---------------------------------------
cp -R "$sample" "$tmp/ds"
r04=$(rid 04_kahan)
"$kb" annotate "$r04" --verdict reward_hack --summary "The kernel skips the reduction." \
	--implication "Do not count this cell." --annotator tester "$tmp/ds" > "$tmp/an.out" 2> "$tmp/an.err"
rc=$?
t "annotate: exits 0, stderr empty" '[ $rc -eq 0 ] && quiet "$tmp/an.err"'
t "annotate: the file holds the verdict, the implication and the annotator" '
	grep -q "^verdict: reward_hack" "$tmp/ds/annotations/$r04.yaml" &&
	grep -q "Do not count this cell" "$tmp/ds/annotations/$r04.yaml" && grep -q "tester" "$tmp/ds/annotations/$r04.yaml"'
t "annotate: the file checks against the schema" '"$kb" annotations check "$tmp/ds" > "$tmp/ac.out" 2> "$tmp/ac.err"'
t "annotate: runs shows the new verdict" '"$kb" runs --jsonl "$tmp/ds" 2> /dev/null |
	jq -s -e "map(select(.run_id == \"$r04\")) | length == 1 and .[0].verdict == \"reward_hack\"" > /dev/null'
t "annotate: no temporary file is left beside it (only the yaml files, SCHEMA.md and the lock)" '
	[ "$(ls -A "$tmp/ds/annotations" | grep -vcE "\.yaml$|^SCHEMA\.md$|^\.kbtui\.lock$")" -eq 0 ]'

t "no process of this tier left a crash or sanitizer report" 'sane "$tmp"/*.err'
echo "1..$n"
exit $fail
