#!/bin/sh
# kbtui fetch against a fake Hub (tests/fakehub) on 127.0.0.1: the fetched
# tree equals the served one byte for byte, a second fetch downloads
# nothing, interrupted files resume from the byte they had, and each fault
# (404, 401, dropped connection, wrong sha256, disk full, no server, unsafe
# listing) ends with a message that names it. No network beyond loopback;
# every wait is bounded; every server is killed on exit.
kb="$KB_BUILDDIR/kbtui"; fakehub="$KB_BUILDDIR/tests/fakehub"
n=0; fail=0
t() { n=$((n+1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fail=1; fi; }
tmp=$(mktemp -d); pids=""
cleanup() { for p in $pids; do kill "$p" 2> /dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 1' INT TERM

# Only loopback, and none of the caller's Hub settings or proxies.
unset HF_TOKEN HF_HUB_OFFLINE HF_ENDPOINT KBTUI_DATA XDG_DATA_HOME http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy
export NO_PROXY='*' no_proxy='*' HOME="$tmp/home"
mkdir -p "$HOME"
TOKEN="hf_kbtuiTestToken0123456789"
if command -v timeout > /dev/null 2>&1; then bounded() { timeout 180 "$@"; }; else bounded() { "$@"; }; fi

# start_hub NAME [fakehub options] DIR: sets $port; the log is $tmp/NAME.log
start_hub() {
	name=$1; shift
	: > "$tmp/$name.port"
	"$fakehub" --timeout 170 --log "$tmp/$name.log" "$@" > "$tmp/$name.port" 2> "$tmp/$name.err" &
	hubpid=$!; pids="$pids $hubpid"; port=""; i=0
	while [ $i -lt 100 ] && [ -z "$port" ]; do
		port=$(sed -n 's/^port=//p' "$tmp/$name.port"); [ -n "$port" ] || sleep 0.1; i=$((i + 1))
	done
	[ -n "$port" ] || { echo "# fakehub $name did not start: $(cat "$tmp/$name.err")"; exit 1; }
	: > "$tmp/$name.log"
}
stop_hub() { kill "$1" 2> /dev/null; wait "$1" 2> /dev/null; }
# fetch PORT DEST [options]: runs kbtui fetch, output in $tmp/out and $tmp/err, status in $rc
fetch() {
	p=$1; d=$2; shift 2
	HF_ENDPOINT="http://127.0.0.1:$p" bounded "$kb" fetch --dest "$d" "$@" > "$tmp/out" 2> "$tmp/err"; rc=$?
	cat "$tmp/err" >> "$tmp/allerr"
}
same() { diff -r -x .kbtui-fetch "$1" "$2" > /dev/null 2>&1; }
no_parts() { [ -z "$(find "$1" -name '.*.part' 2> /dev/null)" ]; }
size() { if [ -f "$1" ]; then wc -c < "$1" | tr -d ' '; else echo 0; fi; }
count() { c=$(grep -c -- "$1" "$2" 2> /dev/null); echo "${c:-0}"; }

# ---- a small dataset written here: both checksum kinds, an empty file, a
# name that needs escaping, one file large enough to interrupt ----------------
small="$tmp/small"
mkdir -p "$small/runs/r1" "$small/runs/r2" "$small/annotations" "$small/problems/01 fp8 gemm"
cp "$KB_SRCDIR/tests/fixtures/cli/grok_ok.jsonl" "$small/runs/r1/transcript.jsonl"
cp "$KB_SRCDIR/tests/fixtures/cli/grok_ok.jsonl" "$small/runs/r2/transcript.jsonl"
cat > "$small/runs.jsonl" <<'EOF'
{"run_id":"r1","harness":"grok","model":"m1","problem":"01_fp8_gemm","correct":true,"peak_fraction":0.5,"transcript":"runs/r1/transcript.jsonl","annotation":"annotations/r1.yaml"}
{"run_id":"r2","harness":"grok","model":"m2","problem":"01_fp8_gemm","correct":false,"transcript":"runs/r2/transcript.jsonl"}
EOF
printf 'run_id: r1\nverdict: clean\nsummary: >\n  fine\n' > "$small/annotations/r1.yaml"
awk 'BEGIN { for (i = 0; i < 12000; i++) printf "step %06d: 1.234 ms, 0.5 of peak\n", i }' > "$small/runs/r1/benchmark.log"
awk 'BEGIN { for (i = 0; i < 60; i++) printf "    acc[%d] = a[%d] * b[%d]  # unrolled\n", i, i, i }' > "$small/runs/r2/solution.py"
: > "$small/runs/r2/final.txt"
printf 'Write a fast FP8 GEMM.\n' > "$small/problems/01 fp8 gemm/PROMPT é#1.txt"
big=$(size "$small/runs/r1/benchmark.log")
nbig=$(find "$small" -type f -size +1000c | wc -l | tr -d ' ')
nsmall=$(find "$small" -type f | wc -l | tr -d ' ')

# ---- the real sample when it is there --------------------------------------
# The larger sample beside the checkout when it is there, else the four real
# runs that ship with the tests. Pages of a tenth of the files: the listing
# always takes several pages.
real="$KB_SRCDIR/../shared/kbh"
if [ -f "$real/runs.jsonl" ]; then src="$real"; else
	echo "# ../shared/kbh is absent: serving the four runs of tests/fixtures/kbh as the dataset"
	src="$KB_SRCDIR/tests/fixtures/kbh"
fi
nruns=$(grep -c '"run_id"' "$src/runs.jsonl")
nfiles=$(find "$src" -type f | wc -l | tr -d ' ')
page=$((nfiles / 10)); [ "$page" -ge 2 ] || page=2

# ---- a whole fetch, page by page ---------------------------------------------
start_hub main --page-size "$page" "$src"; mainpid=$hubpid; mainport=$port
fetch "$mainport" "$tmp/d1"
t "fetch exits 0" '[ $rc -eq 0 ]'
t "the fetched tree equals the served tree byte for byte" 'same "$src" "$tmp/d1"'
t "no .part file is left" 'no_parts "$tmp/d1"'
t "the summary says what was fetched" 'grep -q "fetched $(find "$src" -type f | wc -l | tr -d " ") files" "$tmp/out"'
t "the listing was read in several pages (Link rel=next)" '[ $(count "/tree/.*cursor=" "$tmp/main.log") -ge 1 ]'
t "no progress drawn when stderr is not a terminal" '! grep -q "$(printf "\r")" "$tmp/err"'
"$kb" runs "$tmp/d1" > "$tmp/runs" 2> /dev/null
missing=0
for id in $(sed -n 's/.*"run_id": *"\([^"]*\)".*/\1/p' "$src/runs.jsonl"); do
	grep -q "^$id " "$tmp/runs" || missing=$((missing + 1))
done
t "kbtui runs on the fetched tree lists all $nruns runs" '[ $missing -eq 0 ] && [ $(grep -c "^[0-9a-z]" "$tmp/runs") -ge $nruns ]'
[ "$src" = "$real" ] && t "the real sample has 127 runs" '[ $nruns -eq 127 ]'

before=$(count "/resolve/" "$tmp/main.log")
fetch "$mainport" "$tmp/d1"
t "a second fetch exits 0 and says up to date" '[ $rc -eq 0 ] && grep -q "up to date" "$tmp/out"'
t "a second fetch downloads nothing" '[ $(count "/resolve/" "$tmp/main.log") -eq $before ]'
stop_hub "$mainpid"

# ---- the default destination is where kbtui looks ------------------------------
start_hub small --lfs-min 1000 --page-size 3 "$small"; smallport=$port
XDG_DATA_HOME="$tmp/xdg" HF_ENDPOINT="http://127.0.0.1:$smallport" bounded "$kb" fetch > "$tmp/out" 2> "$tmp/err"; rc=$?; cat "$tmp/err" >> "$tmp/allerr"
t "fetch without --dest writes \$XDG_DATA_HOME/kbtui/kernelbench-hard-runs (checked by sha256 and git blob ids)" '[ $rc -eq 0 ] && same "$small" "$tmp/xdg/kbtui/kernelbench-hard-runs"'
XDG_DATA_HOME="$tmp/xdg" "$kb" runs > "$tmp/runs" 2> /dev/null
t "kbtui runs with no DIR opens the fetched dataset" 'grep -q "^r1 " "$tmp/runs" && grep -q "^r2 " "$tmp/runs"'

# ---- local changes are kept ----------------------------------------------------
echo "verdict: reward_hack" >> "$tmp/xdg/kbtui/kernelbench-hard-runs/annotations/r1.yaml"
XDG_DATA_HOME="$tmp/xdg" HF_ENDPOINT="http://127.0.0.1:$smallport" bounded "$kb" fetch > "$tmp/out" 2> "$tmp/err"; rc=$?; cat "$tmp/err" >> "$tmp/allerr"
t "an annotation changed here is kept, and the run says so" '[ $rc -eq 0 ] && grep -q "kept annotations/r1.yaml" "$tmp/err" && grep -q "reward_hack" "$tmp/xdg/kbtui/kernelbench-hard-runs/annotations/r1.yaml"'
t "the summary counts it as kept" 'grep -q "1 kept with local changes" "$tmp/out"'

# ---- a dropped connection resumes with a Range request --------------------------
start_hub drop --drop-after 1000 "$small"; droppid=$hubpid
fetch "$port" "$tmp/d2"
t "fetch through dropped connections exits 0" '[ $rc -eq 0 ]'
t "and the tree is complete and equal" 'same "$small" "$tmp/d2" && no_parts "$tmp/d2"'
t "each file cut at 1000 bytes was asked again from byte 1000 ($nbig files)" '[ $(count "/resolve/.* range=1000 " "$tmp/drop.log") -eq $nbig ]'
stop_hub "$droppid"

# ---- an interrupted run resumes where its .part ends -----------------------------
start_hub slow --slow 40 --chunk 4096 "$small"; slowpid=$hubpid; slowport=$port
HF_ENDPOINT="http://127.0.0.1:$slowport" "$kb" fetch --jobs 1 --dest "$tmp/d3" > /dev/null 2>&1 &
fpid=$!; pids="$pids $fpid"
part="$tmp/d3/runs/r1/.benchmark.log.part"; i=0
while [ $i -lt 200 ] && [ "$(size "$part")" -lt 8192 ]; do sleep 0.1; i=$((i + 1)); done
HF_ENDPOINT="http://127.0.0.1:$slowport" bounded "$kb" fetch --dest "$tmp/d3" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "a second fetch into the same place is refused while one runs" '[ $rc -eq 1 ] && grep -q "another kbtui fetch is writing" "$tmp/err"'
kill -TERM "$fpid" 2> /dev/null; wait "$fpid" 2> /dev/null
stop_hub "$slowpid"
have=$(size "$part")
t "the interrupted file is a .part, not under its name" '[ "$have" -gt 0 ] && [ "$have" -lt "$big" ] && [ ! -e "$tmp/d3/runs/r1/benchmark.log" ]'
start_hub resume "$small"
fetch "$port" "$tmp/d3"
t "the next fetch completes it" '[ $rc -eq 0 ] && same "$small" "$tmp/d3" && no_parts "$tmp/d3"'
t "it asked for the rest from byte $have" 'grep -q "runs/r1/benchmark.log range=$have " "$tmp/resume.log"'

# ---- a server that ignores Range, and a .part from another version ---------------
mkdir -p "$tmp/d4/runs/r1"
head -c 1000 "$small/runs/r1/benchmark.log" > "$tmp/d4/runs/r1/.benchmark.log.part"
start_hub norange --no-range "$small"
fetch "$port" "$tmp/d4"
t "a 200 answer to a Range request starts the file over" '[ $rc -eq 0 ] && same "$small" "$tmp/d4" && grep -q "benchmark.log range=1000 " "$tmp/norange.log"'
mkdir -p "$tmp/d5/runs/r1"
awk 'BEGIN { for (i = 0; i < 100; i++) printf "stale bytes\n" }' > "$tmp/d5/runs/r1/.benchmark.log.part"
fetch "$smallport" "$tmp/d5"
t "a .part of other bytes fails its checksum once, then downloads whole" '[ $rc -eq 0 ] && same "$small" "$tmp/d5" && grep -q "benchmark.log: checksum mismatch after resuming; downloading it again whole" "$tmp/err"'

# ---- redirects to a CDN path ----------------------------------------------------
start_hub redir --redirect "$small"
fetch "$port" "$tmp/d6"
t "resolve URLs that redirect are followed" '[ $rc -eq 0 ] && same "$small" "$tmp/d6" && [ $(count "GET /cdn/" "$tmp/redir.log") -eq $nsmall ]'

# ---- a busy Hub (503) is asked again ---------------------------------------
start_hub busy --busy 3 "$small"
fetch "$port" "$tmp/d18"
t "503 answers are asked again (3 busy answers, then the fetch goes on)" '[ $rc -eq 0 ] && same "$small" "$tmp/d18" && [ $(count "/revision/" "$tmp/busy.log") -eq 4 ]'

# ---- 404 ---------------------------------------------------------------------------
fetch "$smallport" "$tmp/d7" --repo nobody/nothing
t "a wrong repo exits 1 and says it was not found" '[ $rc -eq 1 ] && grep -q "404 Not Found: repository nobody/nothing not found" "$tmp/err"'
t "and creates nothing" '[ ! -e "$tmp/d7" ]'
fetch "$smallport" "$tmp/d7" --revision nosuch
t "a wrong revision exits 1 and names it" '[ $rc -eq 1 ] && grep -q "revision .nosuch. not found in Infatoshi/kernelbench-hard-runs" "$tmp/err"'

# ---- 401 and the token ----------------------------------------------------------------
start_hub auth --require-token "$TOKEN" "$small"; authport=$port
fetch "$authport" "$tmp/d8"; cat "$tmp/out" "$tmp/err" > "$tmp/all"
t "without HF_TOKEN: exit 1, 401 and a hint to set HF_TOKEN" '[ $rc -eq 1 ] && grep -q "401 Unauthorized: .*set HF_TOKEN" "$tmp/err"'
HF_TOKEN=hf_wrong fetch "$authport" "$tmp/d8"; cat "$tmp/out" "$tmp/err" >> "$tmp/all"
t "a wrong HF_TOKEN: exit 1, the Hub refused it" '[ $rc -eq 1 ] && grep -q "401 Unauthorized: the Hub refused HF_TOKEN" "$tmp/err"'
t "and the refused token is not shown" '! grep -q hf_wrong "$tmp/err"'
HF_TOKEN="$TOKEN" fetch "$authport" "$tmp/d8"; cat "$tmp/out" "$tmp/err" >> "$tmp/all"
t "with HF_TOKEN the fetch succeeds" '[ $rc -eq 0 ] && same "$small" "$tmp/d8"'
t "the token was sent as a Bearer header" '[ $(count "/resolve/.* auth=ok" "$tmp/auth.log") -eq $nsmall ]'
t "the token is in no file under the destination" '! grep -r -q "$TOKEN" "$tmp/d8"'
t "the token is in no output" '! grep -q "$TOKEN" "$tmp/all"'

# ---- wrong checksums -----------------------------------------------------------------
start_hub badsha --bad-sha runs.jsonl "$small"
fetch "$port" "$tmp/d9"
t "a wrong sha256 exits 1 and says checksum mismatch for that file" '[ $rc -eq 1 ] && grep -q "runs.jsonl: checksum mismatch: sha256 " "$tmp/err"'
t "the bad file is not left under its name, nor as .part" '[ ! -e "$tmp/d9/runs.jsonl" ] && [ ! -e "$tmp/d9/.runs.jsonl.part" ]'
t "the other files are there" 'cmp -s "$small/runs/r1/transcript.jsonl" "$tmp/d9/runs/r1/transcript.jsonl"'
start_hub badgit --bad-sha runs.jsonl --lfs-min 100000000 "$small"
fetch "$port" "$tmp/d10"
t "outside LFS the git blob id is checked" '[ $rc -eq 1 ] && grep -q "runs.jsonl: checksum mismatch: git blob id " "$tmp/err" && [ ! -e "$tmp/d10/runs.jsonl" ]'

# ---- an update upstream replaces a file kbtui wrote, not one changed here -------------
cp -R "$small" "$tmp/small2"
fetch "$smallport" "$tmp/d11"
printf 'Write a faster FP8 GEMM.\n' > "$tmp/small2/problems/01 fp8 gemm/PROMPT é#1.txt"
start_hub upd "$tmp/small2"
fetch "$port" "$tmp/d11"
t "a file changed upstream and untouched here is updated" '[ $rc -eq 0 ] && same "$tmp/small2" "$tmp/d11" && grep -q "fetched 1 files" "$tmp/out"'

# ---- hostile listing -----------------------------------------------------------------
start_hub evil --inject-path ../evil.txt "$small"
fetch "$port" "$tmp/d12/inner"
t "a listed path with .. is refused, named, and exits 1" '[ $rc -eq 1 ] && grep -q "refused: .\.\.. component in path" "$tmp/err"'
t "nothing was written outside the destination or asked for" '[ ! -e "$tmp/d12/evil.txt" ] && [ ! -e "$tmp/evil.txt" ] && [ $(count "evil" "$tmp/evil.log") -eq 0 ]'
t "the other files were fetched" 'same "$small" "$tmp/d12/inner"'

# ---- no server, no disk ---------------------------------------------------------------
start_hub gone "$small"; goneport=$port; stop_hub "$hubpid"
fetch "$goneport" "$tmp/d13"
t "no server: exit 1, cannot connect, naming the endpoint" '[ $rc -eq 1 ] && grep -q "cannot connect to http://127.0.0.1:$goneport" "$tmp/err"'
if [ -c /dev/full ] && [ -w /dev/full ]; then
	mkdir -p "$tmp/d14"; ln -s /dev/full "$tmp/d14/.runs.jsonl.part"
	fetch "$smallport" "$tmp/d14" --jobs 1
	t "disk full: exit 1 and the message says so" '[ $rc -eq 1 ] && grep -q "disk full writing .*runs.jsonl.part" "$tmp/err"'
	t "disk full stops the run instead of failing every file" 'grep -q "stopped: .* more files not fetched" "$tmp/err"'
else
	echo "# SKIP /dev/full is not available: no disk-full check"
fi

# ---- environment and usage -------------------------------------------------------------
: > "$tmp/small.log"
HF_HUB_OFFLINE=1 fetch "$smallport" "$tmp/d15"
t "HF_HUB_OFFLINE=1 refuses to connect" '[ $rc -eq 1 ] && grep -q HF_HUB_OFFLINE "$tmp/err" && [ ! -s "$tmp/small.log" ]'
HF_ENDPOINT="ftp://127.0.0.1/" bounded "$kb" fetch --dest "$tmp/d15" > /dev/null 2> "$tmp/err"; rc=$?
t "an HF_ENDPOINT that is not http(s) is refused" '[ $rc -eq 1 ] && grep -q "HF_ENDPOINT .* is not an http" "$tmp/err"'
"$kb" fetch --jobs 0 > /dev/null 2> "$tmp/err"; rc=$?
t "--jobs 0 is a usage error" '[ $rc -eq 2 ] && grep -q "jobs" "$tmp/err"'
"$kb" fetch somewhere > /dev/null 2> "$tmp/err"; rc=$?
t "a stray argument is a usage error" '[ $rc -eq 2 ]'
"$kb" fetch --repo "../x" > /dev/null 2> "$tmp/err"; rc=$?
t "a repo id that is not owner/name is a usage error" '[ $rc -eq 2 ] && grep -q "not a Hub repository id" "$tmp/err"'

# ---- progress on a terminal --------------------------------------------------------------
if command -v script > /dev/null 2>&1; then
	start_hub tty --slow 20 --chunk 8192 "$small"
	HF_ENDPOINT="http://127.0.0.1:$port" bounded script -qec "'$kb' fetch --dest '$tmp/d16'" /dev/null > "$tmp/tty" 2>&1; cat "$tmp/tty" >> "$tmp/allerr"
	t "on a terminal, progress shows files, bytes and rate" 'grep -q "kbtui fetch: [0-9]*/$nsmall files .* KiB .*/s" "$tmp/tty"'
	HF_ENDPOINT="http://127.0.0.1:$port" bounded script -qec "'$kb' fetch --quiet --dest '$tmp/d17'" /dev/null > "$tmp/tty" 2>&1; cat "$tmp/tty" >> "$tmp/allerr"
	t "--quiet draws no progress and no summary" '[ ! -s "$tmp/tty" ] && same "$small" "$tmp/d17"'
else
	echo "# SKIP script(1) is not installed: no terminal progress check"
fi

# ---- libcurl and libcrypto are loaded at first use (src/netlib.c) ----------------------
if command -v readelf > /dev/null 2>&1; then
	readelf -d "$kb" > "$tmp/dyn" 2>&1
	t "kbtui is not linked against libcurl or libcrypto" 'grep -q NEEDED "$tmp/dyn" && ! grep -q "NEEDED.*\(libcurl\|libcrypto\)" "$tmp/dyn"'
fi
# ld.so names every library it loads under LD_DEBUG=files
LD_DEBUG=files "$kb" formats > /dev/null 2> "$tmp/ld"
t "a command that makes no request loads neither" 'grep -q "file=libc.so" "$tmp/ld" && ! grep -q "file=libcurl\|file=libcrypto" "$tmp/ld"'
start_hub lazy "$small"
HF_ENDPOINT="http://127.0.0.1:$port" LD_DEBUG=files bounded "$kb" fetch --quiet --dest "$tmp/d18" > /dev/null 2> "$tmp/ld"; rc=$?
t "fetch loads both at first use and fetches as before" '[ $rc -eq 0 ] && grep -q "file=libcurl" "$tmp/ld" && grep -q "file=libcrypto" "$tmp/ld" && same "$small" "$tmp/d18"'

# under --enable-sanitizers a report would hide behind an expected exit 1
t "no sanitizer report in any run" '! grep -q "Sanitizer\|runtime error" "$tmp/allerr"'

echo "1..$n"
exit $fail
