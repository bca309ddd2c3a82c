#!/bin/sh
# Bonded zones (issue 40 part 3): the seam solve for 100 seam vertices
# (s = 300 unknowns), target 1 ms or less (the thesis's finger, three L = 3
# pads, ran at about 60 FPS).  A bar with a 10 x 10 vertex cross-section cut
# in two (tests/cli/barmesh.py, zonesplit, lumped femcondense GFs with the
# seam's columns); rtcheck --zones times, on one core, the seam solve after
# a frame changed (the 300 x 300 seam matrix formed from both zones' seam
# blocks, rotated, LU-factored, solved) and with the same frames (solve
# only), beside the flops of dgetrf (2/3 300^3) at the machine's dgemm rate
# measured in this run (one thread per CPU second: a runtime's loop runs on
# one core).  A chain of three zones (two seams of 100) is timed the same way.
. "$(dirname "$0")/common"
dgemm1=$("$BENCH/dgemm" cpu)
FIX="--fixed-box -1,-1,-1,1e-9,2,2"
MAT="-E 1e6 --nu 0.3"
/usr/bin/python3 tests/cli/barmesh.py 20 9 9 4 1 1 2 "$W/bar2.msh"
/usr/bin/python3 tests/cli/barmesh.py 30 9 9 6 1 1 3 "$W/bar3.msh"
for z in 1 2; do
    "$BIN/zonesplit" -q "$W/bar2.msh" --region $z $FIX -o "$W/z$z.h5"
    "$BIN/femcondense" -q "$W/z$z.h5" $MAT --traction lumped --columns all -o "$W/g$z.h5"
done
for z in 1 2 3; do
    "$BIN/zonesplit" -q "$W/bar3.msh" --region $z $FIX -o "$W/c$z.h5"
    "$BIN/femcondense" -q "$W/c$z.h5" $MAT --traction lumped --columns all -o "$W/gc$z.h5"
done
"$BIN/rtcheck" --zones "$W/g1.h5" "$W/g2.h5" --trials 2 --contacts 1 --json >"$W/two.json"
"$BIN/rtcheck" --zones "$W/gc1.h5" "$W/gc2.h5" "$W/gc3.h5" --trials 2 --contacts 1 --json >"$W/three.json"
/usr/bin/python3 - "$W" "$dgemm1" <<'PY'
import json, sys
w, one = sys.argv[1], float(sys.argv[2])
for name, label in (("two", "two zones, one seam"), ("three", "chain of three zones, two seams")):
    r = json.load(open("%s/%s.json" % (w, name)))
    t, f = r["timings_us"], r["facts"]
    n = int(f["seam unknowns"])
    blocks = int(f["diagonal blocks"])
    nb = n // blocks
    # dgetrf of each diagonal block, and for a chain the block elimination (a solve and a product a seam)
    flops = blocks * 2 / 3 * nb ** 3 + (blocks - 1) * (2 * nb ** 3 + 2 * nb ** 3)
    full = t["seam solve, frames changed (form, factor, solve)"]
    print("bench zones: %s (%d seam vertices, %d unknowns, %d diagonal block%s; checks %s)"
          % (label, f["seam vertices"], n, blocks, "s" if blocks > 1 else "", "pass" if r["pass"] else "FAIL"))
    print("  seam solve after a frame change (form + factor + solve): %.0f us median, %.0f us best (target 1 ms: %s)"
          % (full, f["seam solve best (us)"], "met" if full <= 1000 else "MISSED"))
    print("  factor flops %.2e: %.0f us at one core's dgemm rate %.1f GFlop/s (achieved %.0f %% of it); "
          "solve alone (same frames) %.1f us" % (flops, flops / one / 1e3, one, 100 * flops / one / 1e3 / full,
                                                  t["seam solve, same frames"]))
PY
