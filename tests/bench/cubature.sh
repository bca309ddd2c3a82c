#!/bin/sh
# cubature benchmark (issue 42): polynomials against cubature, StVK, on the
# 155k-tet dragon (basis: moddesc -k 20 -r 100, its leading r vectors), at
# r = 15, 30, 60, 100: setup time, file size, evaluation time of R + K and
# the force error, in one table; the cubature's R + K rate beside this
# machine's dgemm rate measured in the same run.  Targets: r = 30,
# tau = 1e-2: a held-out relative force error <= 2 % with <= 1,000 elements,
# chosen in <= 60 s on the 2-core machine; r = 100: the cubature's R + K
# faster than the polynomials'.  Both NNLS methods at r = 30.  Then
# neo-Hookean through a fullsim-recorded motion (asianDragon.veg, 959
# vertices): the cubature model runs along it (rtcheck --reference), e_max.
# CUBATURE_R="15 30" limits the sizes (r = 100's polynomials take minutes).
. "$(dirname "$0")/common"
MESH=../shared/models/asianDragon/asianDragon-155k.veg
need_model "$MESH" cubature
RS=${CUBATURE_R:-15 30 60 100}
dgemm=$("$BENCH/dgemm")
dgemm1=$("$BENCH/dgemm" cpu)
rmax=0
for r in $RS; do [ "$r" -gt "$rmax" ] && rmax=$r; done
# timed OUT CMD...: run CMD; "wall CPU" seconds (its user + system time) into OUT
timed() {
    out=$1
    shift
    /usr/bin/python3 -c 'import resource, subprocess, sys, time
t = time.time(); rc = subprocess.call(sys.argv[2:]); w = time.time() - t
r = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1], "w").write("%.2f %.2f\n" % (w, r.ru_utime + r.ru_stime)); sys.exit(rc)' "$out" "$@"
}
timed "$W/tm" "$BIN/moddesc" -q "$MESH" --fixed-ids "${MESH%.veg}.bou" -E 1e7 --nu 0.4 --rho 1000 -k 20 -r "$rmax" -o "$W/modes.h5"
echo "bench cubature: basis of $rmax vectors (moddesc -k 20): $(cat "$W/tm") s wall, CPU"
for r in $RS; do
    # the polynomials: r = 100 takes polycoef 512 CPU-s (3,087 s wall, niced on a loaded machine, 03:30 2026-11-29) (7 ne n^2 flops, n = r(r+3)/2),
    # so unless CUBATURE_POLY100=1 its setup is not run and its evaluation is timed on random
    # coefficients of that size (the cost is the size, not the values)
    if [ "$r" -lt 100 ] || [ "${CUBATURE_POLY100:-0}" = 1 ]; then
        timed "$W/tp$r" "$BIN/polycoef" -q "$W/modes.h5" -r "$r" -o "$W/cubic$r.h5"
        sp=$(stat -c %s "$W/cubic$r.h5")
        ev=$("$BENCH/cubic_eval" "$W/cubic$r.h5" cpu | awk '{print $2}')
    else
        echo "- -" >"$W/tp$r"
        sp=$(/usr/bin/python3 -c "r = $r; print(8 * r * (r + r * (r + 1) // 2 + r * (r + 1) * (r + 2) // 6))")
        ev=$("$BENCH/cubic_eval" random "$r" cpu | awk '{print $2}')
    fi
    timed "$W/tc$r" "$BIN/cubature" "$W/modes.h5" -r "$r" --tau 1e-2 --max-elements 5000 -o "$W/cub$r.h5" >"$W/s$r.txt" || true
    grep -v warning "$W/s$r.txt" || true
    "$BIN/rtcheck" "$W/cub$r.h5" --steps 10 --json >"$W/rt$r.json" 2>/dev/null || true
    echo "$r $(cat "$W/tp$r") $sp $ev $(cat "$W/tc$r") $(stat -c %s "$W/cub$r.h5" 2>/dev/null || echo 0) $W/rt$r.json $W/cub$r.h5" >>"$W/table"
done
if echo " $RS " | grep -q " 30 "; then
    timed "$W/lh.time" "$BIN/cubature" "$W/modes.h5" -r 30 --tau 1e-2 --max-elements 5000 --method lawson-hanson -o "$W/lh30.h5" >"$W/lh.txt" || true
    grep -v warning "$W/lh.txt" || true
fi
/usr/bin/python3 - "$W/table" "$dgemm" "$W" "$dgemm1" <<'PY'
import json, os, sys, h5py
rows, dgemm, W = [l.split() for l in open(sys.argv[1])], float(sys.argv[2]), sys.argv[3]
dgemm1 = float(sys.argv[4])
print("bench cubature: StVK on the 155k-tet dragon; polynomials (polycoef) against cubature (tau 1e-2, greedy); "
      "dgemm %.1f GFlop/s (both cores), %.1f GFlop/s per CPU second on one (R + K run on one)" % (dgemm, dgemm1))
print("bench cubature: times: setup in s of wall / CPU (the machine may be shared), R + K in us of thread CPU")
print("bench cubature: %4s | %15s %9s %10s %6s | %15s %8s %10s %8s %8s %8s %8s" % (
    "r", "poly setup s", "poly MB", "R+K us", "error", "cub setup s", "cub MB", "R+K us", "elements", "held-out", "max", "GF/cpu-s"))
res = {}
for row in rows:
    r, tpw, tpc, sp, ev, tcw, tcc, sc, rt, cub = row
    try:
        j = json.load(open(rt))
        us = j["timings_us"]["R + K evaluation (thread CPU)"]
        gf = j["facts"]["R + K GFlop/s per CPU second"]
        f = h5py.File(cub, "r")
        a = f["cubature"].attrs
        n, he, hm = len(f["cubature/elements"]), a["heldout_error"], a["heldout_max"]
    except Exception:
        us = gf = he = hm = float("nan"); n = -1
    res[int(r)] = (float(tcw), float(tcc), n, he, us, float(ev))
    print("bench cubature: %4s | %15s %9.2f %10.1f %6s | %15s %8.2f %10.1f %8d %8.4f %8.4f %8.2f" % (
        r, "%s / %s" % (tpw, tpc) if tpw != "-" else "(not run)", int(sp) / 1e6, float(ev), "exact",
        "%s / %s" % (tcw, tcc), int(sc) / 1e6, us, n, he, hm, gf))
if 30 in res:
    tcw, tcc, n, he, us, ev = res[30]
    ok = he <= 0.02 and 0 < n <= 1000 and tcw <= 60
    print("bench cubature: target r = 30, tau 1e-2: held-out %.4f (<= 0.02), %d elements (<= 1000), %.1f s wall, %.1f s CPU (<= 60 s): %s"
          % (he, n, tcw, tcc, "met" if ok else "MISSED" if he > 0.02 or n > 1000 or tcc > 60 else "MISSED in wall time (a shared machine?), met in CPU time"))
if 100 in res:
    tcw, tcc, n, he, us, ev = res[100]
    print("bench cubature: target r = 100: cubature R + K %.0f us against the polynomials' %.0f us (thread CPU): %s"
          % (us, ev, "met" if us < ev else "MISSED"))
if os.path.exists(W + "/lh.time"):
    tw, tc = open(W + "/lh.time").read().split()
    try:
        f = h5py.File(W + "/lh30.h5", "r")
        print("bench cubature: r = 30 Lawson-Hanson: %d elements, held-out %.4f, %s s wall, %s s CPU (greedy: %d elements, held-out %.4f, %.1f / %.1f s)"
              % (len(f["cubature/elements"]), f["cubature"].attrs["heldout_error"], tw, tc, res[30][2], res[30][3], res[30][0], res[30][1]))
    except Exception:
        print("bench cubature: r = 30 Lawson-Hanson: failed after %s s" % tw)
PY

# neo-Hookean through a fullsim-recorded motion (a small dragon: the full run is the reference)
SMALL=../shared/models/asianDragon/asianDragon.veg
MS="$SMALL --fixed-ids ${SMALL%.veg}.bou -E 1e7 --nu 0.4 --rho 1000"
"$BIN/moddesc" -q $MS -k 10 -r 20 -o "$W/small.h5"
/usr/bin/python3 - "$(dirname "$0")" "$SMALL" "${SMALL%.veg}.bou" >"$W/far.loads" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from farend import far_end
x, c, d, lo, hi = far_end(sys.argv[2], sys.argv[3], 0.9)
print("force box %g %g %g %g %g %g 0 %g 0 ramp 0.05" % (*lo, *hi, -1e4 * (x.max(0) - x.min(0)).max() ** 2))
PY
"$BIN/fullsim" -q $MS --law neohookean "$W/far.loads" --dt 0.002 --steps 100 --alpha 1 -o "$W/nh.h5" || echo "bench cubature: fullsim (neo-Hookean) failed"
"$BIN/cubature" "$W/small.h5" --law neohookean --trajectory "$W/nh.h5" --held-out 10 -o "$W/nhc.h5" || true
"$BIN/rtcheck" --reference "$W/nh.h5" "$W/nhc.h5" --reference-tol 1 || true
/usr/bin/python3 -c "
import h5py, numpy as np, sys
f = h5py.File(sys.argv[1], 'r')
u = f['trajectory/u'][()]
x = f['mesh/vertices'][()]
print('bench cubature: neo-Hookean motion: largest displacement %.3f of the model size, complete %d' % (np.abs(u).max() / np.ptp(x, 0).max(), f['trajectory'].attrs['complete']))
" "$W/nh.h5" || true
