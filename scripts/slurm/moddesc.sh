#!/bin/sh
# moddesc.sh — submit a split moddesc run: split.sh with the tool moddesc
# (part 0 computes the modes, an array of parts 1..N-1 reads them from part
# 0's file, and the merge forms the basis).
#
#   scripts/slurm/moddesc.sh N run/modes run/modes.h5 body.veg --fixed-ids body.bou -E 1e6 --nu 0.45 --rho 1000
#
# Prints the merge job's id.  sbatch options (partition, time, cpus) go in
# SBATCH_* variables, which sbatch reads from the environment.
set -eu
[ $# -ge 3 ] || { echo "moddesc.sh: usage: moddesc.sh N PREFIX OUT ARGS..." >&2; exit 2; }
n=$1 out=$2 merged=$3
shift 3
exec sh "$(dirname -- "$0")/split.sh" "$n" "$out" "$merged" moddesc "$@"
