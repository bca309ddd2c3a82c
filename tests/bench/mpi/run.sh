#!/bin/sh
# make bench-mpi (issue 43; MATH.md §15; doc/DECISIONS.md "The BEM over MPI:
# the model of scale"): pdgetrf's GFlop/s a rank at P = 1 and 2 beside
# LAPACK's dgetrf in the same run; bemsolve-mpi on 2 ranks beside the serial
# bemsolve on the 2,562-vertex rabbit-4-size icosphere (target: 1.25 x the
# serial time or less); the largest peak resident memory of a rank at P = 4
# (target: within 10 % of 8 (3n)^2 / 4 bytes plus the right-hand-side
# block); then the model: memory a rank and time for 10k, 40k and 100k
# vertices on nodes of 128 GB and 64 cores, from this run's rates.
. "$(dirname "$0")/../common"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Ranks yield the core while they wait (2 cores shared with other work).
MPI="mpirun -q --mca mpi_yield_when_idle 1"
N=${EP_BENCH_LU_N:-3000}

# --- the LU: ScaLAPACK beside LAPACK --------------------------------------------------
OMP_NUM_THREADS=1 $MPI --bind-to none -np 1 "$BENCH/lu" "$N" >"$W/lu1"
OMP_NUM_THREADS=1 $MPI -np 2 "$BENCH/lu" "$N" >"$W/lu2"
cat "$W/lu1" "$W/lu2" | sed 's/^/bench mpi /'
rate() { sed -n "$1" "$2" | head -1; }
serial1=$(rate 's/^lu serial threads=1 .*dgetrf \([0-9.]*\) GFlop.*/\1/p' "$W/lu1")
p1=$(rate 's/.*pdgetrf [0-9.]* GFlop\/s (\([0-9.]*\) a rank.*/\1/p' "$W/lu1")
p2=$(rate 's/.*pdgetrf [0-9.]* GFlop\/s (\([0-9.]*\) a rank.*/\1/p' "$W/lu2")
s2=$(rate 's/.*pdgetrs [0-9.]* GFlop\/s (\([0-9.]*\) a rank.*/\1/p' "$W/lu2")
echo "bench mpi lu n=$N: pdgetrf a rank $p1 GFlop/s (P=1), $p2 GFlop/s (P=2) beside LAPACK dgetrf $serial1 GFlop/s on one core (this run)"

# --- bemsolve on the rabbit-4-size icosphere: serial, 2 ranks, 4 ranks ----------------
"$BIN/loopsub" -q data/icosahedron.obj -l 4 -o "$W/s4.h5"
ARGS="--fixed-box -2,-2,-2,2,2,-0.6 -E 1e6 --nu 0.45"
# shellcheck disable=SC2086
"$BIN/bemsolve" "$W/s4.h5" $ARGS -o "$W/gf.h5" >"$W/serial.txt" 2>/dev/null
# shellcheck disable=SC2086
OMP_NUM_THREADS=1 $MPI -np 2 "$BIN/bemsolve-mpi" "$W/s4.h5" $ARGS -o "$W/gf2.h5" >"$W/p2.txt" 2>/dev/null
# shellcheck disable=SC2086
OMP_NUM_THREADS=1 $MPI --oversubscribe -np 4 "$BIN/bemsolve-mpi" "$W/s4.h5" $ARGS -o "$W/gf4.h5" >"$W/p4.txt" 2>/dev/null
# the same 4 ranks on a 42-vertex icosphere: what a rank holds besides the
# solve (Open MPI, OpenBLAS, HDF5, the mesh), to tell apart from the model
"$BIN/loopsub" -q data/icosahedron.obj -l 1 -o "$W/s1.h5"
# shellcheck disable=SC2086
OMP_NUM_THREADS=1 $MPI --oversubscribe -np 4 "$BIN/bemsolve-mpi" "$W/s1.h5" $ARGS -o "$W/gf1.h5" >"$W/base.txt" 2>/dev/null
for f in serial p2 p4 base; do sed "s/^/bench mpi $f: /" "$W/$f.txt"; done
/usr/bin/python3 - "$W" "$p2" "$s2" <<'PY'
import re, sys
w, r_lu, r_so = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
def get(name):
    s = open("%s/%s.txt" % (w, name)).read()
    d = dict(tot=float(re.search(r"total ([\d.]+) s", s).group(1)),
             asm=float(re.search(r"assemble ([\d.]+) s", s).group(1)),
             n3=int(re.search(r"A is (\d+) x", s).group(1)),
             nf=int(re.search(r"(\d+) triangles", s).group(1)))
    m = re.search(r"largest peak resident (\d+) MiB", s)
    d["peak"] = float(m.group(1)) if m else None
    return d
s, p2, p4, base = get("serial"), get("p2"), get("p4"), get("base")
ratio = p2["tot"] / s["tot"]
print("bench mpi bemsolve rabbit-4 size: serial %.1f s, 2 ranks %.1f s: %.2f x (target <= 1.25: %s)"
      % (s["tot"], p2["tot"], ratio, "met" if ratio <= 1.25 else "MISSED"))
n3 = p4["n3"]
bound = (8.0 * n3 * n3 / 4 + 8.0 * n3 * 3 * 128) / 2**20
print("bench mpi bemsolve rabbit-4 size: P=4 largest peak resident a rank %.0f MiB beside 8 (3n)^2/4 + RHS block = %.0f MiB: "
      "%.2f x (target <= 1.10: %s)" % (p4["peak"], bound, p4["peak"] / bound, "met" if p4["peak"] <= 1.1 * bound else "MISSED"))
print("bench mpi bemsolve rabbit-4 size: P=4 the same less a rank's %.0f MiB without a system (42 vertices: libraries, "
      "buffers): %.0f MiB, %.2f x the model" % (base["peak"], p4["peak"] - base["peak"], (p4["peak"] - base["peak"]) / bound))
# the model (doc/DECISIONS.md): per rank 8 (3n)^2/P + 2 x 8 (3n)(384)/P bytes;
# time = assembly c_a n nf / P + (2/3)(3n)^3 / (P r_lu) + 2 (3n)^2 (3n) / (P r_so),
# every column solved; c_a from the 2-rank run, r_lu and r_so a rank at P = 2.
c_a = p2["asm"] * 2 / (p2["n3"] / 3 * p2["nf"])
node_mem, cores = 128e9, 64
print("bench mpi model inputs: assembly %.3g s a (node, triangle) pair a rank; pdgetrf %.2f, pdgetrs %.2f GFlop/s a rank; "
      "nodes of 128 GB (90%% usable) and 64 cores, a rank a core" % (c_a, r_lu, r_so))
for nv in (10000, 40000, 100000):
    n3 = 3.0 * nv
    nodes = 1
    while 8 * n3 * n3 + 2 * 8 * n3 * 384 > 0.9 * node_mem * nodes:
        nodes += 1
    for k in (nodes, 4 * nodes):
        P = cores * k
        mem = (8 * n3 * n3 + 2 * 8 * n3 * 384) / P
        t = c_a * nv * 2 * nv / P + (2 / 3 * n3**3) / (P * r_lu * 1e9) + 2 * n3**3 / (P * r_so * 1e9)
        print("bench mpi model: %6d vertices on %3d nodes (%5d ranks): %.2f GiB a rank, about %.1f h (LU %.1f h)"
              % (nv, k, P, mem / 2**30, t / 3600, (2 / 3 * n3**3) / (P * r_lu * 1e9) / 3600))
PY
