#!/bin/sh
# zonesplit benchmark (issue 40 part 3): one zone of a large multizone
# model.  A bar of 80 x 40 x 40 cubes (768,000 tets, tests/cli/barmesh.py)
# in two regions; zonesplit writes each zone (its elements, the seam
# /constraints/seam of 41 x 41 vertices, its share of the support).  No
# target in the issue: the tets a second, wall and CPU seconds, the peak
# resident set, and the file written beside this run's disk write rate
# (the bound of the write; reading the Gmsh text mesh is the rest).
. "$(dirname "$0")/common"
/usr/bin/python3 tests/cli/barmesh.py 80 40 40 2 1 1 2 "$W/bar.msh"
disk=$(disk_write_rate)
echo "machine: load average $(cut -d' ' -f1 /proc/loadavg); disk writes $disk GB/s; mesh $(stat -c %s "$W/bar.msh") bytes (Gmsh 2.2 text)"
for z in 1 2; do
    /usr/bin/time -f "%e %U %S %M" -o "$W/time" "$BIN/zonesplit" "$W/bar.msh" --region $z \
        --fixed-box -1,-1,-1,1e-9,2,2 -E 1e6 --nu 0.3 -o "$W/z$z.h5" >"$W/z$z.txt"
    set -- $(cat "$W/time") $(stat -c %s "$W/z$z.h5")
    awk -v z=$z -v w="$1" -v u="$2" -v s="$3" -v kb="$4" -v b="$5" -v d="$disk" 'BEGIN {
        printf "bench zonesplit: zone %d of the 768,000-tet bar: %.2f s wall, %.2f CPU-s (%.3g tets a second of the whole mesh), peak %.0f MiB; %.1f MB written (%.2f s at the disk'"'"'s %.2f GB/s)\n",
            z, w, u + s, 768000 / w, kb / 1024, b / 1e6, b / 1e9 / d, d }'
    sed 's/^/  /' "$W/z$z.txt"
done
