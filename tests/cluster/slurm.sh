#!/bin/sh
# make check-cluster: a private single-node Slurm (slurmctld and slurmd on
# localhost, munge; configuration, key and state in a temporary folder) runs
# scripts/slurm/split.sh: an array job of femcondense parts and a dependent
# epmerge.  The merged file must equal the single run bit for bit.  Then
# scripts/slurm/bemsolve-mpi.sbatch runs bemsolve-mpi on 2 tasks through
# srun --mpi=pmix; its file must equal the serial bemsolve's.  The
# daemons started here are stopped whatever happens.
. "$(dirname "$0")/../cli/common"
for p in munged slurmctld slurmd sbatch squeue sinfo; do
    command -v $p >/dev/null || PATH="$PATH:/usr/sbin"
    command -v $p >/dev/null || { not_ok "$p installed (scripts/install-deps --with-slurm)"; finish; exit 1; }
done
T="$WORK/slurm"
mkdir -p "$T/state" "$T/spool" "$T/jobs"
pids=""
stop() {
    for pid in $pids; do kill "$pid" 2>/dev/null; done
    [ -f "$T/munged.pid" ] && kill "$(cat "$T/munged.pid")" 2>/dev/null
    sleep 1
    for pid in $pids; do kill -9 "$pid" 2>/dev/null; done
    rm -rf "$WORK"
}
trap stop EXIT
trap 'exit 1' INT TERM HUP

# two free ports on the loopback interface
set -- $(/usr/bin/python3 -c "
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(('127.0.0.1', 0))
print(*[x.getsockname()[1] for x in s])")
P1=$1 P2=$2

dd if=/dev/urandom of="$T/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$T/munge.key"
munged --force --key-file="$T/munge.key" --socket="$T/munge.sock" --pid-file="$T/munged.pid" \
    --log-file="$T/munged.log" --seed-file="$T/munge.seed" 2>"$T/munged.err"
check "munged started with a private key and socket" [ -S "$T/munge.sock" ]

cat >"$T/slurm.conf" <<CONF
ClusterName=eptest
SlurmctldHost=localhost(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$P1
SlurmdPort=$P2
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$T/munge.sock
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$T/slurm.conf"
slurmctld -D -i -f "$SLURM_CONF" >"$T/slurmctld.out" 2>&1 &
pids="$pids $!"
slurmd -D -N localhost -f "$SLURM_CONF" >"$T/slurmd.out" 2>&1 &
pids="$pids $!"
n=0
until sinfo -h -o %T 2>/dev/null | grep -q idle; do
    n=$((n + 1))
    [ $n -gt 60 ] && break
    sleep 1
done
check "slurmctld and slurmd up: the node is idle" sh -c "sinfo -h -o %T | grep -q idle"

# jobs_end: wait up to 180 s for the queue to empty; status 0 when it did.
jobs_end() {
    n=0
    while [ -n "$(squeue -h 2>/dev/null)" ] && [ $n -lt 180 ]; do
        n=$((n + 1))
        sleep 1
    done
    [ -z "$(squeue -h 2>/dev/null)" ]
}

# the split run: 3 femcondense parts as an array job, epmerge after it
ROOT=$PWD
FC="$ROOT/data/cube.msh --fixed-region bottom -E 1e6 --nu 0.3 --block 16"
"$BIN/femcondense" -q $FC -o "$T/single.h5"
mid=$(cd "$T/jobs" && EP_BIN="$ROOT/$BIN" sh "$ROOT/scripts/slurm/split.sh" 3 "$T/jobs/gf" "$T/jobs/gf.h5" femcondense $FC)
check "split.sh submitted the array and the merge (job $mid)" [ -n "$mid" ]
check "the jobs ended within 180 s" jobs_end
check "the merge job wrote the file and removed the parts" sh -c "[ -f '$T/jobs/gf.h5' ] && ! ls '$T/jobs'/gf.[0-9].h5 2>/dev/null"
check "the merged file equals the single run bit for bit" /usr/bin/python3 "$ROOT/tests/cli/partcheck.py" "$T/single.h5" "$T/jobs/gf.h5"
# the BEM over MPI: scripts/slurm/bemsolve-mpi.sbatch on 2 tasks, srun
# --mpi=pmix (Debian's Open MPI takes PMIx from Slurm; it has no PMI-2
# client), against the serial run entry by entry
BEM="$T/jobs/ico2.h5 --fixed-box -2,-2,-2,2,2,-0.5 -E 2e5 --nu 0.3"
"$BIN/loopsub" -q "$ROOT/data/icosahedron.obj" -l 2 -o "$T/jobs/ico2.h5"
"$BIN/bemsolve" -q $BEM -o "$T/bem-serial.h5"
bid=$(cd "$T/jobs" && EP_OUT="$T/jobs/bem.h5" EP_BIN="$ROOT/$BIN" EP_SRUN_MPI=pmix sbatch --parsable --ntasks=2 \
    "$ROOT/scripts/slurm/bemsolve-mpi.sbatch" $BEM)
check "bemsolve-mpi.sbatch submitted on 2 tasks (job $bid)" [ -n "$bid" ]
check "the MPI job ended within 180 s" jobs_end
check "the MPI job: one summary, from rank 0 of 2 MPI ranks" sh -c "[ \$(grep -c '2 MPI ranks on a 2 x 1 grid' '$T/jobs/ep-bem-mpi-$bid.out') = 1 ]"
check "the MPI job's GF file equals the serial run's to 1e-12 in every entry" /usr/bin/python3 "$ROOT/tests/mpi/gfsame.py" "$T/jobs/bem.h5" "$T/bem-serial.h5" 1e-12
[ "$failed" -gt 0 ] && tail -5 "$T"/*.log "$T"/jobs/*.out 2>/dev/null
finish
