#!/bin/sh
# embed benchmark (issue 17): the dragon scan (data/models/asianDragon,
# 25,002 render vertices) bound to the 155k-tet dragon (../shared/models):
# under 1 s end to end; the binding alone in render vertices per second; the
# read of the 6.8 MB .veg beside it.  The render-mesh basis Ubar = W U and
# its per-frame cost are in voxelize.sh (u_render).  Wall clock of single
# runs on a shared machine: noisy.
. "$(dirname "$0")/common"
SCAN=data/models/asianDragon/asianDragon.obj
TETS=../shared/models/asianDragon/asianDragon-155k.veg
need_model "$TETS" embed
t0=$(date +%s.%N)
"$BIN/embed" "$TETS" "$SCAN" -o "$W/e155.h5" >"$W/e.txt"
t1=$(date +%s.%N)
cat "$W/e.txt"
read_s=$(sed -n 's/.*read \([0-9.]*\) s.*/\1/p' "$W/e.txt")
bind=$(sed -n 's/.*bound in \([0-9.]*\) s.*/\1/p' "$W/e.txt")
nr=$(sed -n 's/.*: \([0-9]*\) render vertices bound.*/\1/p' "$W/e.txt")
awk -v t0="$t0" -v t1="$t1" -v r="$read_s" -v b="$bind" -v n="$nr" 'BEGIN {
    t = t1 - t0
    printf "bench embed: the scan (%d render vertices) into the 155k-tet dragon: %.2f s wall (target 1 s: %s); " \
        "read %.2f s, binding %.3f s = %.0f render vertices/s\n", n, t, t < 1 ? "met" : "MISSED", r, b, n / b }'
