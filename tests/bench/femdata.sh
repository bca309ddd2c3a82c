#!/bin/sh
# femdata benchmark (issue 44): the 155k-tet dragon (../shared/models): K, M
# consistent and lumped, the corotated element data (a 12 x 12 K_e and M_e
# per tet) written in one run.  The issue sets no target; the bound printed
# beside the wall time is the time to write the output file at the disk's
# rate measured in the same run (dd, direct), since the element data (2.3
# KB a tet) make most of the file.  Wall clock on a shared machine: noisy;
# the load average and the tool's CPU time are printed with it.
. "$(dirname "$0")/common"
TETS=../shared/models/asianDragon/asianDragon-155k.veg
BOU=../shared/models/asianDragon/asianDragon-155k.bou
need_model "$TETS" femdata
rate=$(disk_write_rate)
t0=$(date +%s.%N)
cpu0=$(awk '{print $14 + $15 + $16 + $17}' /proc/$$/stat)
"$BIN/femdata" "$TETS" --fixed-ids "$BOU" -E 1e7 --nu 0.4 --rho 1000 -o "$W/fem.h5" >"$W/f.txt"
t1=$(date +%s.%N)
cpu1=$(awk '{print $14 + $15 + $16 + $17}' /proc/$$/stat)
cat "$W/f.txt"
bytes=$(stat -c %s "$W/fem.h5")
load=$(cut -d' ' -f1 /proc/loadavg)
awk -v t0="$t0" -v t1="$t1" -v b="$bytes" -v r="$rate" -v c="$((cpu1 - cpu0))" -v hz="$(getconf CLK_TCK)" -v load="$load" 'BEGIN {
    t = t1 - t0; w = b / (r * 1e9)
    printf "bench femdata: the 155k-tet dragon: %.2f s wall, %.2f s CPU; %.0f MB written, at the disk'"'"'s %.2f GB/s (same run) %.2f s: %.1fx that bound; load average %s\n",
        t, c / hz, b / 1e6, r, w, t / w, load }'
