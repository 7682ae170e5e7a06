#!/bin/sh
# kbtui sweep on a real Slurm: the test writes a slurm.conf for this one
# machine (its CPU count, private state and spool directories, unprivileged
# ports, select/cons_tres, proctrack/linuxproc, no cgroup plugin), starts
# munged (private key and socket), slurmctld and slurmd as its own
# children, runs the 2 models x 2 problems sweep against tests/fakellm with
# the eval stubbed (one sbatch --array job), checks the four runs and rows,
# that a second run of the command submits nothing, that cancelling a long
# cell works (scancel; the cell says it was killed, no row), that a cell
# past its time limit says so too (KB_SLURM_QUICK=1 leaves that out: it takes
# Slurm a minute or more), that no key is
# in the job script, Slurm's saved environment, its spool or logs, or any
# file of the sweep, and stops the daemons. The keys reach the tasks the way
# a cluster would give them: a TaskProlog reading a file outside all that.
# When Slurm cannot start here the test says why: it fails with CI=true in
# the environment, and is skipped otherwise. CI runs it inside
# `make -j2 check` on two busy cores: Slurm's timeouts are set for a
# loaded machine and the waits are generous bounds.
. "$KB_SRCDIR/tests/sweepenv.sh"

cannot() {
	if [ "$CI" = true ]; then
		echo "not ok 1 - Slurm must run in CI: $1"
		echo "1..1"
		exit 1
	fi
	echo "1..0 # SKIP Slurm cannot run here: $1"
	exit 0
}

for p in munged slurmctld slurmd sbatch squeue scancel sinfo; do
	command -v $p > /dev/null 2>&1 || [ -x /usr/sbin/$p ] || cannot "$p is not installed (setup-debian.sh installs slurmctld slurmd slurm-client munge)"
done
PATH="$PATH:/usr/sbin"
asroot=""
if [ "$(id -u)" -ne 0 ]; then
	sudo -n true 2> /dev/null || cannot "slurmd runs jobs as root here and this user has no passwordless sudo"
	asroot="sudo -n"
fi

# ---- the cluster of one machine ------------------------------------------------------
s="$tmp/slurm"
mkdir -p "$s/munge" "$s/state" "$s/spool" "$s/log" "$tmp/secrets"
chmod 700 "$s/munge"
dd if=/dev/urandom of="$s/munge/munge.key" bs=1024 count=1 2> /dev/null
chmod 600 "$s/munge/munge.key"
node=$(hostname -s)
cpus=$(nproc)
base=$((20000 + $$ % 20000))
user=$(id -un)
[ -n "$asroot" ] && user=root
cat > "$s/slurm.conf" <<EOF
ClusterName=kbtest
SlurmctldHost=$node(127.0.0.1)
SlurmUser=$user
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$s/munge/munge.socket
SlurmctldPort=$base
SlurmdPort=$((base + 1))
StateSaveLocation=$s/state
SlurmdSpoolDir=$s/spool
SlurmctldPidFile=$s/slurmctld.pid
SlurmdPidFile=$s/slurmd.pid
SlurmctldLogFile=$s/log/slurmctld.log
SlurmdLogFile=$s/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
KillWait=30
InactiveLimit=0
# a loaded machine answers slowly: no RPC given up on, no node set down,
# no step called unkillable (which drains the node) for being slow
MessageTimeout=60
TCPTimeout=30
SlurmdTimeout=600
SlurmctldTimeout=600
BatchStartTimeout=120
UnkillableStepTimeout=300
MinJobAge=300
TaskProlog=$s/taskprolog.sh
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=kbtest Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
# the site's way of giving a task its keys: here, a file no part of the sweep or of Slurm holds
printf 'SWEEP_KEY_A=%s\nSWEEP_KEY_B=%s\n' "$KEY_A" "$KEY_B" > "$tmp/secrets/keys.env"
chmod 600 "$tmp/secrets/keys.env"
cat > "$s/taskprolog.sh" <<EOF
#!/bin/sh
sed 's/^/export /' "$tmp/secrets/keys.env"
EOF
chmod 755 "$s/taskprolog.sh"
export SLURM_CONF="$s/slurm.conf"

daemons=""
# a daemon that has not ended (an ended one is a zombie until waited for)
alive() { as=$(ps -o stat= -p "$1" 2> /dev/null); [ -n "$as" ] && case $as in Z*) false ;; *) true ;; esac; }
# stops them within a bound: the jobs of this cluster cancelled, then
# SIGTERM, and SIGKILL to a daemon still there after 30 s (a slurmd waiting
# on a job step once hung a run of the suite here for half an hour)
stop_daemons() {
	[ -n "$daemons" ] && command -v timeout > /dev/null 2>&1 && timeout 20 scancel --quiet --full --user="$(id -un)" 2> /dev/null
	for p in $daemons; do $asroot kill "$p" 2> /dev/null; done
	sd=0
	while [ $sd -lt 150 ]; do
		sl=""
		for p in $daemons; do alive "$p" && sl="$sl $p"; done
		[ -z "$sl" ] && break
		sleep 0.2; sd=$((sd + 1))
	done
	for p in $sl; do echo "# daemon $p still up after 30 s: killed"; $asroot kill -KILL "$p" 2> /dev/null; done
	for p in $daemons; do wait "$p" 2> /dev/null; done
	daemons=""
}
trap 'stop_daemons; cleanup' EXIT

$asroot munged -F -f --socket="$s/munge/munge.socket" --key-file="$s/munge/munge.key" \
	--pid-file="$s/munge/munged.pid" --seed-file="$s/munge/munged.seed" --log-file="$s/log/munged.log" \
	> "$s/log/munged.out" 2>&1 &
daemons="$!"
wait_until 60 '[ -S "$s/munge/munge.socket" ]' || cannot "munged did not start: $(tail -n 3 "$s/log/munged.out" | tr '\n' ' ')"
$asroot slurmctld -D -i -f "$s/slurm.conf" > "$s/log/slurmctld.out" 2>&1 &
daemons="$daemons $!"
$asroot slurmd -D -f "$s/slurm.conf" > "$s/log/slurmd.out" 2>&1 &
daemons="$daemons $!"
idle() { sinfo -h -o %T 2> /dev/null | grep -qx idle; }
wait_until 120 idle || cannot "the node did not come up: $(tail -n 3 "$s/log/slurmctld.log" "$s/log/slurmd.log" 2> /dev/null | tr '\n' ' ')"
echo "# slurm: $(sinfo -h -o '%N %c CPUs %T') ($(sinfo --version)), ports $base/$((base + 1))"

# ---- a cell past its time limit (submitted first: Slurm takes a minute or more to end it) ----
if [ -z "$KB_SLURM_QUICK" ]; then
	serve long "$tmp/long.jsonl"
	printf -- '- label: long\n  model: fake-a\n  base_url: http://127.0.0.1:%s/v1\n  key_env: SWEEP_KEY_A\n' "$port" > "$tmp/long.yaml"
	l="$tmp/timelimit"
	"$kb" sweep --executor slurm --no-gpu --models "$tmp/long.yaml" --problems 01 --problems-dir "$tmp/problems" \
		--out "$l" --budget 10m --sandbox none --sbatch-opt=--time=1 > "$tmp/l1.out" 2>&1
	sed 's/^/# /' "$tmp/l1.out"
fi

# ---- the sweep as one array job ------------------------------------------------------------
serve main "$tmp/solve.jsonl"
models_file "$tmp/models.yaml" "$port"
d="$tmp/sweep"
sweep() { "$kb" sweep --executor slurm --no-gpu --models "$tmp/models.yaml" --problems all \
	--problems-dir "$tmp/problems" --out "$d" --budget 2m --sandbox none --parallel 2 "$@"; }
sweep > "$tmp/s1.out" 2> "$tmp/s1.err"
rc=$?
sed 's/^/# /' "$tmp/s1.out" "$tmp/s1.err"
job=$(sed -n 's/^kbtui sweep: submitted job \([0-9]*\): .*/\1/p' "$tmp/s1.out")
t "one sbatch --array job for the four cells" '[ $rc -eq 0 ] && [ -n "$job" ] && grep -q "submitted job $job: 4 cells (array 0-3)" "$tmp/s1.out"'
"$kb" sweep --status "$d" --json > "$tmp/pending.json" 2>&1
"$kb" sweep --status "$d" > "$tmp/pending.txt" 2>&1
t "just submitted, the cells wait in the queue: squeue's reason in --json, queued (slurm) in the grid" '
	jqe "[.cells[] | select(.state == \"queued\" and (.pending | length) > 0)] | length >= 1" "$tmp/pending.json" &&
	grep -q "queued (slurm)" "$tmp/pending.txt"'
alldone() { "$kb" sweep --status "$d" --json 2> /dev/null | jqe '[.cells[] | select(.state == "done")] | length == 4'; }
wait_until 400 alldone
"$kb" sweep --status "$d" > "$tmp/grid.txt" 2>&1
echo "# the grid of the Slurm test sweep (kbtui sweep --status):"
sed 's/^/#   /' "$tmp/grid.txt"
t "the four cells ran to the end as array tasks" 'grep -q "^4 cells: 4 done, 0 running" "$tmp/grid.txt"'
t "each cell's state names its array task" '
	[ "$("$kb" sweep --status "$d" --json | jq -r ".cells[].job" | sed "s/_[0-3]\$//" | sort -u)" = "$job" ]'
t "four run directories, four rows, each cell once" '
	[ "$(ls "$d/runs" | wc -l)" -eq 4 ] && [ "$(wc -l < "$d/runs.jsonl")" -eq 4 ] &&
	[ "$(jq -r .run_id "$d/runs.jsonl" | sort -u | wc -l)" -eq 4 ] &&
	[ "$(jq -s "map(select(.correct == true and .peak_fraction == 0.4421)) | length" "$d/runs.jsonl")" -eq 4 ]'
t "leaderboard.json: both models, pass_count 2 each" '
	jqe "[.models[] | .pass_count] == [2, 2]" "$d/leaderboard.json"'
t "kbtui runs and export read it" '[ "$("$kb" runs "$d" | grep -c " yes 0.4421 ")" -eq 4 ] &&
	[ "$("$kb" export --format csv "$d" | grep -c kbtui-live)" -eq 4 ]'
t "the job script holds the cells and no key" '
	grep -q "fake-b_02_toy" "$d/slurm/job-1.sh" && grep -q "sweep --run-cell" "$d/slurm/job-1.sh" &&
	! grep -qF -e "$KEY_A" -e "$KEY_B" "$d/slurm/job-1.sh"'
t "the keys came from the task prolog, not through sbatch: in no saved environment or script" '
	[ -n "$(ls "$s/state"/hash.*/job.*/environment 2> /dev/null)" ] &&
	! grep -rqF -e "$KEY_A" -e "$KEY_B" "$s/state" &&
	! grep -qF -e SWEEP_KEY_A= -e SWEEP_KEY_B= "$s/state"/hash.*/job.*/environment'
t "... nor in the spool, the daemons' logs, the task logs or any file of the sweep" '
	! grep -rqF -e "$KEY_A" -e "$KEY_B" "$s/spool" "$s/log" "$d"'

# ---- again: nothing to do ---------------------------------------------------------------------
cp "$d/runs.jsonl" "$tmp/rows.before"
sweep > "$tmp/s2.out" 2>&1
rc=$?
t "the same command again submits nothing" '[ $rc -eq 0 ] && grep -q "nothing to start: 4 done" "$tmp/s2.out" &&
	[ "$(wc -l < "$d/slurm/jobs")" -eq 1 ] && [ ! -e "$d/slurm/job-2.sh" ] && cmp -s "$tmp/rows.before" "$d/runs.jsonl"'
"$kb" sweep "$d" > "$tmp/s3.out" 2>&1
rc=$?
t "kbtui sweep DIR continues on Slurm (recorded): nothing to start" '[ $rc -eq 0 ] && grep -q "nothing to start: 4 done" "$tmp/s3.out" &&
	[ "$(wc -l < "$d/slurm/jobs")" -eq 1 ]'

# ---- cancelling a long cell --------------------------------------------------------------------
serve slow "$tmp/slow.jsonl"
touch "$tmp/slow.flag"
cat > "$tmp/slow.yaml" <<EOF
- label: slow
  model: fake-a
  base_url: http://127.0.0.1:$port/v1
  key_env: SWEEP_KEY_A
EOF
c="$tmp/cancel"
"$kb" sweep --executor slurm --no-gpu --models "$tmp/slow.yaml" --problems 01 --problems-dir "$tmp/problems" \
	--out "$c" --budget 10m --sandbox none > "$tmp/c1.out" 2>&1
sed 's/^/# /' "$tmp/c1.out"
running() { [ "$(state "$c" slow_01_toy)" = running ] && grep -q bash "$c/runs/slow_01_toy/live.log" 2> /dev/null; }
t "the long cell runs on the node" 'wait_until 240 running'
"$kb" sweep --cancel "$c" > "$tmp/cancel.out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/cancel.out"
t "--cancel is scancel of its job" '[ $rc -eq 0 ] && grep -q "cancelled job [0-9]*" "$tmp/cancel.out"'
killed() { [ "$(state "$c" slow_01_toy)" = killed ]; }
t "the cancelled cell says it was killed, and why" 'wait_until 120 killed &&
	grep -q "stopped by Terminated" "$c/cells/slow_01_toy.json"'
t "... its run was told: kbtui live ended aborted" 'wait_until 60 "grep -q \"kbtui live: aborted after\" \"$c/runs/slow_01_toy/live.log\""'
t "... no row for it" '[ ! -s "$c/runs.jsonl" ]'
# (squeue must answer: one that timed out on a busy machine says nothing too)
gone() { q=$(squeue -h -j "$(cut -d" " -f1 "$c/slurm/jobs")" 2> /dev/null) && [ -z "$q" ]; }
t "... and nothing of it is left in the queue" 'wait_until 120 gone'
"$kb" sweep --cancel "$c" > "$tmp/cancel2.out" 2>&1
t "a second --cancel finds nothing to cancel" 'grep -q "no job of .* is queued or running" "$tmp/cancel2.out"'
t "no key anywhere in Slurm's files or the sweeps after all that" '! grep -rqF -e "$KEY_A" -e "$KEY_B" "$s/state" "$s/spool" "$s/log" "$d" "$c"'

# ---- the time limit ---------------------------------------------------------------------------
if [ -z "$KB_SLURM_QUICK" ]; then
	timedout() { [ "$(state "$l" long_01_toy)" = killed ]; }
	t "a cell past its Slurm time limit is killed, and says it was stopped" 'wait_until 400 timedout &&
		grep -q "stopped by Terminated" "$l/cells/long_01_toy.json"'
	t "... Slurm says: due to time limit" 'grep -q "DUE TO TIME LIMIT" "$l"/slurm/*.out'
	t "... its run recorded its end, no row" 'grep -q "kbtui live: aborted after" "$l/runs/long_01_toy/live.log" &&
		[ ! -s "$l/runs.jsonl" ]'
	"$kb" sweep "$l" > "$tmp/l2.out" 2>&1
	"$kb" sweep "$l" --retry failed > "$tmp/l3.out" 2>&1
	"$kb" sweep --cancel "$l" > /dev/null 2>&1
	t "... a rerun leaves it alone, one with --retry failed submits it again" '
		grep -q "nothing to start: 0 done, 0 running, 0 queued, 0 failed, 1 killed" "$tmp/l2.out" &&
		grep -q "submitted job [0-9]*: 1 cells" "$tmp/l3.out"'
	t "... no key in its files or Slurm's" '! grep -rqF -e "$KEY_A" -e "$KEY_B" "$l" "$s/state" "$s/spool" "$s/log"'
fi

dpids=$daemons
stop_daemons
t "the daemons are stopped" 'for p in $dpids; do ! alive $p || exit 1; done'
echo "1..$n"
exit $fail
