#!/bin/sh
# kbtui eval runs the solution's steps in the sandbox by default: a spying
# nvcc (KBTUI_NVCC) records what it sees, and under the default sandbox it
# sees no planted secret, no capability and a /dev without the host's
# disks; --sandbox none is honoured only when asked for, a bad value is a
# usage error, and without a working bwrap the eval is refused.
kb="$KB_BUILDDIR/kbtui"
n=0; fail=0
t() { n=$((n+1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fail=1; fi; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
spy="$tmp/spy"; mkdir -p "$spy"
cat > "$tmp/nvcc" <<EOS
#!/bin/sh
# writes what a step sees where the test reads it (the spy directory is
# outside the eval's work directory: in the sandbox that write fails, so
# the step also prints it on stdout, which the eval keeps in its log)
{ env; grep -E '^CapEff' /proc/self/status; ls /dev; } > "$spy/seen.\$\$" 2> /dev/null
echo "SPY-ENV-BEGIN"; env; grep -E '^CapEff' /proc/self/status; echo "SPY-ENV-END"
exit 1
EOS
chmod +x "$tmp/nvcc"
printf 'extern "C" int kb_solution(void) { return 0; }\n' > "$tmp/solution.cu"
run() { # run NAME [kbtui eval options]: output in $tmp/NAME.out, status in $rc
	name=$1; shift
	(cd "$tmp" && HF_TOKEN=hf_PLANTED_SECRET GITHUB_TOKEN=ghp_PLANTED_SECRET KBTUI_NVCC="$tmp/nvcc" \
		"$kb" eval --problem 04 --arch sm_90a --workdir "$tmp/wd-$name" "$@" solution.cu) > "$tmp/$name.out" 2>&1 < /dev/null
	rc=$?
}

run bad --sandbox bogus
t "--sandbox takes none or bwrap only" '[ $rc -eq 2 ] && grep -q "none or bwrap" "$tmp/bad.out"'

if command -v bwrap > /dev/null 2>&1 && bwrap --ro-bind / / --unshare-net true 2> /dev/null; then
	unset KBTUI_SANDBOX
	run boxed
	all=$(cat "$tmp/boxed.out" "$tmp"/wd-boxed/*.log 2> /dev/null)
	t "the default eval ran the spying nvcc" 'printf "%s\n" "$all" | grep -q SPY-ENV-BEGIN'
	t "... in the sandbox: no planted secret in its environment" '! printf "%s\n" "$all" | grep -q PLANTED_SECRET'
	t "... and no capability" 'printf "%s\n" "$all" | grep -q "CapEff:.0000000000000000"'
	t "... and it could not write outside the work directory" '[ -z "$(ls "$spy")" ]'
	# a header beside the solution is still there to include (its
	# directory is shown read-only; the rest of /tmp is private)
	nv=/usr/local/cuda/bin/nvcc
	if [ -x "$nv" ]; then
		mkdir -p "$tmp/inc"
		printf '#pragma once\nstatic const int kb_beside = 1;\n' > "$tmp/inc/beside.h"
		printf '#include "beside.h"\n#include <cuda_runtime.h>\nextern "C" int kb_unused(void) { return kb_beside; }\n' > "$tmp/inc/solution.cu"
		(cd "$tmp/inc" && KBTUI_NVCC="$nv" "$kb" eval --problem 04 --arch sm_90a --workdir "$tmp/wd-inc" solution.cu) \
			> "$tmp/inc.out" 2>&1 < /dev/null
		t "a header beside the solution is found inside the sandbox" \
			'grep -q "kbtui eval: 04_kahan_softmax" "$tmp/inc.out" && ! grep -q "beside.h: No such file" "$tmp/inc.out"'
	fi
	run open --sandbox none
	t "--sandbox none runs it unsandboxed, as asked" '[ -n "$(ls "$spy")" ] && cat "$spy"/seen.* | grep -q PLANTED_SECRET'
else
	echo "# SKIP bwrap does not work here: the sandboxed eval is not tried"
fi

# no bwrap on PATH: refused, and it says how to choose otherwise
mkdir -p "$tmp/bin"
(cd "$tmp" && PATH="$tmp/bin" KBTUI_NVCC="$tmp/nvcc" "$kb" eval --problem 04 --arch sm_90a --workdir "$tmp/wd-nobw" solution.cu) \
	> "$tmp/nobw.out" 2>&1 < /dev/null
rc=$?
t "without a working bwrap the eval is refused, naming the way out" '[ $rc -eq 1 ] && grep -q "KBTUI_SANDBOX=none" "$tmp/nobw.out"'
echo "1..$n"
exit $fail
