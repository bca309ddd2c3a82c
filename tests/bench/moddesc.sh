#!/bin/sh
# moddesc benchmark (issue 21 aim 2): the 155k-tet dragon (../shared/models,
# 35,034 vertices, its .bou support, E = 1e7, nu = 0.4, rho = 1000), k = 20,
# r = 30: modes + derivatives + basis under 8 s on 2 cores (>= 9x Vega FEM's
# ~70 s on this machine class), and k = 40 (820 derivatives) under 30 s.
# Each stage, and for the derivative solves (aim 4) the flops of the work,
# the time they would take at the dgemm rate measured in the same run, and
# the fraction of it achieved; for the modes, ARPACK's single solves (each
# reads the factor twice: bound by memory) beside the one-thread read
# bandwidth measured in the same run.
. "$(dirname "$0")/common"
MESH=../shared/models/asianDragon/asianDragon-155k.veg
need_model "$MESH" moddesc
dgemm=$("$BENCH/dgemm")
bw=$("$BENCH/membw")
for k in 20 40; do
    "$BIN/moddesc" "$MESH" --fixed-ids "${MESH%.veg}.bou" -E 1e7 --nu 0.4 --rho 1000 -k $k -r 30 -o "$W/modes.h5" >"$W/s$k.txt"
    cat "$W/s$k.txt"
done
dgemm2=$("$BENCH/dgemm")
/usr/bin/python3 - "$W" "$dgemm" "$dgemm2" "$bw" <<'PY'
import re, sys
w, dgemm, bw1 = sys.argv[1], 0.5 * (float(sys.argv[2]) + float(sys.argv[3])), float(sys.argv[4].split()[0])
print("bench moddesc: this machine's dgemm %.1f GFlop/s (%s before, %s after the runs)" % (dgemm, sys.argv[2], sys.argv[3]))
for k, target in ((20, 8), (40, 30)):
    s = open("%s/s%d.txt" % (w, k)).read()
    t = {n: float(re.search(n + r" ([\d.]+) s", s).group(1))
         for n in ("assemble", "factor", "modes", "derivatives", "right-hand sides", "solves", "basis", "total")}
    gf, rate = (float(x) for x in re.search(r"solves [\d.]+ s: ([\d.]+) GFlop at ([\d.]+) GFlop/s", s).groups())
    nsolve = int(re.search(r"modes [\d.]+ s \((\d+) solves\)", s).group(1))
    lnz = float(re.search(r"\(([\d.e+]+) nonzeros\)", s).group(1))
    np = k * (k + 1) // 2
    peer = "; Vega FEM peer ~70 s: x%.1f" % (70 / t["total"]) if k == 20 else ""
    print("bench moddesc: asianDragon-155k, k = %d (%d derivatives), r = 30: total %.1f s (target %d s: %s%s)"
          % (k, np, t["total"], target, "met" if t["total"] < target else "MISSED", peer))
    print("bench moddesc: k = %d stages: assemble %.1f s, factor %.1f s, modes %.1f s (%d single solves), "
          "derivatives %.1f s (right-hand sides %.1f s, solves %.1f s), basis %.1f s%s"
          % (k, t["assemble"], t["factor"], t["modes"], nsolve, t["derivatives"], t["right-hand sides"], t["solves"],
             t["basis"], " (peer: 6, -, 8, 25 + 20, 8 s)" if k == 20 else ""))
    print("bench moddesc: k = %d derivative solves: %.1f GFlop in %.2f s = %.1f GFlop/s; at dgemm's %.1f GFlop/s "
          "%.2f s: %.0f %% of dgemm" % (k, gf, t["solves"], rate, dgemm, gf / dgemm, 100 * rate / dgemm))
    gb = nsolve * 2 * 8 * lnz / 1e9
    print("bench moddesc: k = %d modes: %d single solves read the factor (%.0f MB) twice, %.1f GB: %.1f GB/s beside "
          "the one-thread read bandwidth %.1f GB/s (%.2f s at it)" % (k, nsolve, 8 * lnz / 1e6, gb, gb / t["modes"], bw1,
                                                                   gb / bw1))
PY
