#!/bin/sh
# moddesc.sh — submit a split moddesc run: part 0 computes the modes (and its
# derivatives), an array of parts 1..N-1 reads them from part 0's file, and
# the merge forms the basis.
#
#   scripts/slurm/moddesc.sh N run/modes run/modes.h5 body.veg --fixed-ids body.bou -E 1e6 --nu 0.45 --rho 1000
#
# Prints the merge job's id.  sbatch options (partition, time, cpus) go in
# SBATCH_* variables, which sbatch reads from the environment.
set -eu
n=$1 out=$2 merged=$3
shift 3
here=$(dirname -- "$0")
case $n in
'' | *[!0-9]* | 0*) echo "$(basename -- "$0"): $n: expected a count of parts >= 1" >&2; exit 2 ;;
esac
export EP_PARTS="$n" EP_OUT="$out"
j0=$(sbatch --parsable --array=0 "$here/parts.sbatch" moddesc "$@")
dep=$j0
if [ "$n" -gt 1 ]; then
    dep=$(sbatch --parsable --dependency=afterok:"$j0" --array=1-$((n - 1)) "$here/parts.sbatch" moddesc "$@" \
        --modes "$out.0.h5")
fi
sbatch --parsable --dependency=afterok:"$dep" "$here/merge.sbatch" "$merged"
