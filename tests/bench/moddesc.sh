#!/bin/sh
# moddesc benchmark (issue 21 aim 2): the 155k-tet dragon (../shared/models,
# 35,034 vertices, its .bou support, E = 1e7, nu = 0.4, rho = 1000), k = 20,
# r = 30: modes + derivatives + basis under 8 s on 2 cores (>= 9x Vega FEM,
# measured beside us at 63-68 s on a quiet 2-core AMD Zen 5: issue 45), and k = 40 (820
# derivatives) under 30 s.
# Beside each stage, the work it does (flops, or bytes where memory bounds
# it) and the time that work would take at the dgemm rate and the memory
# bandwidth measured in the same run (aim 4): the factorization's flops
# (its symbolic analysis); the modes' block solves (each block of 8 columns
# reads the factor twice, shared by the threads: bytes at the all-core read
# bandwidth, flops at dgemm's rate -- the larger is the bound); the Hessian right-hand sides'
# flops (about 100 k + 260 np a tet, stvk.c element_pairs); the derivative
# solves' flops; the basis's dgemm flops (the Gram matrix by panels of 128,
# about 3nv m (m + 128), and B, 2 3nv m r, m = k + np).
. "$(dirname "$0")/common"
MESH=../shared/models/asianDragon/asianDragon-155k.veg
need_model "$MESH" moddesc
dgemm=$("$BENCH/dgemm")
bw=$("$BENCH/membw")
"$BENCH/factor" "$MESH" "${MESH%.veg}.bou" # CHOLMOD's factorization and supernodal.h's
for k in 20 40; do
    "$BIN/moddesc" "$MESH" --fixed-ids "${MESH%.veg}.bou" -E 1e7 --nu 0.4 --rho 1000 -k $k -r 30 -o "$W/modes.h5" >"$W/s$k.txt"
    cat "$W/s$k.txt"
done
ne=$(h5ls "$W/modes.h5/mesh/tets" | sed -n 's/.*{\([0-9]*\),.*/\1/p')
nv=$(h5ls "$W/modes.h5/mesh/vertices" | sed -n 's/.*{\([0-9]*\),.*/\1/p')
dgemm2=$("$BENCH/dgemm")
/usr/bin/python3 - "$W" "$dgemm" "$dgemm2" "$bw" "$ne" "$nv" <<'PY'
import re, sys
w, dgemm = sys.argv[1], 0.5 * (float(sys.argv[2]) + float(sys.argv[3]))
bw1, bwall = (float(x) for x in sys.argv[4].split()[:2])
ne, n3 = int(sys.argv[5]), 3 * int(sys.argv[6])
print("bench moddesc: this machine's dgemm %.1f GFlop/s (%s before, %s after the runs), read bandwidth %.1f GB/s "
      "on one thread, %.1f on all" % (dgemm, sys.argv[2], sys.argv[3], bw1, bwall))
for k, target in ((20, 8), (40, 30)):
    s = open("%s/s%d.txt" % (w, k)).read()
    t = {n: float(re.search(n + r" ([\d.]+) s", s).group(1))
         for n in ("assemble", "factor", "modes", "derivatives", "right-hand sides", "solves", "basis", "total")}
    gf, rate = (float(x) for x in re.search(r"solves [\d.]+ s: ([\d.]+) GFlop at ([\d.]+) GFlop/s", s).groups())
    mm = re.search(r"modes [\d.]+ s \((\d+) solves(?: in (\d+) blocks)?\)", s)
    nsolve, nblock = int(mm.group(1)), int(mm.group(2) or 0)
    lnz, fl = (float(x) for x in re.search(r"\(([\d.e+]+) nonzeros, ([\d.e+]+) flops\)", s).groups())
    np = k * (k + 1) // 2
    m = k + np
    peer = "; Vega FEM measured 63-68 s on %s: x%.1f-%.1f" % ("a quiet 2-core AMD Zen 5", 63 / t["total"], 68 / t["total"]) if k == 20 else ""
    print("bench moddesc: asianDragon-155k, k = %d (%d derivatives), r = 30: total %.1f s (target %d s: %s%s)"
          % (k, np, t["total"], target, "met" if t["total"] < target else "MISSED", peer))
    print("bench moddesc: k = %d stages: assemble %.1f s, factor %.1f s, modes %.1f s (%d solves%s), "
          "derivatives %.1f s (right-hand sides %.1f s, solves %.1f s), basis %.1f s%s"
          % (k, t["assemble"], t["factor"], t["modes"], nsolve, " in %d blocks" % nblock if nblock else "",
             t["derivatives"], t["right-hand sides"], t["solves"], t["basis"],
             " (peer: 6, -, 8, 25 + 20, 8 s)" if k == 20 else ""))
    def line(stage, work, secs):
        print("bench moddesc: k = %d %s: %s; %.2f s, bound %.2f s (%.0f %% of it)" % (k, stage, work, secs, secs_b[0],
                                                                               100 * secs_b[0] / secs if secs else 0))
    secs_b = [fl / 1e9 / dgemm]
    line("factor", "%.1f GFlop (at dgemm's rate %.2f s)" % (fl / 1e9, secs_b[0]), t["factor"])
    if nblock:  # blocks of 8 columns shared by the threads, each reads the factor twice
        gb, gfl, bw, who = nblock * 2 * 8 * lnz / 1e9, nsolve * 4 * lnz / 1e9, bwall, "all cores'"
    else:       # ARPACK's single solves
        gb, gfl, bw, who = nsolve * 2 * 8 * lnz / 1e9, nsolve * 4 * lnz / 1e9, bw1, "one thread's"
    secs_b = [max(gb / bw, gfl / dgemm)]
    line("modes", "%d column solves%s read %.1f GB (%.2f s at %s bandwidth) and do %.1f GFlop (%.2f s at "
         "dgemm's rate)" % (nsolve, " in %d blocks" % nblock if nblock else "", gb, gb / bw, who, gfl, gfl / dgemm),
         t["modes"])
    rfl = ne * (100.0 * k + 260.0 * np) / 1e9
    secs_b = [rfl / dgemm]
    line("right-hand sides", "%.1f GFlop (%.1f GFlop/s)" % (rfl, rfl / t["right-hand sides"]), t["right-hand sides"])
    secs_b = [gf / dgemm]
    line("derivative solves", "%.1f GFlop at %.1f GFlop/s = %.0f %% of dgemm" % (gf, rate, 100 * rate / dgemm),
         t["solves"])
    bfl = (n3 * m * (m + 128.0) + 2.0 * n3 * m * 30) / 1e9
    secs_b = [bfl / dgemm]
    line("basis", "%.1f GFlop of dgemm (m = %d vectors)" % (bfl, m), t["basis"])
PY
