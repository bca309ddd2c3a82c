#!/bin/sh
# mghier benchmark (issue 44): the 155k-tet dragon's hierarchy and Galerkin
# operators, 2 and 3 levels with TetGen's coarse meshes, and 3 nested levels
# refined 1 -> 8 from the dragon's 959-vertex Vega mesh (about 120k tets
# at the finest).  Target: 3 levels of the 155k dragon in 20 s or less on
# the 2-core machine.  Wall and CPU seconds and the peak resident set
# (/usr/bin/time), the file written beside this run's disk write rate (the
# bound of the write; the Galerkin products are sparse, not dgemm-bound).
# tests/bench/vcycle.sh times the V-cycle on the same hierarchy.
. "$(dirname "$0")/common"
TETS=../shared/models/asianDragon/asianDragon-155k.veg
SMALL=data/models/asianDragon/asianDragon.veg
need_model "$TETS" mghier
disk=$(disk_write_rate)
echo "machine: load average $(cut -d' ' -f1 /proc/loadavg); disk writes $disk GB/s"
run() { # NAME TARGET ARGS...: one hierarchy, its figures
    name=$1 target=$2
    shift 2
    /usr/bin/time -f "%e %U %S %M" -o "$W/time" "$BIN/mghier" -q "$@" -o "$W/mg.h5"
    set -- $(cat "$W/time") $(stat -c %s "$W/mg.h5")
    awk -v n="$name" -v t="$target" -v w="$1" -v u="$2" -v s="$3" -v kb="$4" -v b="$5" -v d="$disk" 'BEGIN {
        printf "bench mghier: %s: %.2f s wall, %.2f CPU-s, peak %.0f MiB; %.1f MB written (%.2f s at the disk'"'"'s %.2f GB/s)%s\n",
            n, w, u + s, kb / 1024, b / 1e6, b / 1e9 / d, d, t == "" ? "" : sprintf(" (target %s s: %s)", t, w <= t ? "met" : "MISSED") }'
}
run "dragon 155k, 2 levels (TetGen)" "" "$TETS" --fixed-ids "${TETS%.veg}.bou" -l 2
run "dragon 155k, 3 levels (TetGen)" 20 "$TETS" --fixed-ids "${TETS%.veg}.bou" -l 3
run "dragon 959 vertices refined twice (3 nested levels)" "" "$SMALL" --fixed-ids "${SMALL%.veg}.bou" --nested -l 3
