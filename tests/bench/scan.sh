#!/bin/sh
# Scan benchmark (issue 15): the dragon scan (data/models/asianDragon, 25,002
# vertices, 50,000 triangles) to a multiresolution model with loopsub --base.
# Targets: base of about 150 vertices, L = 3 (9,474 vertices: the size of
# James's largest model, Dragon 3, 9,920 vertices, 000 Table 7.5) in under
# 5 s for the whole run, two-sided Hausdorff <= 0.5% and RMS <= 0.1% of the
# diagonal, smallest angle >= 10 degrees, no opposed normals; L = 4 (37,890
# vertices) under 20 s; a genus-2 surface keeps its genus; TetGen with a
# quality bound on the L = 3 surface under 60 s.  Each figure is printed
# beside its target, the published one where a seed has it, and this
# machine's dgemm rate measured in the same run.
. "$(dirname "$0")/common"
SCAN=data/models/asianDragon/asianDragon.obj
dgemm=$("$BENCH/dgemm")
now() { date +%s.%N; }
verdict() { awk -v a="$1" -v b="$2" -v op="$3" 'BEGIN { ok = op == "<=" ? a <= b : a >= b; print ok ? "met" : "MISSED" }'; }

# run LEVELS: loopsub on the scan, its wall and CPU seconds ("WALL USER SYS")
# and quality report -> $W/dL.*
run() {
    /usr/bin/time -f "%e %U %S" -o "$W/d$1.time" "$BIN/loopsub" "$SCAN" --base 150 -l "$1" -o "$W/d$1.h5" \
        >"$W/d$1.txt" 2>"$W/d$1.err"
}

run 3
run 4
/usr/bin/python3 - "$W" "$dgemm" <<'PY'
import re, sys
w, dgemm = sys.argv[1], float(sys.argv[2])
def v(ok): return "met" if ok else "MISSED"
for L, limit in ((3, 5.0), (4, 20.0)):
    s = open("%s/d%d.txt" % (w, L)).read()
    t, user, sys_ = map(float, open("%s/d%d.time" % (w, L)).read().split()[-3:])
    nv = int(re.search(r": (\d+) vertices, (\d+) triangles, %d levels" % L, s).group(1))
    base = re.search(r"loopsub: base: (\d+) vertices.*?; ([\d.]+) s", s)
    h, rms = map(float, re.search(r"Hausdorff ([\d.]+)%, RMS ([\d.]+)%", s).groups())
    amin, amed = map(float, re.search(r"smallest ([\d.]+), median ([\d.]+) deg", s).groups())
    opp = int(re.search(r"(\d+) opposed normals", s).group(1))
    folded = int(re.search(r"(\d+) folded triangles", s).group(1))
    g, gs = map(int, re.search(r"genus (\d+) \(scan (\d+)\)", s).groups())
    onscan = re.search(r"on the scan: (\d+) .*?, (\d+) along .*?, (\d+) left .*?, (\d+) moved for .*?, (\d+) moved off"
                       r" .*?\((\d+) pairs", s).groups()
    print("bench scan L=%d: %d vertices from a base of %s (simplified in %s s): whole loopsub run %.2f s, %.2f CPU-s "
          "(target under %.0f s: %s; machine: %.1f GFlop/s dgemm, load average %s; published: Dragon 3, 9,920 "
          "vertices, no time given)" % (L, nv, base.group(1), base.group(2), t, user + sys_, limit, v(t < limit), dgemm,
                                        open("/proc/loadavg").read().split()[0]))
    if L == 3:
        print("bench scan L=3: Hausdorff %.3f%% of the diagonal (target <= 0.5%%: %s), RMS %.4f%% (target <= 0.1%%: %s)"
              % (h, v(h <= 0.5), rms, v(rms <= 0.1)))
        print("bench scan L=3: smallest angle %.1f deg (target >= 10: %s; issue 37: >= 5: %s), median %.1f; folded "
              "triangles %d (issue 37 target 0: %s); opposed normals %d (target 0: %s); genus %d of the scan's %d (%s)"
              % (amin, v(amin >= 10), v(amin >= 5), amed, folded, v(folded == 0), opp, v(opp == 0), g, gs, v(g == gs)))
        print("bench scan L=3: vertices at their closest point %s, along the normal %s, left %s, moved for their "
              "angles or folds %s, moved off so that nothing crosses %s; crossing pairs %s" % onscan)
    else:
        print("bench scan L=4: Hausdorff %.3f%%, RMS %.4f%%, smallest angle %.1f deg, folded triangles %d, opposed "
              "normals %d, genus %d of %d" % (h, rms, amin, folded, opp, g, gs))
PY

# Genus 2: a slab with two holes, smoothed (tests/cli/surfaces.py), 3 levels.
/usr/bin/python3 tests/cli/surfaces.py genus2 "$W/g2.obj" 12 20
"$BIN/loopsub" "$W/g2.obj" --base 100 -l 3 -o "$W/g2.h5" >"$W/g2.txt"
g=$(sed -n 's/.*genus \([0-9]*\) (scan \([0-9]*\)).*/\1 \2/p' "$W/g2.txt")
set -- $g
echo "bench scan genus: a genus-$2 scan ($(grep -c '^v ' "$W/g2.obj") vertices), base 100, L = 3: genus $1 ($([ "$1" = "$2" ] && [ "$2" -ge 2 ] && echo met || echo MISSED)); $(sed -n 's/loopsub: quality: //p' "$W/g2.txt" | cut -d';' -f1)"

# TetGen on the L = 3 surface, radius-edge ratio <= 1.414, the surface kept (-Y).
"$BIN/loopsub" -q "$W/d3.h5" -l 0 -o "$W/d3.off"
t0=$(now)
if (cd "$W" && tetgen -pq1.414Y -Q d3.off) >/dev/null 2>"$W/tetgen.err"; then
    t=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')
    echo "bench scan tetgen: $(head -1 "$W/d3.1.ele" | cut -d' ' -f1) tets on $(head -1 "$W/d3.1.node" | cut -d' ' -f1) vertices inside the L = 3 surface ($(head -1 "$W/d3.1.face" | awk '{print $1}') boundary faces of its $(sed -n 2p "$W/d3.off" | cut -d' ' -f2)) in $t s (target under 60 s: $(verdict "$t" 60 "<="))"
else
    echo "bench scan tetgen: FAILED: $(tail -1 "$W/tetgen.err")"
fi
