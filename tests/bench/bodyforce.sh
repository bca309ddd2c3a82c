#!/bin/sh
# Body-force rows' cost (issue 40: "Body-force columns cost no more than 3
# extra right-hand sides of the same solve"), each beside 3 GF columns of
# the same run and beside this machine's bounds measured in the same run
# (one thread's dgemm per CPU second, one thread's memory read rate).
#
# FEM (femcondense --body-force): the three columns ride in the first GF
# block (femgf.c solve_block).  Their load reaches every free DOF, so their
# forward substitution is a full one where a GF column's is restricted to
# the supernodes its load reaches: the flop excess is inherent.  Where the
# block's GF loads do not reach, that forward runs on 3 columns alone
# (chol.h ep_chol_rforward_lead): one read of that part of the factor,
# bound by memory, not by dgemm.  The floor printed is that read at the
# memory rate plus the rest of their flops at the run's solve rate.
#
# BEM (bemsolve --body-force): the columns ride in the first block's solve;
# their boundary data are a sum over every node-triangle pair inside the
# assembly (162 flops a pair), timed on its own (bemgf.c body_sum).
. "$(dirname "$0")/common"

dgemm1=$("$BENCH/dgemm" cpu)
membw1=$("$BENCH/membw" | awk '{print $1}')
echo "bench bodyforce: this run's bounds: one thread's dgemm $dgemm1 GFlop/s a CPU second, one thread's memory read $membw1 GB/s; load average $(cut -d' ' -f1-3 /proc/loadavg)"

fem() { # label, femcondense arguments...
    label=$1
    shift
    "$BIN/femcondense" "$@" -E 1e6 --nu 0.4 --rho 1000 --body-force --no-xdmf -o "$W/gf.h5" >"$W/fem.txt" 2>/dev/null
    rm -f "$W/gf.h5"
    /usr/bin/python3 - "$W/fem.txt" "$label" "$dgemm1" "$membw1" <<'PY'
import re, sys
s, label, dgemm1, membw1 = open(sys.argv[1]).read(), sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
cpurate = float(re.search(r"GFlop/s on \d+ threads, ([\d.]+) per CPU second", s).group(1))
bf, bt, bc, bfull, f3, c3, rf, rc, lf, lc = map(float, re.search(
    r"body-force rows: ([\d.e+]+) flops in ([\d.]+) s \(([\d.]+) CPU s\), ([\d.]+) full solves; 3 GF columns of this"
    r" run: ([\d.e+]+) flops, ([\d.]+) CPU s; ratio ([\d.]+) in flops, ([\d.]+) in CPU time; of theirs, the forward"
    r" alone where the first block's GF loads do not reach: ([\d.e+]+) flops, ([\d.]+) CPU s", s).groups())
lead_bytes = lf / 3 / 2 * 8  # (nscol^2 + 2 nr nscol) x 3 columns: 2 flops an entry of L a column
floor = lead_bytes / membw1 / 1e9 + (bf - lf) / cpurate / 1e9
# The issue's target, "no more than 3 extra right-hand sides of the same
# solve", read as DECISIONS does: three more columns through the same
# factor (no second factorization), each a full solve since its load is on
# every free DOF (a full solve's flops include the support border's term
# every column pays, hence 3.07 or 3.34 and not 3.00).  Beside it the
# comparison with 3 GF columns, whose loads at one vertex make partial
# forward passes.
print("bench bodyforce FEM %s: body rows %.3g flops, %.4f CPU s (%.3f s wall): %.2f full solves (4 lnz flops each)"
      " through the same factor (target: 3 right-hand sides of the same solve; above 3, the support border's term"
      " every column pays); beside 3 GF columns %.3g flops, %.4f CPU s: %.2f x in flops, %.2f x in CPU time"
      % (label, bf, bc, bt, bfull, f3, c3, rf, rc))
print("bench bodyforce FEM %s: of theirs, the forward on 3 columns alone %.3g flops (%.0f MB of the factor read),"
      " %.4f CPU s = %.2f GB/s against one thread's %.2f GB/s; the rest %.3g flops in %.4f CPU s (the run's solves:"
      " %.1f GFlop/s a CPU second, dgemm %.1f)"
      % (label, lf, lead_bytes / 1e6, lc, lead_bytes / max(lc, 1e-9) / 1e9, membw1, bf - lf, bc - lc, cpurate,
         dgemm1))
print("bench bodyforce FEM %s: floor for the body rows = that read at the memory rate + the rest at the solve rate"
      " = %.4f CPU s = %.2f x 3 GF columns; the flop excess %.2f x is inherent (%.2f full solves: a load on every"
      " free DOF makes the forward pass full)" % (label, floor, floor / c3, rf, bfull))
PY
}

"$BIN/loopsub" -q data/models/turtle/turtle-volumetric-homogeneous.veg -l 2 -o "$W/turtle2.off"
tetgen -pYq1.414a0.0008 -Q "$W/turtle2.off" >/dev/null
fem turtle "$W/turtle2.1.ele" --fixed-box -10,-10,-10,10,-0.2,10
fem beam-h0.0125 data/beam-h0.0125.msh --fixed-region fixed

"$BIN/loopsub" -q data/icosahedron.obj -l 4 -o "$W/s4.h5"
"$BIN/bemsolve" "$W/s4.h5" --fixed-box -2,-2,-2,2,2,-0.6 -E 1e6 --nu 0.45 --rho 1000 --body-force -o "$W/gfb.h5" \
    >"$W/bem.txt" 2>/dev/null
rm -f "$W/gfb.h5"
/usr/bin/python3 - "$W/bem.txt" "$dgemm1" <<'PY'
import re, sys
s, dgemm1 = open(sys.argv[1]).read(), float(sys.argv[2])
asm = float(re.search(r"assemble ([\d.]+) s", s).group(1))
fl, tsol, t3, tsum, rate, acpu = map(float, re.search(
    r"body-force rows: boundary data ([\d.e+]+) flops, solve ([\d.]+) s; 3 GF columns ([\d.]+) s; the data's sum"
    r" ([\d.]+) CPU s \(([\d.]+) GFlop/s a CPU second\) of the assembly's ([\d.]+) CPU s", s).groups())
print("bench bodyforce BEM 2,562 vertices: body columns' solve %.4f s beside 3 GF columns %.4f s (%s)"
      % (tsol, t3, "met" if tsol <= t3 else "MISSED"))
print("bench bodyforce BEM 2,562 vertices: their boundary data %.3g flops summed in %.3f CPU s = %.1f GFlop/s, %.0f%% of"
      " one thread's dgemm %.1f GFlop/s a CPU second; the assembly %.2f CPU s (%.2f s wall); data + solve %.3f s ="
      " %.0f x 3 GF columns: the data is n x triangles by nature (the load is on every triangle)"
      % (fl, tsum, rate, 100 * rate / dgemm1, dgemm1, acpu, asm, tsum + tsol, (tsum + tsol) / t3))
PY
