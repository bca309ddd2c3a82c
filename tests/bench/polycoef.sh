#!/bin/sh
# polycoef benchmark (issue): r = 30 on the 155k-tet dragon (basis from
# moddesc -k 20 -r 30) under 20 s on 2 cores (>= 10x Vega FEM, measured at
# 259 s on a quiet 2-core AMD Zen 5: issue 45);
# coefficients per second and the effective GFlop/s beside dgemm; evaluation
# of R and the tangent together under 15 us at r = 30 (Vega FEM: 38-42 us
# measured on a quiet 2-core AMD Zen 5), with the
# bytes of coefficients read and the bandwidth that implies.
. "$(dirname "$0")/common"
MESH=../shared/models/asianDragon/asianDragon-155k.veg
need_model "$MESH" polycoef
dgemm=$("$BENCH/dgemm")
"$BIN/moddesc" -q "$MESH" --fixed-ids "${MESH%.veg}.bou" -E 1e7 --nu 0.4 --rho 1000 -k 20 -r 30 -o "$W/modes.h5"
"$BIN/polycoef" "$W/modes.h5" -o "$W/cubic.h5" >"$W/s.txt"
cat "$W/s.txt"
ev=$("$BENCH/cubic_eval" "$W/cubic.h5")
/usr/bin/python3 - "$W/s.txt" "$dgemm" "$ev" <<'PY'
import re, sys
s, dgemm, ev = open(sys.argv[1]).read(), float(sys.argv[2]), sys.argv[3]
r = int(re.search(r"r = (\d+)", s).group(1))
ne = int(re.search(r"from (\d+) tets", s).group(1))
t = float(re.search(r"in ([\d.]+) s", s).group(1))
np_, nt = r * (r + 1) // 2, r * (r + 1) * (r + 2) // 6
coef = r * (r + np_ + nt)
# BLAS-3 work: per element 7 rows; BB, BC, CC products: 7 ne (r^2 + 2 r np + np^2) flops
fl = 7.0 * ne * (r * r + 2 * r * np_ + np_ * np_)
print("bench polycoef: r = %d on %d tets: %.1f s (target 20 s: %s; Vega FEM measured 259 s on a quiet 2-core AMD Zen 5: x%.0f); "
      "%.0f coefficients/s; %.1f GFlop/s effective beside dgemm %.1f GFlop/s"
      % (r, ne, t, "met" if t < 20 else "MISSED", 259 / t, coef / t, fl / t / 1e9, dgemm))
for line in ev.strip().splitlines():
    th, us, nbytes, bw = line.split()
    us, nbytes, bw = float(us), float(nbytes), float(bw)
    print("bench polycoef: evaluation of R and the tangent at r = %d on %s thread%s: %.1f us (target 15 us: %s; Vega FEM 38-42 us on a quiet 2-core AMD Zen 5, "
          "one thread); %.0f KiB of coefficients read per evaluation = %.0f GB/s"
          % (r, th, "" if th == "1" else "s (the second a spinning helper)", us, "met" if us < 15 else "MISSED",
             nbytes / 1024, bw))
PY
