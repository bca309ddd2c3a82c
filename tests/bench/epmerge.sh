#!/bin/sh
# epmerge benchmark (issue 18): merging the four parts of a femcondense run
# (the shipped turtle's boundary Loop-subdivided twice and filled by tetgen,
# as femcondense.sh: 4,082 x 4,242 GF blocks, 1.2 GB) into the single run's
# file, in GB/s beside this file system's write rate (dd direct, fdatasync) — a
# copy can go no faster — and the --virtual merge, which copies nothing
# (target under 1 s).  The dragon-sized merge, with the parts' overhead, is
# in parts.sh.  Wall clock on a shared machine: noisy.
. "$(dirname "$0")/common"
"$BIN/loopsub" -q data/models/turtle/turtle-volumetric-homogeneous.veg -l 2 -o "$W/turtle2.off"
tetgen -pYq1.414a0.0008 -Q "$W/turtle2.off" >/dev/null
for i in 0 1 2 3; do
    "$BIN/femcondense" -q "$W/turtle2.1.ele" --fixed-box -10,-10,-10,10,-0.2,10 -E 1e6 --nu 0.4 --part $i/4 \
        -o "$W/g.$i.h5"
done
gb=$(du -ck "$W"/g.[0-3].h5 | awk 'END {printf "%.3f", $1 / 1048576}')
sync
t0=$(date +%s.%N)
"$BIN/epmerge" -q "$W"/g.[0-3].h5 -o "$W/gf.h5"
t1=$(date +%s.%N)
"$BIN/epmerge" -q --virtual "$W"/g.[0-3].h5 -o "$W/gfv.h5"
t2=$(date +%s.%N)
rm -f "$W/gf.h5"
disk=$(disk_write_rate)
awk -v t0="$t0" -v t1="$t1" -v t2="$t2" -v gb="$gb" -v d="$disk" 'BEGIN {
    m = t1 - t0; v = t2 - t1
    printf "bench epmerge: 4 femcondense parts, %.2f GiB: merge %.2f s = %.2f GB/s beside the disk'"'"'s write rate %.2f GB/s " \
        "(dd direct, fdatasync); --virtual merge %.2f s (target 1 s: %s)\n", gb, m, gb * 1.073741824 / m, d, v, v < 1 ? "met" : "MISSED" }'
