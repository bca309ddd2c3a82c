#!/bin/sh
# embed: render points inside and outside a tet mesh (and a voxel hex mesh)
# bound exactly for affine fields, weights summing to 1, read as the CSR
# matrix elastoprep(5) documents (scipy), the .interp layout against the
# .h5 weights, Ubar = W U with --modes, rtcheck on the embedding (with the
# cubic file: the render update timed), and bad input.  The binding itself
# (nearest elements, distances) is unit-tested in tests/unit/test_embed.c.
. "$(dirname "$0")/common"
D=data
PY=/usr/bin/python3

# render "mesh": 400 random points in the cube's box grown by 0.15 on every
# side (some outside the unit cube), a few triangles on them
$PY - "$WORK/render.obj" <<'PY'
import sys, numpy as np
rng = np.random.default_rng(3)
p = rng.uniform(-0.15, 1.15, (400, 3))
with open(sys.argv[1], "w") as f:
    for x in p:
        f.write("v %.17g %.17g %.17g\n" % tuple(x))
    for i in range(0, 399, 3):
        f.write("f %d %d %d\n" % (i + 1, i + 2, i + 3))
PY

# csr FILE.h5: W from the documented datasets, as scipy reads a CSR matrix
AFFINE='import sys, h5py, numpy as np, scipy.sparse as sp
f = h5py.File(sys.argv[1], "r")
e = f["embedding"]
nr, nv = len(f["render/vertices"]), len(f["mesh/vertices"])
W = sp.csr_matrix((e["weights"][:], e["columns"][:], e["rowptr"][:]), shape=(nr, nv))
x, p = f["mesh/vertices"][:], f["render/vertices"][:]
rng = np.random.default_rng(5)
err = 0
for t in range(3):
    A, c = rng.standard_normal((3, 3)), rng.standard_normal(3)
    err = max(err, np.abs(W @ (x @ A.T + c) - (p @ A.T + c)).max() / np.abs(p @ A.T + c).max())
out = e["distance"][:] > 0
sums = np.abs(np.asarray(W.sum(axis=1)).ravel() - 1).max()
print(int(out.sum()), int((~out).sum()), err < 1e-13, sums < 1e-14, e.attrs["element_vertices"])'

# --- tets: affine exact inside and outside, weights sum to 1 ------------------
"$BIN/embed" $D/cube.msh "$WORK/render.obj" -o "$WORK/e.h5" >"$WORK/summary"
check "summary counts inside and outside vertices" grep -Eq "400 render vertices bound to [0-9]+ tets .*: [0-9]+ inside, [0-9]+ outside" "$WORK/summary"
res=$($PY -c "$AFFINE" "$WORK/e.h5")
set -- $res
check "tets: vertices inside and outside the mesh ($1 outside, $2 inside)" [ "$1" -gt 20 -a "$2" -gt 100 ]
check "tets: W reproduces affine fields exactly inside and outside (CSR read by scipy)" [ "$3" = True ]
check "tets: weights sum to 1" [ "$4" = True ]
check "tets: 4 weights a row" [ "$5" = 4 ]
check "kind embedding, carrying the simulation mesh and the render mesh" [ "$(h5 "$WORK/e.h5" "f.attrs['kind'], 'tets' in f['mesh'], f['render/triangles'].shape")" = "embedding True (133, 3)" ]

# --- Vega's .interp: the same weights, in Vega's line layout ------------------
"$BIN/embed" -q $D/cube.msh "$WORK/render.obj" -o "$WORK/e.interp"
check ".interp: one line per render vertex, index then 4 (vertex, weight) pairs, equal to the .h5's" $PY -c "
import h5py, numpy as np
e = h5py.File('$WORK/e.h5')['embedding']
cols, w = e['columns'][:].reshape(-1, 4), e['weights'][:].reshape(-1, 4)
lines = open('$WORK/e.interp').read().splitlines()
ok = len(lines) == 400
for i, line in enumerate(lines):
    t = line.split()
    ok &= len(t) == 9 and int(t[0]) == i
    ok &= all(int(t[1 + 2 * a]) == cols[i, a] and float(t[2 + 2 * a]) == w[i, a] for a in range(4))
raise SystemExit(0 if ok else 1)"

# --- --modes: Ubar = W U; rtcheck on the embedding, with the cubic file -------
"$BIN/moddesc" -q $D/cube.msh --fixed-region bottom -E 1e6 --nu 0.3 --rho 1000 -k 4 -r 6 -o "$WORK/m.h5"
"$BIN/polycoef" -q "$WORK/m.h5" -o "$WORK/c.h5"
"$BIN/embed" -q "$WORK/c.h5" "$WORK/render.obj" --modes "$WORK/c.h5" -o "$WORK/eu.h5"
check "--modes: Ubar [6][1200] = W U of the basis" $PY -c "
import h5py, numpy as np, scipy.sparse as sp
f = h5py.File('$WORK/eu.h5')
e = f['embedding']
W = sp.csr_matrix((e['weights'][:], e['columns'][:], e['rowptr'][:]), shape=(400, len(f['mesh/vertices'])))
U, Ub = f['basis/U'][:], e['Ubar'][:]
WU = np.stack([(W @ u.reshape(-1, 3)).ravel() for u in U])
raise SystemExit(0 if Ub.shape == (6, 1200) and np.abs(Ub - WU).max() <= 1e-14 * np.abs(WU).max() else 1)"
"$BIN/rtcheck" "$WORK/eu.h5" "$WORK/c.h5" --steps 200 >"$WORK/rt"
status=$?
check "rtcheck embedding + cubic: passes" [ $status -eq 0 ]
check "rtcheck: every check of the binding made and passed" sh -c "grep -q 'not bound to their element.s vertices 0.000e+00' '$WORK/rt' && grep -q 'affine fields reproduced .* ok' '$WORK/rt' && grep -q 'weights sum to 1.* ok' '$WORK/rt' && grep -q 'Ubar = W U of the cubic file.s basis .* ok' '$WORK/rt'"
check "rtcheck: outside vertices and their distance reported (at most 0.15 of the size, the box grown)" grep -Eq "farthest outside vertex / model size = 0\.(0[0-9]*|1[0-4][0-9]*|15)$" "$WORK/rt"
check "rtcheck: u_render = Ubar q timed beside the Newmark step" sh -c "grep -Eq 'u_render = Ubar q, per frame +[0-9.]+ us' '$WORK/rt' && grep -Eq 'Newmark step, 1 Newton iteration +[0-9.]+ us' '$WORK/rt'"
"$BIN/rtcheck" -q "$WORK/e.h5"
check "rtcheck on an embedding alone: exit 0" [ $? -eq 0 ]

# --- bad input -------------------------------------------------------------------
O="$WORK/out/e.h5"
printf 'v 0.5 0.5 0.5\nv 0.2 0.2 0.2\nv 9 9 9\nf 1 2 3\n' >"$WORK/far.obj"
expect_fail "a render vertex farther than twice the element size from every element" 3 "far.obj: render vertex 3 \(9, 9, 9\) is farther than 0.4[0-9]* from every element \(twice the mean element edge length" embed $D/cube.msh "$WORK/far.obj" -o "$O"
# a loose piece 0.47 of the model's size away (issue 45: weights +150 and -140 were accepted)
printf 'v 0.5 0.5 0.5\nv 0.2 0.2 0.2\nv 0.5 0.5 1.81\nf 1 2 3\n' >"$WORK/loose.obj"
expect_fail "a loose piece 0.47 of the model's size away: refused by default" 3 "render vertex 3 \(0.5, 0.5, 1.81\) is farther than" embed $D/cube.msh "$WORK/loose.obj" -o "$O"
"$BIN/embed" $D/cube.msh "$WORK/loose.obj" --max-distance 2 -o "$WORK/loose.h5" >"$WORK/loose.out" 2>"$WORK/loose.err"
check "... accepted with --max-distance 2, warned: 1 vertex, the largest weight, its vertex and distance" sh -c "[ \$? -eq 0 ] && grep -Eq '^embed: warning: 1 render vertices bound by extrapolation with weights outside \[-1, 2\]; largest weight -?[0-9.]+ at render vertex 3, 0.81 from its element \(47% of the model' '$WORK/loose.err'"
check "... the largest weight in the warning is the file's" [ "$($PY -c "
import h5py, numpy as np, re
w = h5py.File('$WORK/loose.h5')['embedding/weights'][:]
m = float(re.search('largest weight (\\S+)', open('$WORK/loose.err').read()).group(1))
print(abs(w).max() > 3, abs(abs(m) - abs(w).max()) <= 6e-3 * abs(w).max())")" = "True True" ]
expect_fail "... and farther than --max-distance" 3 "render vertex 3 .* farther than 0.5 from every element \(--max-distance\)" embed $D/cube.msh "$WORK/far.obj" --max-distance 0.5 -o "$O"
expect_fail "a surface to bind to" 3 "no tetrahedra or hexahedra to bind to" embed $D/icosahedron.obj "$WORK/render.obj" -o "$O"
expect_fail "--modes of another mesh" 3 "/basis/U has shape" embed $D/models/beam3/beam3_tet.veg "$WORK/render.obj" --modes "$WORK/c.h5" -o "$O"
expect_fail "--modes into .interp" 2 "a .interp file holds weights only" embed $D/cube.msh "$WORK/render.obj" --modes "$WORK/c.h5" -o "$WORK/out/e.interp"
expect_fail "a render mesh that is not there" 4 "nothere.obj" embed $D/cube.msh "$WORK/nothere.obj" -o "$O"
expect_fail "--max-distance 0" 2 "option --max-distance" embed $D/cube.msh "$WORK/render.obj" --max-distance 0 -o "$O"
cp "$WORK/e.h5" "$WORK/bad.h5"
$PY -c "
import h5py
with h5py.File('$WORK/bad.h5', 'a') as f:
    c = f['embedding/columns']
    c[7] = 10 ** 6"
expect_fail "rtcheck: an embedding naming a vertex not in the mesh" 3 "/embedding/columns: vertex 1000000 of render vertex 2 is not in the mesh" rtcheck "$WORK/bad.h5"
"$BIN/moddesc" -q $D/models/beam3/beam3_tet.veg --fixed-ids $D/models/beam3/beam3.bou -k 3 -r 4 -o "$WORK/bm.h5"
"$BIN/polycoef" -q "$WORK/bm.h5" -o "$WORK/bc.h5"
expect_fail "rtcheck: a cubic file of another mesh" 3 "bc.h5: .*/mesh/vertices" rtcheck "$WORK/eu.h5" "$WORK/bc.h5"
expect_fail "rtcheck: a second file with a kind other than embedding" 2 "goes with an embedding file only" rtcheck "$WORK/c.h5" "$WORK/c.h5"
finish
