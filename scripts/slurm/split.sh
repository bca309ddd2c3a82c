#!/bin/sh
# split.sh — submit a split femcondense, bemsolve, moddesc or polycoef step:
# an array job of N parts and a merge job that waits for it.
#
#   scripts/slurm/split.sh N run/gf run/gf.h5 femcondense body.veg --fixed-ids body.bou -E 1e6 --nu 0.3
#
# For moddesc, part 0 computes the modes (and its derivatives) first and the
# array of parts 1..N-1 reads them from part 0's file (--modes PREFIX.0.h5).
# Prints the merge job's id (chain later steps on it with
# --dependency=afterok:ID).  EP_VIRTUAL=1 merges with --virtual; sbatch
# options go in SBATCH_* variables (SBATCH_PARTITION, SBATCH_TIMELIMIT, ...).
set -eu
n=$1 out=$2 merged=$3
shift 3
here=$(dirname -- "$0")
case $n in
'' | *[!0-9]* | 0*) echo "$(basename -- "$0"): $n: expected a count of parts >= 1" >&2; exit 2 ;;
esac
export EP_PARTS="$n" EP_OUT="$out"
if [ "${1:-}" = moddesc ]; then
    jid=$(sbatch --parsable --array=0 "$here/parts.sbatch" "$@")
    if [ "$n" -gt 1 ]; then
        jid=$(sbatch --parsable --dependency=afterok:"$jid" --array=1-$((n - 1)) "$here/parts.sbatch" "$@" \
            --modes "$out.0.h5")
    fi
else
    jid=$(sbatch --parsable --array=0-$((n - 1)) "$here/parts.sbatch" "$@")
fi
sbatch --parsable --dependency=afterok:"$jid" "$here/merge.sbatch" "$merged"
