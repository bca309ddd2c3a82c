#!/bin/sh
# epexport benchmark (issue 19 has no target): the reduced model of a
# 99k-tet mesh (the turtle's boundary Loop-subdivided twice, filled by
# tetgen as in femcondense.sh; moddesc -k 20 -r 30, polycoef) written in
# Vega FEM's text formats — .veg, .bou, .U (ModalMatrix), .cub — each in MB/s
# beside this file system's write rate (dd direct, fdatasync).  Each run first reads
# the whole input (model, basis, coefficients): the .bou line, a few KB
# written, shows that fixed cost.  Wall clock on a shared machine: noisy.
. "$(dirname "$0")/common"
"$BIN/loopsub" -q data/models/turtle/turtle-volumetric-homogeneous.veg -l 2 -o "$W/turtle2.off"
tetgen -pYq1.414a0.0008 -Q "$W/turtle2.off" >/dev/null
"$BIN/moddesc" -q "$W/turtle2.1.ele" --fixed-box -10,-10,-10,10,-0.2,10 -E 1e6 --nu 0.4 --rho 1000 -k 20 -r 30 \
    -o "$W/modes.h5"
"$BIN/polycoef" -q "$W/modes.h5" -o "$W/cubic.h5"
disk=$(disk_write_rate)
for ext in veg bou U cub; do
    t0=$(date +%s.%N)
    "$BIN/epexport" -q "$W/cubic.h5" -o "$W/model.$ext"
    t1=$(date +%s.%N)
    awk -v t0="$t0" -v t1="$t1" -v b="$(wc -c <"$W/model.$ext")" -v e="$ext" -v d="$disk" 'BEGIN {
        t = t1 - t0
        printf "bench epexport: .%s %.3f MB in %.2f s = %.0f MB/s (disk write rate %.0f MB/s, dd direct, fdatasync)\n",
            e, b / 1e6, t, b / 1e6 / t, d * 1000 }'
done
