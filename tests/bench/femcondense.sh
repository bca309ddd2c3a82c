#!/bin/sh
# femcondense benchmark (issue 21 aim 1: a 99k-tet mesh made with tetgen from a
# shipped surface, all 12,246 free boundary columns, under 20 s on 2 cores with
# the solves at >= 70% of dgemm; aim 4: the solve flops, their time at the
# dgemm rate of the same run and the fraction achieved; peak memory within
# factor + solve blocks + mesh).
#
# Mesh: the shipped turtle's boundary, Loop-subdivided twice (4,242 surface
# vertices), filled by tetgen -pYq1.414a0.0008 (surface kept, ~99k tets);
# support: the vertices below y = -0.2.
#
# Second case: the 155k-tet dragon's free columns (aim 1: under 100 s),
# skipped without the shared models or 36 GB of free disk.
#
# Rates are given per wall second (against dgemm on both cores) and per CPU
# second of the solving threads (against one thread's dgemm per CPU second):
# on a shared machine the second is the one other jobs do not distort.
. "$(dirname "$0")/common"

"$BIN/loopsub" -q data/models/turtle/turtle-volumetric-homogeneous.veg -l 2 -o "$W/turtle2.off"
tetgen -pYq1.414a0.0008 -Q "$W/turtle2.off" >/dev/null
base=$("$BIN/femcondense" data/cube.msh --fixed-region bottom -E 1 --nu 0.3 -o "$W/small.h5" | sed -n 's/.*peak resident \([0-9]*\) MiB.*/\1/p')
dgemm=$("$BENCH/dgemm")
dgemm1=$("$BENCH/dgemm" cpu)
t0=$(date +%s.%N)
"$BIN/femcondense" "$W/turtle2.1.ele" --fixed-box -10,-10,-10,10,-0.2,10 -E 1e6 --nu 0.4 --rho 1000 --body-force -o "$W/gf.h5" >"$W/summary" 2>/dev/null
t1=$(date +%s.%N)
dgemm_after=$("$BENCH/dgemm")
cat "$W/summary"
/usr/bin/python3 - "$W/summary" "$dgemm" "$t0" "$t1" "$base" "$W/turtle2.1.ele" "$dgemm1" "$dgemm_after" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
dgemm, t0, t1, base = float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
dgemm1, dgemm_after = float(sys.argv[7]), float(sys.argv[8])
ntet = int(open(sys.argv[6]).readline().split()[0])
m, n = map(int, re.search(r"(\d+) x (\d+) GF blocks", s).groups())
lnz = float(re.search(r"factor ([\d.e+]+) nonzeros", s).group(1))
tsolve, flops, share, rate, cpurate = re.search(
    r"solve ([\d.]+) s \(([\d.e+]+) flops, (\d+)% of full solves; ([\d.]+) GFlop/s on \d+ threads, ([\d.]+) per CPU second",
    s).groups()
tsolve, flops, rate, cpurate = float(tsolve), float(flops), float(rate), float(cpurate)
est = float(re.search(r"memory estimate (\d+) MiB", s).group(1))
peak = float(re.search(r"peak resident (\d+) MiB", s).group(1))
wall = t1 - t0
rhs = 3 * m
print("bench femcondense: %d tets, %d right-hand sides, %.1f s wall (issue 21 target: under 20 s; %s)"
      % (ntet, rhs, wall, "met" if wall < 20 else "MISSED"))
# The issue measured its 39% as full-solve flops per second of the solve
# (1.29e12 in 33.3 s with cholmod_solve); skipping work counts toward its
# 70% by its own words, so the verdict takes that measure, the flops done
# are printed beside it.
full = 4 * lnz * rhs
print("bench femcondense: solve work %.3g flops (restricted solves; full solves 4 lnz x %d = %.3g); at this run's dgemm"
      " %.1f GFlop/s (%.1f at the end) %.1f s; took %.1f s = %.0f%% of dgemm by the flops done, %.0f%% counted as the"
      " issue counts (full-solve flops a second; issue 21 target: 70%%; %s)"
      % (flops, rhs, full, dgemm, dgemm_after, flops / dgemm / 1e9, tsolve, 100 * rate / dgemm,
         100 * full / tsolve / 1e9 / dgemm, "met" if full / tsolve / 1e9 >= 0.7 * dgemm else "MISSED"))
print("bench femcondense: per CPU second: solve %.1f GFlop/s = %.0f%% of one thread's dgemm %.1f GFlop/s;"
      " full-solve equivalent %.1f GFlop/s = %.0f%% (issue 21 measured 39%% with cholmod_solve)"
      % (cpurate, 100 * cpurate / dgemm1, dgemm1, cpurate * full / flops,
         100 * cpurate * full / flops / dgemm1))
budget = est + base
print("bench femcondense: peak resident %.0f MiB; budget %.0f MiB = factor + solve blocks + matrices + mesh %.0f"
      " (the tool's own estimate) + process baseline %.0f (the same tool on data/cube.msh, this run);"
      " %.1f%% of budget (%s; 5%% allowed for allocator slack)"
      % (peak, budget, est, base, 100 * peak / budget, "within" if peak <= 1.05 * budget else "OVER"))
# Issue 40: "body-force columns cost no more than 3 extra right-hand sides of
# the same solve".  An ordinary right-hand side is this run's average GF
# column (solve flops and CPU seconds less the body rows', over 3m); every
# column pays the support border's Woodbury term as the body rows do
# (femgf.c solve_block).  The body loads reach every free DOF, so their
# forward substitution is a full one, where a GF column's starts at its
# loaded supernodes (chol.h ep_chol_rforward).
bf, bt, bc, bfull, f3, c3, rf, rc = re.search(
    r"body-force rows: ([\d.e+]+) flops in ([\d.]+) s \(([\d.]+) CPU s\), ([\d.]+) full solves; 3 GF columns of this"
    r" run: ([\d.e+]+) flops, ([\d.]+) CPU s; ratio ([\d.]+) in flops, ([\d.]+) in CPU time", s).groups()
print("bench femcondense: body-force rows (--body-force, issue 40): %s flops, %s CPU s (%s s wall) beside 3 GF columns"
      " of the same run %s flops, %s CPU s: %s x in flops (%s), %s x in CPU time (%s); %s full solves' flops"
      % (bf, bc, bt, f3, c3, rf, "met" if float(rf) <= 1 else "MISSED", rc, "met" if float(rc) <= 1 else "MISSED",
         bfull))
print("bench femcondense: published: James thesis Table 7.7 (BEM, Java, 450 MHz): Rabbit 4, 2,145 free"
      " vertices, 9 h on 8 CPUs")
PY

# --- the 155k-tet dragon's free columns (issue 21 aim 1: under 100 s) --------------------------
# 60,429 right-hand sides and a 29.4 GB dense GF: the solves against the
# same run's dgemm, the writes (overlapped by the writer thread) against
# the disk's rate.
DRAGON=../shared/models/asianDragon/asianDragon-155k.veg
if [ ! -f "$DRAGON" ]; then
    echo "bench femcondense dragon: skipped ($DRAGON not present: the benchmark mesh lives in the project's shared models)"
elif [ "$(df -Pk "$W" | awk 'NR == 2 {print $4 + 0}' || echo 0)" -lt 36000000 ]; then
    echo "bench femcondense dragon: skipped (its GF takes 29.4 GB; $W has less than 36 GB free)"
else
    disk=$(disk_write_rate)
    touch_=$("$BENCH/membw" touch)
    dgemm=$("$BENCH/dgemm")
    t0=$(date +%s.%N)
    "$BIN/femcondense" "$DRAGON" --fixed-ids "${DRAGON%.veg}.bou" -E 1e7 --nu 0.4 --rho 1000 -o "$W/dragon.h5" \
        >"$W/dsummary" 2>"$W/derr" || { cat "$W/derr" >&2; exit 1; }
    t1=$(date +%s.%N)
    rm -f "$W/dragon.h5"
    cat "$W/dsummary"
    /usr/bin/python3 - "$W/dsummary" "$dgemm" "$t0" "$t1" "$disk" "$touch_" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
dgemm, wall, disk = float(sys.argv[2]), float(sys.argv[4]) - float(sys.argv[3]), float(sys.argv[5])
fresh = float(sys.argv[6].split()[2])
m, n = map(int, re.search(r"(\d+) x (\d+) GF blocks", s).groups())
tfac = float(re.search(r"factor ([\d.]+) s", s).group(1))
tsolve, flops, rate, cpurate = re.search(
    r"solve ([\d.]+) s \(([\d.e+]+) flops, \d+% of full solves; ([\d.]+) GFlop/s on \d+ threads, ([\d.]+) per CPU second",
    s).groups()
tsolve, flops, rate, cpurate = float(tsolve), float(flops), float(rate), float(cpurate)
twrite = float(re.search(r"write ([\d.]+) s", s).group(1))
gb = 9.0 * m * n * 8 / 1e9
print("bench femcondense dragon: %d right-hand sides, GF %.1f GB: %.1f s wall (issue 21 target: under 100 s; %s)"
      % (3 * m, gb, wall, "met" if wall < 100 else "MISSED"))
print("bench femcondense dragon: factor %.1f s; solves %.3g flops, %.1f s = %.1f GFlop/s, %.0f%% of this run's dgemm %.1f"
      " (at dgemm: %.1f s); per CPU second %.1f GFlop/s" % (tfac, flops, tsolve, rate, 100 * rate / dgemm, dgemm,
                                                          flops / dgemm / 1e9, cpurate))
print("bench femcondense dragon: writes %.1f s on the writer thread, beside the solves (%.1f GB at the disk's %.2f GB/s:"
      " %.1f s); memory fresh from the hypervisor costs %.2f s a GiB here (membw touch)"
      % (twrite, gb, disk, gb / disk, fresh))
PY
fi
