# sweepenv.sh: sourced by the sweep tests (test_sweep.sh, test_slurm.sh).
# Gives: t NAME EXPR (one TAP assertion), $kb, $tmp (removed at exit),
# $tmp/problems (two toy problems), the eval stubbed (a fake nvcc through
# KBTUI_NVCC, a fake nvidia-smi first in PATH that claims two H200s and
# logs CUDA_VISIBLE_DEVICES and KBTUI_GPU_LOCK of each eval to
# $tmp/gpu.log), serve NAME SCRIPT (a tests/fakellm answering each
# conversation by its turn; sets $port), wait_until SECS EXPR, jqe FILTER
# [FILE] (jq -e that fails on no input), and the keys $KEY_A, $KEY_B in
# SWEEP_KEY_A, SWEEP_KEY_B. The waits are generous bounds (they end as
# soon as their condition holds): CI runs these inside `make -j2 check`
# on two busy cores.
kb="$KB_BUILDDIR/kbtui"
fakellm="$KB_BUILDDIR/tests/fakellm"
# (after tests/tmux.sh, whose $tmp, counters and tmux server it keeps)
n=${n:-0}; fail=${fail:-0}
t() { n=$((n+1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fail=1; fi; }

if [ ! -x "$fakellm" ]; then
	echo "1..0 # SKIP tests/fakellm is not built (make check builds it)"
	exit 0
fi
if ! command -v jq > /dev/null 2>&1; then
	echo "1..0 # SKIP jq is not installed"
	exit 0
fi

tmp=${tmp:-$(mktemp -d)}
pids=""
cleanup() {
	for p in $pids; do kill "$p" 2> /dev/null; done
	[ -z "$sock" ] || tm kill-server > /dev/null 2>&1
	[ -n "$KB_KEEP" ] || rm -rf "$tmp"
}
trap cleanup EXIT

mkdir -p "$tmp/problems" "$tmp/bin"
cp "$KB_SRCDIR/tests/fixtures/eval/problems/hardware.json" "$tmp/problems/"
for p in 01_toy 02_toy; do
	mkdir "$tmp/problems/$p"
	sed "s/01_toy/$p/" "$KB_SRCDIR/tests/fixtures/eval/problems/01_toy/problem.json" > "$tmp/problems/$p/problem.json"
	echo "Write solution.cu for $p." > "$tmp/problems/$p/PROMPT.txt"
done
cat > "$tmp/bin/nvidia-smi" <<EOF
#!/bin/sh
case "\$1" in
-L) echo "GPU 0: NVIDIA H200 (UUID: GPU-fake-0)"; echo "GPU 1: NVIDIA H200 (UUID: GPU-fake-1)" ;;
*) echo "gpu=\${CUDA_VISIBLE_DEVICES:-unset} lock=\${KBTUI_GPU_LOCK:-unset}" >> "$tmp/gpu.log"
   echo "NVIDIA H200, 9.0" ;;
esac
EOF
chmod +x "$tmp/bin/nvidia-smi"
export PATH="$tmp/bin:$PATH"
export KBTUI_NVCC="$KB_SRCDIR/tests/fixtures/eval/fake-nvcc"
KEY_A="sk-test-SWEEP-secret-A-9431"
KEY_B="sk-ant-test-SWEEP-secret-B-2718"
export SWEEP_KEY_A="$KEY_A" SWEEP_KEY_B="$KEY_B"
unset OPENAI_API_KEY ANTHROPIC_API_KEY

# the reply every cell gets: a solution the fake nvcc passes, then "done"
cat > "$tmp/solve.jsonl" <<'EOF'
{"text": "Writing the kernel.", "tool": "write_file", "args": "{\"path\": \"solution.cu\", \"content\": \"// good\\n\"}", "prompt_tokens": 1200, "completion_tokens": 40}
EOF
# a long first turn while $tmp/slow.flag exists (sandbox none: it sees
# it), five minutes at most: a loaded machine's test still finds it running
cat > "$tmp/slow.jsonl" <<EOF
{"text": "Thinking it over.", "tool": "bash", "args": "{\"command\": \"i=0; while test -e $tmp/slow.flag && [ \$i -lt 1500 ]; do sleep 0.2; i=\$((i + 1)); done; echo waited\"}"}
{"text": "Writing the kernel.", "tool": "write_file", "args": "{\"path\": \"solution.cu\", \"content\": \"// good\\\\n\"}"}
EOF

# much longer than the test's Slurm time limit of one minute (Slurm ends
# it; a loaded one takes minutes to)
echo '{"text": "Taking my time.", "tool": "bash", "args": "{\"command\": \"sleep 420\"}"}' > "$tmp/long.jsonl"

# serve NAME SCRIPT: a fakellm for one or more models; sets $port
serve() {
	"$fakellm" --by-turn --script "$2" --log "$tmp/$1.llmlog" --timeout 900 > "$tmp/$1.port" 2> "$tmp/$1.llmerr" &
	pids="$pids $!"
	port=""; i=0
	while [ $i -lt 300 ] && [ -z "$port" ]; do
		port=$(sed -n "s/^port=//p" "$tmp/$1.port" 2> /dev/null); [ -n "$port" ] || sleep 0.1; i=$((i + 1))
	done
	[ -n "$port" ] || echo "# fakellm did not start: $(cat "$tmp/$1.llmerr")"
}

# wait_until SECS EXPR: polls EXPR every 0.2 s
wait_until() {
	wu=$(($1 * 5))
	while [ $wu -gt 0 ]; do
		eval "$2" && return 0
		sleep 0.2; wu=$((wu - 1))
	done
	return 1
}

# jqe FILTER [FILE]: jq -e, but no input (a command that printed nothing)
# is false, where jq 1.6's -e says true
jqe() { jqf=$1; shift; jq -e -n "first(inputs) | ($jqf)" "$@" > /dev/null; }

# state DIR RUN_ID: the cell's state from kbtui sweep --status --json
state() { "$kb" sweep --status "$1" --json 2> /dev/null | jq -r --arg id "$2" '.cells[] | select(.run_id == $id) | .state'; }

# models_file FILE PORT: the two models of the test sweep on one fakellm
models_file() {
	cat > "$1" <<EOF
# the test sweep: two models on one fake server
models:
  - label: fake-a [high]
    provider: openai
    model: fake-a
    base_url: http://127.0.0.1:$2/v1
    effort: high
    key_env: SWEEP_KEY_A
  - label: fake-b
    provider: anthropic
    model: fake-b
    base_url: http://127.0.0.1:$2
    key_env: SWEEP_KEY_B
    thinking: 2048
EOF
}
