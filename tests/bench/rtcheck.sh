#!/bin/sh
# rtcheck benchmark (issue): the capacitance matrix algorithm at s = 100
# contact nodes, from scratch and by one-node updates (published 2001, Java:
# 310 ms LU, 36 ms per single-node addition; aim: under 1 ms from scratch,
# under 100 us per single-node update), and the reduced Newmark step at
# r = 30 (published 2004: 1,395 us; Vega FEM's force + stiffness evaluation
# alone: 44 us on this machine; aim: under 20 us).  Runtime timings are on
# one core, and with -j 2 on two (a spinning helper thread), beside the
# machine's dgemm rate (all cores) of the same run.
. "$(dirname "$0")/common"
dgemm=$("$BENCH/dgemm")
"$BIN/loopsub" -q data/icosahedron.obj -l 3 --fixed-box -2,-2,-2,2,2,-0.6 -o "$W/s.h5"
"$BIN/bemsolve" -q "$W/s.h5" -E 1e5 --nu 0.3 -o "$W/gf.h5"
"$BIN/rtcheck" "$W/gf.h5" --contacts 100 --trials 8 --ops 200 --json >"$W/cma.json"
"$BIN/rtcheck" "$W/gf.h5" --contacts 100 --trials 8 --ops 200 -j 2 --json >"$W/cma2.json"
"$BIN/gfcompress" -q "$W/gf.h5" --eps 0.05 -o "$W/gfw.h5"
"$BIN/rtcheck" "$W/gfw.h5" --contacts 100 --trials 8 --ops 200 --json >"$W/cmaw.json"
"$BIN/moddesc" -q data/models/beam3/beam3_tet.veg --fixed-ids data/models/beam3/beam3.bou -k 20 -r 30 -o "$W/m.h5"
"$BIN/polycoef" -q "$W/m.h5" -o "$W/c.h5"
"$BIN/rtcheck" "$W/c.h5" --steps 2000 --json >"$W/cubic.json"
"$BIN/rtcheck" "$W/c.h5" --steps 2000 -j 2 --json >"$W/cubic2.json"
/usr/bin/python3 - "$W" "$dgemm" <<'PY'
import json, sys
w, dgemm = sys.argv[1], float(sys.argv[2])
def verdict(x, goal):
    return "met" if x < goal else "MISSED"
for name, label in (("cma", "dense GFs"), ("cma2", "dense GFs, updates on two threads"),
                    ("cmaw", "wavelet GFs, eps 0.05")):
    r = json.load(open("%s/%s.json" % (w, name)))
    t = r["timings_us"]
    print("bench rtcheck: CMA, s = 100, %s (642-vertex BEM model; machine: %.1f GFlop/s dgemm, checks %s):"
          % (label, dgemm, "pass" if r["pass"] else "FAIL"))
    print("  from scratch (LU + inverse): %.0f us (aim 1 ms: %s; published LU 310 ms)"
          % (t["capacitance inverse from scratch"], verdict(t["capacitance inverse from scratch"], 1000)))
    print("  one-node addition: %.0f us (aim 100 us: %s; published 36 ms); deletion: %.0f us"
          % (t["one-node addition"], verdict(t["one-node addition"], 100), t["one-node deletion"]))
    print("  contact solve %.2f us, global solution %.0f us, contact force %.2f us, cache hit rate %.2f"
          % (t["contact solve (tractions at S)"], t["global solution (all nodes)"], t["contact force"],
             r["facts"]["cache hit rate"]))
for name, label in (("cubic", "one core"), ("cubic2", "two threads, the second a spinning helper")):
    r = json.load(open("%s/%s.json" % (w, name)))
    t = r["timings_us"]["Newmark step, 1 Newton iteration"]
    print("bench rtcheck: reduced Newmark step at r = %d: %.1f us, %s (aim 20 us: %s; published 2004 1,395 us;"
          " Vega FEM force + stiffness alone 44 us); checks %s" % (r["facts"]["r"], t, label, verdict(t, 20),
                                                                  "pass" if r["pass"] else "FAIL"))
PY
