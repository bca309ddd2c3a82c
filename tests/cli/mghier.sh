#!/bin/sh
# mghier: nested, given and TetGen hierarchies written (kind multigrid) and
# checked with scipy (P reproduces affine fields, P^T K P equals the coarse
# operator, held rows), rtcheck's V-cycles and corotated step on them
# (against CHOLMOD), and bad input: coarse meshes that do not cover the fine
# one, refinement levels beyond the machine's memory.
. "$(dirname "$0")/common"
D=data
PY=/usr/bin/python3
O="$WORK/out/mg.h5"
MAT="-E 1e7 --nu 0.3 --rho 1000"

# a bar [0,2] x [0,1] x [0,1] of 4 x 2 x 2 cubes, six tets each; clamped at x = 0
$PY - "$WORK/bar.veg" 4 2 2 2 1 1 <<'PY'
import sys
out, (nx, ny, nz), L = sys.argv[1], map(int, sys.argv[2:5]), list(map(float, sys.argv[5:8]))
idx, V, T = {}, [], []
for k in range(nz + 1):
    for j in range(ny + 1):
        for i in range(nx + 1):
            idx[i, j, k] = len(V) + 1
            V.append((i * L[0] / nx, j * L[1] / ny, k * L[2] / nz))
for k in range(nz):
    for j in range(ny):
        for i in range(nx):
            c = [idx[i + a, j + b, k + d] for d in (0, 1) for b in (0, 1) for a in (0, 1)]
            for p in ((1, 3), (3, 2), (2, 6), (6, 4), (4, 5), (5, 1)):
                T.append((c[0], c[p[0]], c[p[1]], c[7]))
with open(out, "w") as f:
    f.write("*VERTICES\n%d 3 0 0\n" % len(V))
    f.writelines("%d %r %r %r\n" % (q + 1, *v) for q, v in enumerate(V))
    f.write("*ELEMENTS\nTETS\n%d 4 0\n" % len(T))
    f.writelines("%d %d %d %d %d\n" % (q + 1, *t) for q, t in enumerate(T))
PY

CHECK='import sys, h5py, numpy as np, scipy.sparse as sp
f = h5py.File(sys.argv[1], "r")
def sparse(g):
    g = f[g]
    if g.attrs["block"] == 3:
        return sp.bsr_matrix((g["values"][:], g["columns"][:], g["rowptr"][:]), shape=(3 * g.attrs["rows"], 3 * g.attrs["cols"])).tocsr()
    return sp.csr_matrix((g["values"][:], g["columns"][:], g["rowptr"][:]), shape=(g.attrs["rows"], g.attrs["cols"]))
L = f["multigrid"].attrs["levels"]
fixed = set(f["constraints/fixed"][:])
gal, aff = 0, 0
rng = np.random.default_rng(1)
for l in range(L - 1):
    K, Kc, P = sparse("multigrid/level%d/K" % l), sparse("multigrid/level%d/K" % (l + 1)), sparse("multigrid/level%d/P" % l)
    P3 = sp.kron(P, sp.eye(3)).tocsr()
    G = (P3.T @ K @ P3).tocsr()
    empty = np.where(np.asarray(abs(P).sum(axis=0)).ravel() == 0)[0]
    d = np.zeros(G.shape[0])
    d[(3 * empty[:, None] + np.arange(3)).ravel()] = 1
    G = G + sp.diags(d)
    gal = max(gal, abs(G - Kc).max() / abs(Kc).max())
    xf = f["mesh/vertices"][:] if l == 0 else f["multigrid/level%d/vertices" % l][:]
    xc = f["multigrid/level%d/vertices" % (l + 1)][:]
    A, c = rng.standard_normal((3, 3)), rng.standard_normal(3)
    rows = [i for i in range(len(xf)) if l > 0 or i not in fixed]
    aff = max(aff, np.abs((P @ (xc @ A.T + c))[rows] - (xf @ A.T + c)[rows]).max())
K0 = sparse("multigrid/level0/K")
held = all(abs(K0[3 * v]).sum() == 1 and K0[3 * v, 3 * v] == 1 for v in fixed)
print(L, gal < 1e-12, aff < 1e-12, held, f.attrs["kind"])'

# --- nested, 3 levels ---------------------------------------------------------
"$BIN/mghier" "$WORK/bar.veg" --fixed-box -1,-1,-1,0.01,2,2 $MAT --nested -l 3 -o "$WORK/n.h5" >"$WORK/summary"
check "nested summary: 3 levels, 8x the tets a level" grep -Eq "3 levels \(nested\): 1377 vertices, [0-9]+ blocks; 225 vertices, [0-9]+ blocks; 45 vertices" "$WORK/summary"
check "nested: P^T K P = the coarse operators, P affine-exact, fixed rows held (scipy)" [ "$($PY -c "$CHECK" "$WORK/n.h5")" = "3 True True True multigrid" ]
"$BIN/rtcheck" "$WORK/n.h5" --trials 3 >"$WORK/rt" 2>&1
check "rtcheck nested: V-cycles to 1e-8, solution = CHOLMOD's, corotated step exact (exit 0)" [ $? -eq 0 ]
check "rtcheck reports each cycle's reduction and the times against 002" sh -c "grep -q 'reduction_cycle2 = 0\.' '$WORK/rt' && grep -q 'pcg_vs_cholmod .* ok' '$WORK/rt' && grep -q 'corot_step_vs_rotated_linear .* ok' '$WORK/rt' && grep -q 'table2.9_horse_update_ns_per_tet' '$WORK/rt'"

# --- given coarse meshes (non-nested): the gmsh beams -------------------------
"$BIN/mghier" -q $D/beam-h0.0125.msh --coarse $D/beam-h0.025.msh --coarse $D/beam-h0.05.msh --fixed-region fixed $MAT -o "$WORK/g.h5"
check "given: P^T K P = the coarse operators, P affine-exact (scipy)" [ "$($PY -c "$CHECK" "$WORK/g.h5")" = "3 True True True multigrid" ]
"$BIN/rtcheck" -q "$WORK/g.h5" --trials 3
check "rtcheck given: converges, = CHOLMOD, corotated step exact" [ $? -eq 0 ]
"$BIN/mghier" -q $D/beam-h0.025.msh --coarse $D/beam-h0.05.msh --fixed-region fixed $MAT -o "$WORK/g2.h5"
r2=$("$BIN/rtcheck" "$WORK/g2.h5" --trials 1 | sed -n 's/.*[^_]reduction_mean = //p')
r3=$("$BIN/rtcheck" "$WORK/g.h5" --trials 1 | sed -n 's/.*[^_]reduction_mean = //p')
check "given: mean reduction of 3 levels ($r3) within 0.1 of 2 levels' ($r2)" $PY -c "import sys; sys.exit(not abs($r3 - $r2) < 0.1 and $r3 < 0.8)"

# --- made by TetGen -----------------------------------------------------------
"$BIN/mghier" -q $D/cube.msh --fixed-region bottom $MAT -l 2 -o "$WORK/t.h5"
check "TetGen levels: P affine-exact, Galerkin exact (scipy)" [ "$($PY -c "$CHECK" "$WORK/t.h5")" = "2 True True True multigrid" ]
check "TetGen levels: fewer than half the vertices" [ "$(h5 "$WORK/t.h5" "len(f['multigrid/level1/vertices']) < len(f['mesh/vertices']) / 2")" = True ]
"$BIN/rtcheck" -q "$WORK/t.h5" --trials 1
check "rtcheck TetGen: converges, = CHOLMOD" [ $? -eq 0 ]

# TetGen levels on the thin gmsh beam: CG preconditioned by the cycle takes
# about as many iterations on 3 levels as on 2 (41 and 43 when written), and
# the plain cycles' worst reduction stays under rtcheck's 0.95 (0.90; 0.96
# before the levels had inside points)
for l in 2 3; do
    "$BIN/mghier" -q $D/beam-h0.0125.msh --fixed-region fixed $MAT -l $l -o "$WORK/bt$l.h5"
    "$BIN/rtcheck" "$WORK/bt$l.h5" --trials 1 >"$WORK/bt$l.txt"
    echo $? >"$WORK/bt$l.rc"
done
i2=$(sed -n 's/.*pcg_iterations = //p' "$WORK/bt2.txt")
i3=$(sed -n 's/.*pcg_iterations = //p' "$WORK/bt3.txt")
check "TetGen levels, thin beam: rtcheck passes on 2 and 3 levels, CG iterations $i3 (3 levels) within 25% of $i2 (2)" \
    sh -c "[ \"\$(cat '$WORK/bt2.rc' '$WORK/bt3.rc' | tr -d '\n')\" = 00 ] && [ $((4 * ${i3:-999})) -le $((5 * ${i2:-0})) ]"

# --- the pipeline's rules (scripts/pipeline.mk): femdata on the modes, mghier ---
P="$WORK/pl"
make -s -f scripts/pipeline.mk BIN="$BIN" OUT="$P" MESH=$D/cube.msh FIXED="--fixed-region bottom" \
    MATERIAL="$MAT" MODES="-k 6 -r 10" MG_LEVELS=2 "$P/fem.h5" "$P/multigrid.h5" >"$WORK/pl.txt" 2>&1
k1=$(h5 "$P/fem.h5" '"%s %s" % (f.attrs["kind"], "reduced" in f)')
k2=$(h5 "$P/multigrid.h5" '"%s %d" % (f.attrs["kind"], f["multigrid"].attrs["levels"])')
check "pipeline: fem.h5 with the basis's reduced mass ($k1), multigrid.h5 of 2 levels ($k2)" \
    [ "$k1" = "fem True" -a "$k2" = "multigrid 2" ]
"$BIN/rtcheck" -q "$P/multigrid.h5" --trials 1
check "pipeline: rtcheck passes on its multigrid.h5" [ $? -eq 0 ]

# --- bad input ------------------------------------------------------------------
$PY - "$WORK/half.veg" <<'PY'
import sys
V = [(x, y, z) for z in (0, 0.1) for y in (0, 0.1) for x in (0, 0.5)]
T = [(1, 2, 4, 8), (1, 4, 3, 8), (1, 3, 7, 8), (1, 7, 5, 8), (1, 5, 6, 8), (1, 6, 2, 8)]
with open(sys.argv[1], "w") as f:
    f.write("*VERTICES\n8 3 0 0\n" + "".join("%d %r %r %r\n" % (i + 1, *v) for i, v in enumerate(V)))
    f.write("*ELEMENTS\nTETS\n6 4 0\n" + "".join("%d %d %d %d %d\n" % (i + 1, *t) for i, t in enumerate(T)))
PY
expect_fail "a coarse mesh covering half the fine one" 3 "half.veg does not cover level 0: render vertex [0-9]+ .* is farther than 0.05[0-9]* from every element \(5% of the mesh's size" mghier $D/beam-h0.05.msh --coarse "$WORK/half.veg" --fixed-region fixed $MAT -o "$O"
expect_fail "... and beyond --max-distance" 3 "does not cover level 0: .* \(--max-distance 0.2\)" mghier $D/beam-h0.05.msh --coarse "$WORK/half.veg" --max-distance 0.2 --fixed-region fixed $MAT -o "$O"
expect_fail "refinement levels whose memory exceeds the machine" 3 "bar.veg: 12 levels refine 96 tets into 8.2[0-9]*e\+11, about .* TiB, more than this machine's" mghier "$WORK/bar.veg" --nested -l 12 --fixed-box -1,-1,-1,0.01,2,2 $MAT -o "$O"
expect_fail "... or --max-memory" 3 "more than this machine's 1 MiB" mghier "$WORK/bar.veg" --nested -l 3 --max-memory 1M --fixed-box -1,-1,-1,0.01,2,2 $MAT -o "$O"
expect_fail "--nested and --coarse" 2 "exclude each other" mghier "$WORK/bar.veg" --nested --coarse "$WORK/half.veg" --fixed-box -1,-1,-1,0.01,2,2 $MAT -o "$O"
expect_fail "a coarse surface" 3 "not a tet mesh" mghier $D/beam-h0.05.msh --coarse $D/icosahedron.obj --fixed-region fixed $MAT -o "$O"
expect_fail "no support" 2 "fixed" mghier $D/beam-h0.05.msh $MAT -o "$O"

finish
