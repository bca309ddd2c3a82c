#!/bin/sh
# split.sh — submit a split femcondense, bemsolve or polycoef step: an array
# job of N parts and a merge job that waits for it.
#
#   scripts/slurm/split.sh N run/gf run/gf.h5 femcondense body.veg --fixed-ids body.bou -E 1e6 --nu 0.3
#
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
jid=$(sbatch --parsable --array=0-$((n - 1)) "$here/parts.sbatch" "$@")
sbatch --parsable --dependency=afterok:"$jid" "$here/merge.sbatch" "$merged"
